/**
 * The MCP servers of one workspace: the person's own file and the workspace's `.mcp.json`, the
 * connections, and the core's view of them (ExternalTools). Sessions of the workspace share it. A
 * workspace file's servers start only once the person approved that file as it is now.
 */
import path from 'node:path';
import type { McpFileView, McpServerView } from '../contract.js';
import { stableJson } from '../core/hygiene/stableJson.js';
import { notListed, parseExternalName, unavailable, type ExternalToolInfo, type ExternalTools, type ServerInstructions } from '../core/tools/external.js';
import type { RawOutput, ToolSpec } from '../core/tools/types.js';
import { McpApprovals } from './approvals.js';
import { describeSandbox, editorConfig, readConfigFile, USER_FILE, WORKSPACE_FILE, type ConfigFile, type Scope, type ServerConfig } from './config.js';
import { McpConnection, type PrepareLaunch, type WrapLaunch } from './connection.js';
import { isRefused, packageLaunch } from './launchers.js';
import { describeFetch, preparePackage, refusal } from './packages.js';
import { serverDataFolder } from './dataFolder.js';
import { approvalHash, filesRun } from './runs.js';

export interface HubOptions {
  /** The workspace root (absolute): its `.mcp.json` is read, and stdio servers run there. */
  root: string;
  /** Keel's data folder: the person's `mcp.json` and the approvals. */
  dataFolder: string;
  /**
   * Read only this file instead (`keel mcp tools --config FILE`): the person named it, so its
   * servers run without a workspace approval.
   */
  configFile?: string;
  wrapLaunch?: WrapLaunch;
  /** Servers the editor passed over ACP for the sessions on this hub (config.ts editorConfig), read after the files. */
  editor?: { label: string; entries: Record<string, unknown> };
  /** Prepares an entry before it starts; default: packages.ts (`npx -y PKG` fetched into the data folder's package cache). */
  prepare?: PrepareLaunch;
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  onEvent?: (event: HubEvent) => void;
}

export type HubEvent =
  /** A server's state, tools or last error changed (a list_changed too). */
  | { type: 'changed'; server: string }
  /** What preparing a server is doing (its package fetched), in words for the person. */
  | { type: 'preparing'; server: string; message: string }
  | { type: 'progress'; sessionId: number; name: string; progress: number; total?: number; message?: string };

/** The views are the contract's (the Servers panel shows them as they are). */
export type FileView = McpFileView;
export type ServerView = McpServerView;

export interface HubView {
  files: FileView[];
  servers: ServerView[];
}

export class McpHub implements ExternalTools {
  readonly approvals: McpApprovals;
  private files: ConfigFile[] = [];
  /** Each workspace file's approval hash (runs.ts), by path. */
  private hashes = new Map<string, string>();
  private readonly connections = new Map<string, McpConnection>();
  private readonly starting = new Map<McpConnection, Promise<void>>();
  private runnable = new Map<string, ServerConfig>();
  private blocked: ServerConfig[] = [];
  private problems: string[] = [];

  constructor(private readonly o: HubOptions) {
    this.approvals = new McpApprovals(o.dataFolder);
  }

  get root(): string {
    return this.o.root;
  }

  /** The configuration files this hub reads. */
  configFiles(): { file: string; scope: Scope }[] {
    if (this.o.configFile) return [{ file: path.resolve(this.o.configFile), scope: 'given' }];
    return [{ file: path.join(this.o.dataFolder, USER_FILE), scope: 'user' }, { file: path.join(this.o.root, WORKSPACE_FILE), scope: 'workspace' }];
  }

  /**
   * Reads the configuration again and connects every server that may run and is not connected
   * (a failed or dropped one is tried again); resolves when each has connected or failed. A server
   * whose entry changed is restarted; one no longer configured is stopped.
   */
  async start(): Promise<void> {
    const runnable = this.load();
    for (const [name, connection] of this.connections) {
      const wanted = runnable.get(name);
      if (!wanted || stableJson(wanted) !== stableJson(connection.config)) {
        this.connections.delete(name);
        await connection.stop();
      }
    }
    for (const [name, config] of runnable) {
      if (!this.connections.has(name)) {
        const prepare: PrepareLaunch = this.o.prepare ?? ((server, onProgress) => preparePackage(server, { dataFolder: this.o.dataFolder, cwd: this.o.root, onProgress, env: this.o.env }));
        this.connections.set(name, new McpConnection(config, {
          cwd: this.o.root, wrapLaunch: this.o.wrapLaunch, connectTimeoutMs: this.o.connectTimeoutMs, callTimeoutMs: this.o.callTimeoutMs,
          prepare: (server, onProgress) => prepare(server, (message) => {
            onProgress(message);
            this.o.onEvent?.({ type: 'preparing', server: server.name, message });
          }),
          onChange: (c) => this.o.onEvent?.({ type: 'changed', server: c.name }),
        }));
      }
    }
    await Promise.all([...this.connections.values()].filter((c) => c.state !== 'connected').map((c) => this.startOne(c)));
  }

