/**
 * Issue 35 class 7 for MCP servers: a host killed with SIGKILL (no exit handler runs) leaves no server
 * behind, sandboxed or not: the server's stdin closes with its owner and it ends. Counted in /proc.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GROWING } from '../../test/mcp/servers.js';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-orphans-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Processes whose command line names `text`, not zombies. */
function running(text: string): number[] {
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).flatMap((e) => {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      return fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(text) && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z') ? [Number(e)] : [];
    } catch {
      return [];
    }
  });
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (check()) return true;
  return check();
}

describe.each([{ sandboxed: true }, { sandboxed: false }])('MCP servers of a host killed with SIGKILL, sandboxed $sandboxed', ({ sandboxed }) => {
  it('end with it', async () => {
    // A copy of the server under a name of its own, so only this test's processes are counted.
    const script = path.join(tmp, `orphan-${sandboxed}.mjs`);
    fs.copyFileSync(GROWING, script);
    if (!fs.existsSync(path.join(tmp, 'node_modules'))) fs.symlinkSync(path.resolve('node_modules'), path.join(tmp, 'node_modules'), 'dir');
    const code = [
      `import { McpHub } from ${JSON.stringify(path.resolve('main/mcp/hub.ts'))};`,
      `import { sandboxedLaunch } from ${JSON.stringify(path.resolve('main/mcp/sandboxed.ts'))};`,
      `import fs from 'node:fs';`,
      `const data = ${JSON.stringify(path.join(tmp, `data-${sandboxed}`))};`,
      `fs.mkdirSync(data, { recursive: true });`,
      `fs.writeFileSync(data + '/mcp.json', JSON.stringify({ mcpServers: { g: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(script)}] } } }));`,
      `const h = new McpHub({ root: ${JSON.stringify(tmp)}, dataFolder: data${sandboxed ? ', wrapLaunch: sandboxedLaunch({ dataFolder: data })' : ''} });`,
      `await h.start();`,
      `console.log(h.connection('g').state);`,
      `setInterval(() => {}, 1000);`,
    ].join('\n');
    const host = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    host.stderr.on('data', (d: Buffer) => (err += d));
    const state = await new Promise<string>((resolve) => host.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
    expect(state, err).toBe('connected');
    expect(running(script).length).toBeGreaterThan(0);
    const closed = new Promise((r) => host.once('close', r));
    host.kill('SIGKILL');
    await closed;
    expect(await until(() => running(script).length === 0, 10_000), `still running: ${running(script).join(', ')}`).toBe(true);
  }, 60_000);
});
