#!/usr/bin/env node
// A broken MCP server for tests, speaking raw JSON-RPC lines on stdio. Its mode is argv[2]:
//   noise       writes lines that are not JSON-RPC and never answers
//   bad-result  initializes and lists one tool, then answers tools/call with a result of the wrong shape
//   crash       writes a reason on stderr and exits at once
import readline from 'node:readline';

const mode = process.argv[2];
if (mode === 'crash') {
  process.stderr.write('cannot open the database: permission denied\n');
  process.exit(3);
}
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (mode === 'noise') {
    process.stdout.write(`hello from a server that prints to stdout: ${line.length} bytes\n`);
    process.stdout.write('{"this is": "not json-rpc"}\n');
    return;
  }
  if (msg.method === 'initialize') {
    send({ id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'garbage', version: '0' } } });
  } else if (msg.method === 'tools/list') {
    send({ id: msg.id, result: { tools: [{ name: 'broken', description: 'Answers nonsense.', inputSchema: { type: 'object' } }] } });
  } else if (msg.method === 'tools/call') {
    send({ id: msg.id, result: { content: 'this should be a list of content blocks' } });
  }
});
