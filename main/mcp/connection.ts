/**
 * One MCP server, on the official SDK: started (stdio) or reached (Streamable HTTP, else the older
 * HTTP+SSE), initialized, its tools listed, its calls made with progress and cancellation. Nothing
 * here throws at its caller: a server that fails says why in `lastError`, and a call answers an
 * error result.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Tool as SdkTool } from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../package.json' with { type: 'json' };
import { fill, mcpConfig } from '../core/config.js';
import { externalToolName, notListed, unavailable } from '../core/tools/external.js';
import type { RawOutput, ToolSpec } from '../core/tools/types.js';
import type { ServerConfig } from './config.js';
import { toRawOutput, type CallResult } from './results.js';

/**
 * Where the OS sandbox plugs in (sandboxed.ts): turns a stdio server's command line into the one
 * that runs it inside the sandbox of the workspace `root`, in the folder it will run in (`cwd`).
 * `server` is the whole entry, for a policy that depends on it (its `sandbox`: network, writes).
 * `release`, when given, is called once after that process has exited. A rejection fails the
 * start with its message. Without a hook servers run as given.
 */
export type WrapLaunch = (
  command: string, args: string[], server: ServerConfig & { cwd: string; root: string },
) => Promise<{ command: string; args: string[]; release?(): void; env?: Record<string, string>; writable?: string[] }>;

export type ServerState = 'stopped' | 'connecting' | 'connected' | 'failed' | 'disconnected';

/** A tool as this server lists it, with the name the session's list gives it. */
export interface ListedTool {
  /** `mcp__SERVER__TOOL`, the tool's name made safe for a model's call (characters other than letters, digits, `_`, `-` become `_`). */
  name: string;
  /** The name the server knows it by. */
  tool: string;
  description: string;
  inputSchema: object;
  readOnly: boolean;
}

/**
 * Makes a stdio entry ready to run before it starts (packages.ts: `npx -y PKG` fetched into Keel's
 * package cache): the entry to launch instead. `onProgress` tells the person what it is doing. A
 * rejection fails the start with its message, as it is (a sentence for the person).
 */
export type PrepareLaunch = (server: ServerConfig, onProgress: (message: string) => void) => Promise<ServerConfig['transport']>;

export interface ConnectionOptions {
  /** The folder a stdio server runs in unless its entry names one (the workspace root). */
  cwd: string;
  wrapLaunch?: WrapLaunch;
  prepare?: PrepareLaunch;
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
  /** The state, the tools or the last error changed. */
  onChange?: (connection: McpConnection) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

export class McpConnection {
  state: ServerState = 'stopped';
  lastError?: string;
  tools: ListedTool[] = [];
  /** Tools the server lists that the session cannot offer, each with the reason. */
  leftOut: string[] = [];
  instructions?: string;
  /** How the server was reached: 'stdio', 'streamable-http' or 'sse'. */
  via?: 'stdio' | 'streamable-http' | 'sse';
  /** The stdio server's process id while it runs. */
  pid?: number;
  /** While it is being prepared (its package fetched), what is happening, in words. */
  preparing?: string;
  private client?: Client;
  private attempt = 0;
  private stderr: string[] = [];
  /** Where the sandbox lets a stdio server write (its launch says), for the hint on a refused write. */
  private writable?: string[];

  constructor(readonly config: ServerConfig, private readonly o: ConnectionOptions) {}

  get name(): string {
    return this.config.name;
  }