  /** The configuration as it is now, nothing started: servers that may run but are not connected show as stopped. */
  configView(): HubView {
    this.load();
    return this.view();
  }

  /** Reads the files and the approvals: which servers may run, and which wait for an approval. */
  private load(): Map<string, ServerConfig> {
    this.files = this.configFiles().map((f) => this.read(f.file, f.scope));
    if (this.o.editor) this.files.push(editorConfig(this.o.editor.label, this.o.editor.entries, { env: this.o.env }));
    this.hashes = new Map(this.files.filter((f) => f.scope === 'workspace').map((f) => [f.file, approvalHash(f, this.o.root)]));
    this.problems = [];
    this.runnable = new Map();
    this.blocked = [];
    for (const file of this.files) {
      const approved = file.scope !== 'workspace' || this.approved(file);
      for (const server of file.servers) {
        const first = this.runnable.get(server.name) ?? this.blocked.find((b) => b.name === server.name);
        if (first) {
          this.problems.push(`The MCP server "${server.name}" in ${file.file} is left out: ${first.file} already names a server so, and the person's own file comes first.`);
        } else if (approved) this.runnable.set(server.name, server);
        else this.blocked.push(server);
      }
    }
    return this.runnable;
  }

  /** A file as the hub reads it: a workspace's inside the workspace, with the variables the person allowed per entry. */
  private read(file: string, scope: Scope): ConfigFile {
    const allowed = (server: string) => {
      try {
        return this.approvals.allowedEnv(file, server);
      } catch {
        return new Set<string>();
      }
    };
    return readConfigFile(file, scope, { env: this.o.env, allowed, within: scope === 'workspace' ? this.o.root : undefined });
  }

  /** The workspace file as it is now, and the hash approving it approves (its own and the files it runs). */
  workspaceFile(): { file: ConfigFile; hash: string; runs: string[] } {
    const file = this.read(path.join(this.o.root, WORKSPACE_FILE), 'workspace');
    return { file, hash: approvalHash(file, this.o.root), runs: filesRun(file, this.o.root) };
  }

  /** Connects one server again (the Servers panel's restart). */
  async restart(name: string): Promise<void> {
    const connection = this.connections.get(name);
    if (!connection) throw new Error(`There is no MCP server "${name}" running for ${this.o.root}${this.blocked.some((b) => b.name === name) ? ' (its file is not approved)' : ''}.`);
    await connection.stop();
    await this.startOne(connection);
  }

  /**
   * Approves the workspace file's servers as the person saw them (`hash`), then starts them. A
   * file that changed since is refused: the person approves what they read, nothing else.
   */
  async approveWorkspaceFile(hash: string): Promise<void> {
    const { file, hash: now } = this.workspaceFile();
    if (!file.exists) throw new Error(`There is no ${file.file} to approve.`);
    if (file.broken) throw new Error(`${file.file} cannot be approved: ${file.problems.join(' ')}`);
    if (now !== hash) throw new Error(`${file.file} or a file it runs changed since it was shown (it is now sha ${now.slice(0, 8)}); look at it again before approving.`);
    this.approvals.approve(file.file, hash);
    await this.start();
  }

