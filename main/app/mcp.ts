import fs from 'node:fs';
import path from 'node:path';
import type { EditorServer, KeelEvent, McpServersView } from '../contract.js';
import type { ToolSpec } from '../core/tools/types.js';
import type { WrapLaunch } from '../mcp/connection.js';
import { McpHub } from '../mcp/hub.js';

export interface McpServiceOptions {
  dataFolder: string;
  emit: (event: KeelEvent) => void;
  /** Runs each stdio server inside the OS sandbox (main/sandbox); default: as configured. */
  wrapLaunch?: WrapLaunch;
  connectTimeoutMs?: number;
}

/**
 * The app's MCP servers: one hub per workspace, shared by that workspace's sessions. A session
 * is created only once its workspace's servers have connected or failed, so its tool list holds
 * what they listed (spec §10.4); what changes later is pushed as `mcp-changed` for the Servers panel.
 */
export class McpService {
  private readonly hubs = new Map<string, { hub: McpHub; started?: Promise<void> }>();

  constructor(private readonly o: McpServiceOptions) {}

  /**
   * The workspace's hub with its servers connected (or failed): what a session starting now gets.
   * With an editor's servers (ACP), a hub of its own: the workspace's servers and the editor's.
   */
  async ready(workspace: string, editor?: readonly EditorServer[]): Promise<McpHub> {
    const entry = this.entry(workspace, editor);
    entry.started = entry.hub.start();
    await entry.started;
    return entry.hub;
  }

  /**
   * The workspace's servers as they stand. The first look starts them without waiting (the panel
   * shows them connecting, and `mcp-changed` follows each change). With a session's tool list,
   * each server says which of its tools wait for the next session.
   */
  servers(workspace: string, sessionTools?: readonly ToolSpec[]): McpServersView {
    const entry = this.entry(workspace);
    entry.started ??= entry.hub.start();
    const view = entry.hub.view();
    const waiting = sessionTools ? entry.hub.waiting(sessionTools) : undefined;
    return {
      workspace: entry.hub.root,
      files: view.files,
      servers: view.servers.map((s) => (waiting ? { ...s, waiting: waiting.filter((w) => s.tools.some((t) => t.name === w.name)) } : s)),
    };
  }

  async approve(workspace: string, hash: string): Promise<void> {
    await this.entry(workspace).hub.approveWorkspaceFile(hash);
    this.changed(workspace);
  }

  async restart(workspace: string, name: string): Promise<void> {
    await this.entry(workspace).hub.restart(name);
  }

  trust(workspace: string, name: string, trusted: boolean): void {
    this.entry(workspace).hub.setTrusted(name, trusted);
  }

  async close(): Promise<void> {
    for (const { hub } of this.hubs.values()) await hub.close();
    this.hubs.clear();
  }

  private entry(workspace: string, editor?: readonly EditorServer[]) {
    const root = resolveFolder(workspace);
    const entries = editor?.length ? editorEntries(editor) : undefined;
    const key = entries ? `${root}\0${JSON.stringify(entries)}` : root;
    let entry = this.hubs.get(key);
    if (!entry) {
      entry = {
        hub: new McpHub({
          root, dataFolder: this.o.dataFolder, wrapLaunch: this.o.wrapLaunch, connectTimeoutMs: this.o.connectTimeoutMs,
          ...(entries ? { editor: { label: EDITOR_LABEL, entries } } : {}),
          onEvent: (e) => {
            // A package being fetched shows in the view (`preparing`), as any other change.
            if (e.type === 'changed' || e.type === 'preparing') this.changed(root);
            else this.o.emit({ type: 'mcp-progress', sessionId: e.sessionId, tool: e.name, progress: e.progress, total: e.total, message: e.message });
          },
        }),
      };
      this.hubs.set(key, entry);
    }
    return entry;
  }

  private changed(root: string): void {
    this.o.emit({ type: 'mcp-changed', workspace: root });
  }
}

/** Where the editor's servers come from, as views and problems name it. */
const EDITOR_LABEL = "the editor's MCP servers (ACP)";

/** An editor's servers as `.mcp.json` entries (environment as an object). */
function editorEntries(servers: readonly EditorServer[]): Record<string, unknown> {
  return Object.fromEntries(servers.map((s) => [s.name, { command: s.command, args: s.args, env: Object.fromEntries(s.env.map((e) => [e.name, e.value])) }]));
}

/** A workspace folder as sessions store it (resolved), refused with its path when it is not one. */
export function resolveFolder(workspace: string): string {
  let root: string;
  try {
    root = fs.realpathSync.native(path.resolve(workspace));
  } catch {
    throw new Error(`The workspace ${path.resolve(workspace)} does not exist.`);
  }
  if (!fs.statSync(root).isDirectory()) throw new Error(`The workspace ${root} is not a folder.`);
  return root;
}