  /** Connects and lists the tools; resolves once connected or failed (never rejects). */
  async start(): Promise<void> {
    const attempt = ++this.attempt;
    await this.closeClient();
    this.set({ state: 'connecting', lastError: undefined });
    const timeout = this.o.connectTimeoutMs ?? mcpConfig.connect_timeout_ms.value;
    if (this.config.missing) return this.set({ state: 'failed', lastError: `It was not started: ${this.config.missing}.` });
    let transport = this.config.transport;
    if (this.o.prepare && transport.type === 'stdio') {
      // Preparing (a package fetched once) is not connecting: it has its own time limit, not `timeout`.
      try {
        transport = await this.o.prepare(this.config, (message) => {
          if (attempt === this.attempt) this.set({ preparing: message });
        });
      } catch (err) {
        if (attempt === this.attempt) this.set({ state: 'failed', preparing: undefined, lastError: (err as Error).message });
        return;
      } finally {
        if (attempt === this.attempt) this.preparing = undefined;
      }
      if (attempt !== this.attempt) return;
    }
    try {
      const { client, via } = await this.connect(transport, timeout, attempt);
      if (attempt !== this.attempt) {
        await client.close().catch(() => {});
        return;
      }
      this.client = client;
      this.via = via;
      this.instructions = client.getInstructions()?.trim() || undefined;
      this.acceptTools(await withTimeout(listAll(client), timeout, 'tools/list'));
      // What went wrong on the way (a Streamable HTTP attempt before the SSE fallback) is over.
      this.set({ state: 'connected', lastError: undefined });
    } catch (err) {
      if (attempt !== this.attempt) return;
      await this.closeClient();
      this.set({ state: 'failed', lastError: this.explain(err) });
    }
  }

  async stop(): Promise<void> {
    this.attempt++;
    await this.closeClient();
    this.set({ state: 'stopped' });
  }

  /** An error that a sandbox's refused write caused says where the server may write, and how the person lets it write more. */
  private withSandboxHint(out: RawOutput): RawOutput {
    if (out.kind !== 'error' || !this.writable || !/\bEROFS\b|read-only file system/i.test(out.message)) return out;
    return { ...out, message: `${out.message}\n${fill(mcpConfig.texts.sandbox_write, { server: this.name, folders: this.writable.join(', ') })}` };
  }

