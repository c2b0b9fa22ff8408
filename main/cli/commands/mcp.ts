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
  /** `approve --allow-env A,B`: the variables the file's entries may read (expand.ts). */
  allowEnv?: string;
}

/** How the command line launches stdio servers: in the OS sandbox, as commands (main/mcp/sandboxed.ts); tests may replace it. */
export const cliLaunch: { wrapLaunch?: WrapLaunch } = {};
const wrapLaunch = (): WrapLaunch => cliLaunch.wrapLaunch ?? sandboxedLaunch(sandboxOptions(keelHome()));

/** Runs `keel mcp SUB`; returns the exit code (tools: 0 only when every server answered). */
export async function mcpCommand(sub: string, flags: McpFlags, io: Io): Promise<number> {
  const root = folder(flags.workspace ?? '.');
  if (flags.config !== undefined && sub !== 'tools') throw new CliError('--config goes with `keel mcp tools` only.');
  if (flags.allowEnv !== undefined && sub !== 'approve') throw new CliError('--allow-env goes with `keel mcp approve` only.');
  const allowEnv = (flags.allowEnv ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');
  const badVar = allowEnv.find((v) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v));
  if (badVar !== undefined) throw new CliError(`--allow-env takes variable names separated by commas; ${JSON.stringify(badVar)} is not one.`);
  const configFile = flags.config === undefined ? undefined : existingFile(flags.config);
  const hub = new McpHub({
    root, dataFolder: keelHome(), configFile, wrapLaunch: wrapLaunch(),
    onEvent: (e) => { if (e.type === 'preparing') io.err.write(`${e.message}\n`); },
  });
  try {
    switch (sub) {
      case 'list':
        return list(hub, io.out);
      case 'tools':
        await hub.start();
        return printTools(hub.view(), io.out);
      case 'approve':
        return approve(hub, allowEnv, io.out);
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
      if (e.type === 'preparing') io.err.write(`${e.message}\n`);
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

/** How a file stands, in a word or two: a file that cannot be used is never "approved". */
function fileStatus(f: HubView['files'][number]): string {
  if (!f.exists) return 'none';
  if (f.broken) return 'cannot be used';
  if (f.needsApproval) return `not approved (sha ${f.hash.slice(0, 8)}; keel mcp approve)`;
  if (f.scope !== 'workspace') return 'read';
  return f.servers.length > 0 ? 'approved' : 'no servers';
}

/** A server's entry: the launch as written, what it receives (masked), the package fetched for it. */
function writeServer(s: HubView['servers'][number], out: Writer, head: string): void {
  out.write(`${head}${s.launch}${s.state === 'not approved' ? ' [not approved]' : ''}\n`);
  for (const r of s.receives ?? []) out.write(`  receives ${r}\n`);
  if (s.fetches) out.write(`  fetches ${s.fetches}\n`);
  if (s.dataFolder) out.write(`  keeps its data in ${s.dataFolder}\n`);
  if (s.lastError && s.state !== 'connected') out.write(`  ${s.lastError}\n`);
}

function list(hub: McpHub, out: Writer): number {
  const view = hub.configView();
  for (const f of view.files) {
    out.write(`${f.scope} file ${f.file}: ${fileStatus(f)}\n`);
    if (f.runs?.length) out.write(`  runs ${f.runs.join(', ')} (covered by its approval)\n`);
    for (const p of f.problems) out.write(`  ${p}\n`);
  }
  if (view.servers.length === 0) out.write('No MCP servers are configured.\n');
  for (const s of view.servers) writeServer(s, out, `server ${s.name} (${s.scope}): `);
  return view.files.some((f) => f.broken) ? 1 : 0;
}

function printTools(view: HubView, out: Writer): number {
  // A file that cannot be used is a failure even when no server of it could be listed.
  let answered = !view.files.some((f) => f.broken);
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

/**
 * Approves the workspace file as shown: each entry as written and what it receives (variables
 * masked), the files it runs; `allowEnv` first lets the entries that name those variables read them.
 */
function approve(hub: McpHub, allowEnv: readonly string[], out: Writer): number {
  let { file } = hub.workspaceFile();
  if (!file.exists) throw new CliError(`There is no ${path.join(hub.root, '.mcp.json')} to approve.`);
  if (file.broken) throw new CliError(`${file.file} cannot be approved:\n${file.problems.join('\n')}`);
  if (file.servers.length === 0) throw new CliError(`${file.file} names no servers Keel can start${file.problems.length ? `:\n${file.problems.join('\n')}` : '.'}`);
  for (const s of file.servers) {
    const named = allowEnv.filter((v) => JSON.stringify(s.entry ?? s.transport).includes(`\${${v}`));
    if (named.length > 0) hub.approvals.allowEnv(file.file, s.name, named);
  }
  const now = hub.workspaceFile();
  file = now.file;
  const view = hub.configView();
  for (const s of view.servers.filter((v) => v.file === file.file)) writeServer(s, out, `server ${s.name}: `);
  if (now.runs.length > 0) out.write(`runs ${now.runs.join(', ')}\n`);
  hub.approvals.approve(file.file, now.hash);
  out.write(`Approved ${file.file} (sha ${now.hash.slice(0, 8)}): its servers may run. Any change to it${now.runs.length ? ' or a file it runs' : ''} asks again.\n`);
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
