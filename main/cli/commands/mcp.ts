/**
 * `keel mcp list|tools|approve`: the MCP servers Keel would start for a workspace, their tools, and
 * the approval a workspace's `.mcp.json` needs before any of its servers runs. Conversations
 * (`keel new`, `chat`, `say`) connect the same servers through `connectServers`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sandboxOptions } from '../../app/settings.js';
import type { ToolSpec } from '../../core/tools/types.js';
import { keelHome } from '../../keelHome.js';
import type { WrapLaunch } from '../../mcp/connection.js';
import { McpHub, type HubView } from '../../mcp/hub.js';
import { sandboxedLaunch } from '../../mcp/sandboxed.js';
import { CliError, type Io, type Writer } from '../io.js';

export interface McpFlags {
  workspace?: string;
  config?: string;
}

/** How the command line launches stdio servers: in the OS sandbox, as commands (main/mcp/sandboxed.ts); tests may replace it. */
export const cliLaunch: { wrapLaunch?: WrapLaunch } = {};
const wrapLaunch = (): WrapLaunch => cliLaunch.wrapLaunch ?? sandboxedLaunch(sandboxOptions(keelHome()));

/** Runs `keel mcp SUB`; returns the exit code (tools: 0 only when every server answered). */
export async function mcpCommand(sub: string, flags: McpFlags, io: Io): Promise<number> {
  const root = folder(flags.workspace ?? '.');
  if (flags.config !== undefined && sub !== 'tools') throw new CliError('--config goes with `keel mcp tools` only.');
  const configFile = flags.config === undefined ? undefined : existingFile(flags.config);
  const hub = new McpHub({ root, dataFolder: keelHome(), configFile, wrapLaunch: wrapLaunch() });
  try {
    switch (sub) {
      case 'list':
        return list(hub, io.out);
      case 'tools':
        await hub.start();
        return printTools(hub.view(), io.out);
      case 'approve':
        return await approve(hub, io.out);
      default:
        throw new CliError(`Unknown mcp command "${sub}": it is list, tools or approve. See \`keel --help\`.`);
    }
  } finally {
    await hub.close();
  }
}

/**
 * A conversation's servers, connected: the workspace's hub, started. What the person should know
 * (a file waiting for approval, a server that failed) goes to `err`; later, a server that lists
 * tools the session lacks says they join the next session.
 */
export async function connectServers(root: string, io: Io): Promise<McpHub & { watch(tools: readonly ToolSpec[]): void }> {
  let tools: readonly ToolSpec[] | undefined;
  const told = new Set<string>();
  const hub = new McpHub({
    root, dataFolder: keelHome(), wrapLaunch: wrapLaunch(),
    onEvent: (e) => {
      if (e.type !== 'changed' || !tools) return;
      const fresh = hub.waiting(tools).filter((w) => w.name.startsWith(`mcp__${e.server}__`) && !told.has(w.name));
      fresh.forEach((w) => told.add(w.name));
      if (fresh.length > 0) io.err.write(`MCP server ${e.server} now lists ${fresh.map((w) => `${w.name} (${w.change})`).join(', ')}: this session keeps its tool list; a new session gets them.\n`);
    },
  });
  await hub.start();
  const view = hub.view();
  for (const f of view.files) {
    for (const p of f.problems) io.err.write(`${p}\n`);
    if (f.needsApproval) io.err.write(`${f.file} names MCP servers (${f.servers.join(', ')}) that do not run until you approve it: keel mcp approve --workspace ${root}\n`);
  }
  for (const s of view.servers) if (s.state === 'failed') io.err.write(`MCP server ${s.name} did not start: ${s.lastError}\n`);
  return Object.assign(hub, { watch: (list: readonly ToolSpec[]) => { tools = list; } });
}

function list(hub: McpHub, out: Writer): number {
  const view = hub.configView();
  for (const f of view.files) {
    const status = !f.exists ? 'none' : f.needsApproval ? `not approved (sha ${f.hash.slice(0, 8)}; keel mcp approve)` : f.scope === 'workspace' ? 'approved' : 'read';
    out.write(`${f.scope} file ${f.file}: ${status}\n`);
    for (const p of f.problems) out.write(`  ${p}\n`);
  }
  if (view.servers.length === 0) out.write('No MCP servers are configured.\n');
  for (const s of view.servers) out.write(`server ${s.name} (${s.scope}): ${s.launch}${s.state === 'not approved' ? ' [not approved]' : ''}\n`);
  return 0;
}

function printTools(view: HubView, out: Writer): number {
  let answered = true;
  for (const f of view.files) for (const p of f.problems) out.write(`${p}\n`);
  if (view.servers.length === 0) out.write('No MCP servers are configured.\n');
  for (const s of view.servers) {
    if (s.state !== 'connected') {
      answered = false;
      const why = s.state === 'not approved' ? `not started: ${s.file} is not approved (keel mcp approve)` : `did not answer: ${s.lastError ?? s.state}`;
      out.write(`server ${s.name}: ${why}\n`);
      continue;
    }
    out.write(`server ${s.name}: ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}\n`);
    for (const t of s.tools) out.write(`  ${t.name}${t.readOnly ? ' (read-only)' : ''}  ${t.description.split('\n')[0]}\n`);
    for (const l of s.leftOut) out.write(`  left out: ${l}\n`);
  }
  return answered ? 0 : 1;
}

async function approve(hub: McpHub, out: Writer): Promise<number> {
  const view = hub.configView();
  const file = view.files.find((f) => f.scope === 'workspace');
  if (!file?.exists) throw new CliError(`There is no ${path.join(hub.root, '.mcp.json')} to approve.`);
  if (file.servers.length === 0) throw new CliError(`${file.file} names no servers Keel can start${file.problems.length ? `:\n${file.problems.join('\n')}` : '.'}`);
  for (const s of view.servers.filter((v) => v.file === file.file)) out.write(`server ${s.name}: ${s.launch}\n`);
  hub.approvals.approve(file.file, file.hash);
  out.write(`Approved ${file.file} (sha ${file.hash.slice(0, 8)}): its servers may run. Any change to the file asks again.\n`);
  return 0;
}

function folder(given: string): string {
  const absolute = path.resolve(given);
  if (!fs.existsSync(absolute) || !fs.statSync(absolute).isDirectory()) throw new CliError(`The workspace ${absolute} is not a folder.`);
  return fs.realpathSync(absolute);
}

function existingFile(given: string): string {
  const absolute = path.resolve(given);
  if (!fs.existsSync(absolute) || !fs.statSync(absolute).isFile()) throw new CliError(`The MCP configuration ${absolute} is not a file.`);
  return absolute;
}