  /** Calls a tool by its session name. Failures, stops and timeouts come back as error results. */
  async call(name: string, args: Record<string, unknown>, o: CallOptions = {}): Promise<RawOutput> {
    const client = this.client;
    if (!client || this.state !== 'connected') return unavailable(name, this.name, this.state);
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) return notListed(name, this.name);
    const failed = (message: string): RawOutput => this.withSandboxHint({ kind: 'error', message: fill(mcpConfig.texts.failed, { name, server: this.name, message }) });
    try {
      const result = await client.callTool({ name: tool.tool, arguments: args }, undefined, {
        signal: o.signal,
        timeout: this.o.callTimeoutMs ?? mcpConfig.call_timeout_ms.value,
        resetTimeoutOnProgress: true,
        onprogress: (p) => o.onProgress?.({ progress: p.progress, total: p.total, message: p.message }),
      });
      return this.withSandboxHint(toRawOutput(name, result as CallResult));
    } catch (err) {
      if (o.signal?.aborted) return { kind: 'error', message: fill(mcpConfig.texts.stopped, { name, server: this.name }) };
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return failed('the server closed the connection before it answered');
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) return failed('no answer and no progress in time');
      if (err instanceof McpError) return failed(err.message.replace(/^MCP error -?\d+: /, ''));
      return failed(`its answer could not be read (${firstLine(err)})`);
    }
  }

  /** The tools as a session's list takes them. */
  specs(): ToolSpec[] {
    return this.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));
  }

  private async connect(t: ServerConfig['transport'], timeout: number, attempt: number): Promise<{ client: Client; via: NonNullable<McpConnection['via']> }> {
    if (t.type === 'stdio') return { client: await this.open(await this.stdio(t), timeout, attempt), via: 'stdio' };
    const url = new URL(t.url);
    const requestInit = { headers: t.headers };
    if (t.type === 'sse') return { client: await this.open(new SSEClientTransport(url, { requestInit }), timeout, attempt), via: 'sse' };
    try {
      return { client: await this.open(new StreamableHTTPClientTransport(url, { requestInit }), timeout, attempt), via: 'streamable-http' };
    } catch (streamable) {
      if (attempt !== this.attempt || isTimeout(streamable)) throw streamable;
      // An older server speaks HTTP+SSE only: the 2025-03-26 spec's way to tell is to try it.
      try {
        return { client: await this.open(new SSEClientTransport(url, { requestInit }), timeout, attempt), via: 'sse' };
      } catch (sse) {
        throw new Error(`Streamable HTTP: ${firstLine(streamable)}; HTTP+SSE: ${firstLine(sse)}`);
      }
    }
  }

  private async stdio(t: Extract<ServerConfig['transport'], { type: 'stdio' }>): Promise<SdkTransport> {
    const cwd = t.cwd === undefined ? this.o.cwd : path.resolve(this.o.cwd, t.cwd);
    const launch = this.o.wrapLaunch ? await this.o.wrapLaunch(t.command, t.args, { ...this.config, cwd, root: this.o.cwd }) : { command: t.command, args: t.args };
    // What the launch adds (the server's data folder as its XDG folders) under what the entry sets.
    const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: { ...launch.env, ...t.env }, cwd, stderr: 'pipe' });
    // The client chains its own handler after this one; the transport closes once the process has
    // exited (a stop, a kill, a failed start: the client closes it), so the sandbox is freed then.
    if (launch.release) transport.onclose = launch.release;
    this.writable = launch.writable;
    this.stderr = [];
    transport.stderr?.on('data', (chunk: Buffer) => {
      const keep = mcpConfig.stderr_lines.value;
      this.stderr = [...this.stderr, ...chunk.toString('utf8').split('\n').filter((l) => l.trim() !== '')].slice(-keep);
    });
    return transport;
  }

  /** A client connected over `transport`, with Keel's handlers; closed again if initialize fails. */
  private async open(transport: SdkTransport, timeout: number, attempt: number): Promise<Client> {
    const client = new Client({ name: 'keel', version: pkg.version }, { capabilities: {} });
    client.onerror = (err) => {
      if (attempt === this.attempt) this.set({ lastError: this.explain(err) });
    };
    client.onclose = () => {
      if (attempt !== this.attempt || this.client !== client) return;
      this.client = undefined;
      this.pid = undefined;
      this.set({ state: 'disconnected', lastError: this.explain(new Error('the connection closed')) });
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      try {
        this.acceptTools(await withTimeout(listAll(client), timeout, 'tools/list'));
        this.set({});
      } catch (err) {
        if (this.client === client) this.set({ lastError: `The tool list changed, but listing it again failed: ${firstLine(err)}` });
      }
    });
    try {
      await withTimeout(client.connect(transport, { timeout }), timeout, 'initialize');
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
    if (transport instanceof StdioClientTransport) this.pid = transport.pid ?? undefined;
    return client;
  }

  private acceptTools(listed: SdkTool[]): void {
    const tools: ListedTool[] = [];
    const leftOut: string[] = [];
    for (const t of listed) {
      const name = externalToolName(this.name, t.name.replace(/[^A-Za-z0-9_-]/g, '_'));
      if (tools.some((x) => x.name === name)) {
        leftOut.push(`${t.name}: its name is the same as another tool's once made safe for a model (${name})`);
        continue;
      }
      tools.push({ name, tool: t.name, description: t.description ?? '', inputSchema: t.inputSchema, readOnly: t.annotations?.readOnlyHint === true });
    }
    this.tools = tools;
    this.leftOut = leftOut;
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    await client?.close().catch(() => {});
  }

  private set(fields: Partial<Pick<McpConnection, 'state' | 'lastError' | 'preparing'>>): void {
    Object.assign(this, fields);
    this.o.onChange?.(this);
  }

  /** An error in words, with what a stdio server last wrote to stderr. */
  private explain(err: unknown): string {
    const words = isTimeout(err) ? `no answer in ${Math.round((this.o.connectTimeoutMs ?? mcpConfig.connect_timeout_ms.value) / 1000)} s (${firstLine(err)})` : firstLine(err);
    // As written: a filled-in variable (a token in an argument) never reaches an error text.
    const t = this.config.entry ?? this.config.transport;
    const where = t.type === 'stdio' ? `${t.command}${t.args.length ? ` ${t.args.join(' ')}` : ''}` : t.url;
    const stderr = this.stderr.length > 0 ? `\nIts last words on stderr:\n${this.stderr.join('\n')}` : '';
    return `${where}: ${words}${stderr}`;
  }
}

async function listAll(client: Client): Promise<SdkTool[]> {
  const tools: SdkTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

class TimeoutError extends Error {}

function isTimeout(err: unknown): boolean {
  return err instanceof TimeoutError || (err instanceof McpError && err.code === ErrorCode.RequestTimeout);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} timed out`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0];
}