  setTrusted(name: string, trusted: boolean): void {
    const connection = this.connections.get(name);
    const config = connection?.config ?? this.blocked.find((b) => b.name === name);
    if (!config) throw new Error(`There is no MCP server "${name}" configured for ${this.o.root}.`);
    this.approvals.setTrusted(config, trusted);
    this.o.onEvent?.({ type: 'changed', server: name });
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.stop()));
    this.connections.clear();
  }

  /** The connection of a server, if it may run (tests kill its process). */
  connection(name: string): McpConnection | undefined {
    return this.connections.get(name);
  }

  specs(): ToolSpec[] {
    return [...this.connections.values()].filter((c) => c.state === 'connected').flatMap((c) => c.specs());
  }

  instructions(sessionTools?: readonly ToolSpec[]): ServerInstructions[] {
    // A server the session has no tool of (it connected after the session began) is not the
    // model's business: its instructions would name tools it cannot call.
    const has = sessionTools && new Set(sessionTools.map((t) => parseExternalName(t.name)?.server));
    return [...this.connections.values()]
      .filter((c) => c.state === 'connected' && c.instructions && (!has || has.has(c.name)))
      .map((c) => ({ server: c.name, text: c.instructions! }));
  }

  describe(name: string): ExternalToolInfo | RawOutput {
    const parsed = parseExternalName(name);
    const server = parsed?.server ?? name;
    const connection = this.connections.get(server);
    if (!connection) {
      const why = this.blocked.some((b) => b.name === server) ? 'its workspace file is not approved' : 'it is no longer configured';
      return unavailable(name, server, why);
    }
    if (connection.state !== 'connected') return unavailable(name, server, connection.state);
    const tool = connection.tools.find((t) => t.name === name);
    if (!tool) return notListed(name, server);
    return { server, tool: tool.tool, readOnly: tool.readOnly, trusted: this.trusts(connection.config) };
  }

  async call(name: string, args: Record<string, unknown>, o: { sessionId: number; signal?: AbortSignal }): Promise<RawOutput> {
    const server = parseExternalName(name)?.server ?? name;
    const connection = this.connections.get(server);
    if (!connection) return unavailable(name, server, 'it is no longer configured');
    return connection.call(name, args, {
      signal: o.signal,
      onProgress: (p) => this.o.onEvent?.({ type: 'progress', sessionId: o.sessionId, name, ...p }),
    });
  }

  /** Tools the servers list now that a session's list lacks or lists otherwise: they join the next session. */
  waiting(sessionTools: readonly ToolSpec[]): { name: string; change: 'new' | 'changed' }[] {
    const kept = new Map(sessionTools.map((t) => [t.name, stableJson(t)]));
    return this.specs().flatMap((spec): { name: string; change: 'new' | 'changed' }[] => {
      const before = kept.get(spec.name);
      if (before === undefined) return [{ name: spec.name, change: 'new' }];
      return before === stableJson(spec) ? [] : [{ name: spec.name, change: 'changed' }];
    });
  }

  view(): HubView {
    const files = this.files.map((f): FileView => ({
      file: f.file, scope: f.scope, exists: f.exists, hash: this.hashes.get(f.file) ?? f.hash, servers: f.servers.map((s) => s.name),
      needsApproval: f.scope === 'workspace' && !f.broken && f.servers.length > 0 && !this.approved(f),
      broken: f.broken, runs: f.scope === 'workspace' ? filesRun(f, this.o.root) : [],
      problems: [...f.problems, ...this.problems.filter((p) => p.includes(` in ${f.file} `))],
    }));
    const servers = [
      ...[...this.runnable.values()].map((config) => {
        const c = this.connections.get(config.name);
        if (!c || stableJson(c.config) !== stableJson(config)) return serverView(config, this.o.dataFolder, { state: 'stopped', tools: [], leftOut: [], trusted: this.trusts(config) });
        return serverView(c.config, this.o.dataFolder, {
          state: c.state, via: c.via, lastError: c.lastError, instructions: c.instructions, tools: c.tools, leftOut: c.leftOut, preparing: c.preparing,
          trusted: this.trusts(c.config),
        });
      }),
      ...this.blocked.map((b) => serverView(b, this.o.dataFolder, { state: 'not approved', tools: [], leftOut: [], trusted: this.trusts(b) })),
    ];
    return { files, servers: servers.sort((a, b) => (a.name < b.name ? -1 : 1)) };
  }

  private startOne(connection: McpConnection): Promise<void> {
    let running = this.starting.get(connection);
    if (!running) {
      running = connection.start().finally(() => this.starting.delete(connection));
      this.starting.set(connection, running);
    }
    return running;
  }

  private approved(file: ConfigFile): boolean {
    if (file.broken) return false;
    try {
      return this.approvals.isApproved(file.file, this.hashes.get(file.file) ?? approvalHash(file, this.o.root));
    } catch (err) {
      this.problems.push(`${(err as Error).message} The servers in ${file.file} are not started.`);
      return false;
    }
  }

  private trusts(config: ServerConfig): boolean {
    try {
      return this.approvals.trusts(config);
    } catch {
      return false;
    }
  }
}

function serverView(config: ServerConfig, dataFolder: string, state: Omit<ServerView, 'name' | 'scope' | 'file' | 'launch' | 'receives'>): ServerView {
  // As written, nothing filled in: a variable's value (a token) is never shown, only masked in `receives`.
  const t = config.entry ?? config.transport;
  // What the person approves or trusts includes what its sandbox lets it do beyond reading.
  const launch = t.type === 'stdio' ? `${[t.command, ...t.args].join(' ')}${describeSandbox(t.sandbox)}` : `${t.url} (${t.type === 'sse' ? 'HTTP+SSE' : 'Streamable HTTP'})`;
  const pkg = packageLaunch(config.transport);
  return {
    name: config.name, scope: config.scope, file: config.file, launch, receives: config.receives ?? [], ...state,
    ...(pkg && !isRefused(pkg) ? { fetches: describeFetch(pkg) } : {}),
    ...(t.type === 'stdio' ? { dataFolder: serverDataFolder(dataFolder, config) } : {}),
    ...(isRefused(pkg) && state.state !== 'connected' ? { lastError: state.lastError ?? refusal(config.name, pkg) } : {}),
    ...(config.missing && state.state !== 'connected' ? { lastError: state.lastError ?? `It cannot start: ${config.missing}.` } : {}),
    tools: state.tools.map((t) => ({ name: t.name, tool: t.tool, description: t.description, readOnly: t.readOnly })),
  };
}
