import type {
  ApprovalAnswer, ApprovalView, AppState, ContextView, DoctorReport, KeelApi, KeelEvent, LocalSettings, LocalSettingsText, McpServersView, ModelFile, RecallView, SessionSummary, SettingView,
} from '../contract.js';
import { lockSession } from '../db/sessionLock.js';
import type { ActionToPrice, ChangesView, FilesPutBack, PriceView, RewindPlanView } from '../contract.js';
import { changesView, revertShownHunk, rewindPlanView } from './changes.js';
import { Session, type SessionDeps } from '../core/session/session.js';
import type { Script } from '../core/turn/loop.js';
import type { Mode, RequestRow, SessionKind } from '../core/state/types.js';
import type { CommandRunner } from '../core/tools/commandRunner.js';
import type { SqliteStore } from '../db/store.js';
import { connectServer, listModels } from '../remote/connect.js';
import { engineRefId } from '../openEngine.js';
import { buildSessionDeps, type DepsOptions } from './sessionDeps.js';
import { baseUrl } from '../remote/http.js';
import { ServerKeys, type SecretBox } from './serverKeys.js';
import { AgentPool } from './agentPool.js';
import { ApprovalBroker } from './approvals.js';
import { ModelCatalog } from './catalog.js';
import { SessionHistory } from './history.js';
import { McpService, resolveFolder } from './mcp.js';
import { approveHooksFile, hooksView } from './hooksView.js';
import type { HooksView } from '../contract.js';
import type { WrapLaunch } from '../mcp/connection.js';
import { sandboxedLaunch } from '../mcp/sandboxed.js';
import { recallView } from './recallView.js';
import { shellOutputView, shellsView, stopShell } from './shellsView.js';
import type { ShellOutputView, ShellSummary } from '../contract.js';
import { parseAskAboveSeconds, sandboxOptions, settingViews } from './settings.js';
import { pricedAction, priceView } from './price.js';
import { sandboxView, sessionView, summaryOf } from './views.js';
import { hostSubagents } from '../subagentHost.js';
import { commandLabel, expandTyped, listCommands } from '../core/prompts/slashCommands.js';
import { commandGrant, commandNotes } from './commandGrants.js';
import type { EditorServer, ProjectFilesView, SlashCommandView } from '../contract.js';
import { projectFiles } from './projectFiles.js';

export interface ServiceOptions {
  store: SqliteStore;
  dataFolder: string;
  promptsDir: string;
  emit: (event: KeelEvent) => void;
  threads?: number;
  contextSize?: number;
  /** Scripted replies per session (tests and benchmarks drive the real engine with them). */
  scriptFor?: (sessionId: number) => Script | undefined;
  now?: () => Date;
  /** The desktop app's native folder dialog (Electron's); browser mode has none. */
  pickFolder?: () => Promise<string | undefined>;
  /** How long a session waits idle before its cache is saved (default: loop.json). */
  idleSaveMs?: number;
  /** Encrypts server API keys (the desktop app's safeStorage); without it keys stay in memory. */
  secretBox?: SecretBox;
  /** Runs bash's commands (default: the OS sandbox with the person's settings). */
  commands?: CommandRunner;
  /** Launches each stdio MCP server (default: inside the OS sandbox, as commands, main/mcp/sandboxed.ts). */
  wrapLaunch?: WrapLaunch;
  /** An editor's buffers, by session, for the file tools (keel acp); default: the disk. */
  files?: DepsOptions['files'];
}

/**
 * Everything the UI can ask, on the real store, tools and engine. The IPC binder and the loopback
 * server both bind this one object, so the two transports cannot drift apart. Each job lives in its
 * own piece: approvals (approvals.ts), models (catalog.ts), open sessions and their work
 * (agentPool.ts), the recall inspector (recallView.ts); this class only routes.
 */
export class KeelService implements KeelApi {
  private readonly approvals: ApprovalBroker;
  private readonly catalog: ModelCatalog;
  private readonly pool: AgentPool;
  private readonly history: SessionHistory;
  private readonly mcp: McpService;
  /** The servers an editor passed for a session (ACP), in this process: its hub is the workspace's and theirs. */
  private readonly editorServers = new Map<number, EditorServer[]>();
  private readonly deps: SessionDeps;
  private sessionsStamp: string;

  private readonly serverKeys: ServerKeys;
  private readonly unwatchShells?: () => void;

  constructor(private readonly o: ServiceOptions) {
    this.approvals = new ApprovalBroker(o.emit);
    this.catalog = new ModelCatalog({ dataFolder: o.dataFolder, emit: o.emit, threads: o.threads, contextSize: o.contextSize });
    this.deps = buildSessionDeps({
      store: o.store, dataFolder: o.dataFolder, promptsDir: o.promptsDir, now: o.now, commands: o.commands, files: o.files, approve: this.approvals.approve,
    });
    this.mcp = new McpService({ dataFolder: o.dataFolder, emit: o.emit, wrapLaunch: o.wrapLaunch ?? sandboxedLaunch(sandboxOptions(o.dataFolder)) });
    this.serverKeys = new ServerKeys(o.dataFolder, o.secretBox);
    this.pool = new AgentPool({ deps: this.deps, catalog: this.catalog, dataFolder: o.dataFolder, emit: o.emit, scriptFor: o.scriptFor, idleSaveMs: o.idleSaveMs,
      serverKey: (url) => this.serverKeys.get(url), marks: o.store, lock: (id) => lockSession(o.store.file, id, 'the Keel app'),
      // A workspace that is gone has no servers; the session still opens (its MCP tools answer unavailable).
      external: (row) => this.mcp.ready(row.root, this.editorServers.get(row.id)).catch(() => undefined),
    });
    hostSubagents(this.deps, {
      engine: (child) => this.pool.childEngine(child), script: o.scriptFor,
      onChild: (parentId, childId, change) => ('state' in change
        ? o.emit({ type: 'subagent', sessionId: parentId, childId, state: change.state })
        : this.pool.forward(childId, change.event)),
    });
    this.history = new SessionHistory({ store: o.store, emit: o.emit, pool: this.pool });
    this.sessionsStamp = o.store.sessionsStamp();
    this.unwatchShells = this.deps.shells?.onChange((shell) => o.emit({ type: 'shells-changed', sessionId: shell.sessionId }));
  }

  async getState(): Promise<AppState> {
    return {
      modelsFolder: this.catalog.settings.modelsFolder, lastModel: this.catalog.settings.lastModel, loadedModel: this.catalog.loadedModel,
      dataFolder: this.o.dataFolder, canPickFolder: this.o.pickFolder !== undefined, sandbox: await sandboxView(this.deps.commands), loadedSetups: this.catalog.machine.setups(),
      askAboveSeconds: this.catalog.settings.askAboveSeconds,
    };
  }

  async pickFolder(): Promise<string | undefined> {
    return this.o.pickFolder?.();
  }

  async listSessions(): Promise<SessionSummary[]> {
    // A subagent's session is reached from its parent's task call, not listed beside it.
    return this.o.store.listSessions().filter((row) => row.parentId === undefined).map((row) => summaryOf(row, this.o.store)).reverse();
  }

  async createSession(o: { workspace: string; kind: SessionKind; mode?: Mode; title?: string; mcpServers?: EditorServer[] }): Promise<SessionSummary> {
    const external = await this.mcp.ready(o.workspace, o.mcpServers);
    const session = Session.create({ ...this.deps, external }, { root: o.workspace, kind: o.kind, mode: o.mode, title: o.title, model: this.catalog.settings.lastModel ?? '' });
    if (o.mcpServers?.length) this.editorServers.set(session.id, o.mcpServers);
    return summaryOf(this.o.store.getSession(session.id)!, this.o.store);
  }

  async useEditorServers(id: number, servers: EditorServer[]): Promise<void> {
    this.pool.session(id);
    if (servers.length > 0) this.editorServers.set(id, servers);
    else this.editorServers.delete(id);
  }

  async openSession(id: number) {
    return sessionView(this.pool.session(id), this.o.store, this.pool.isRunning(id));
  }

  async deleteSession(id: number): Promise<void> {
    await this.history.deleteSession(id);
    await this.deps.shells?.endSession(id);
  }

  /**
   * A message that starts with a custom command's `/name` sends the command's prompt in its place,
   * and that prompt is what is stored and shown; a `/word` that is no command is refused, nothing sent.
   * The command's allowed-tools hold for the turn it starts, where they apply (commandGrants.ts).
   */
  async send(id: number, text: string): Promise<void> {
    const root = this.pool.session(id).root;
    const { prompt, command } = expandTyped(text, root);
    const allowed = command ? commandGrant(this.o.dataFolder, command, root).rules : [];
    await this.pool.run(id, (agent, signal) => agent.send(prompt, { signal, ...(allowed.length > 0 && { allowed }) }), { marksStop: true });
  }

  async slashCommands(workspace: string): Promise<SlashCommandView[]> {
    return listCommands(workspace).map((command) => {
      const { body: _body, ...shown } = command;
      const notes = command.problem === undefined ? commandNotes(commandGrant(this.o.dataFolder, command, workspace), command) : [];
      return { ...shown, label: commandLabel(command), ...(notes.length > 0 && { notes }) };
    });
  }

  /** Stops a running reply; an approval it waits for is denied. */
  async stop(id: number): Promise<void> {
    this.pool.stop(id);
    this.approvals.denyAll(id);
  }

  async undo(id: number, files = false): Promise<FilesPutBack | undefined> {
    return this.history.undo(id, files);
  }

  async rewind(id: number, seq: number, files = false): Promise<FilesPutBack | undefined> {
    return this.history.rewind(id, seq, files);
  }

  async editAndResend(id: number, seq: number, text: string, files = false): Promise<FilesPutBack | undefined> {
    return this.history.editAndResend(id, seq, text, files);
  }

  async deleteTurn(id: number, seq: number): Promise<void> {
    return this.history.deleteTurn(id, seq);
  }

  async regenerate(id: number): Promise<void> {
    await this.pool.run(id, (agent, signal) => agent.regenerate({ signal }), { marksStop: true });
  }

  async compact(id: number): Promise<void> {
    await this.pool.run(id, (agent, signal) => agent.compact(signal));
  }

  async setMode(id: number, mode: Mode): Promise<void> {
    this.pool.session(id).setMode(mode);
    this.o.emit({ type: 'session-changed', sessionId: id });
  }

  async recall(id: number, result: string, offset = 1): Promise<RecallView> {
    return recallView(this.pool.session(id), this.o.store, result, offset, this.pool.isRunning(id));
  }

  async requests(id: number): Promise<RequestRow[]> {
    return this.o.store.listRequests(id);
  }

  async context(id: number): Promise<ContextView> {
    return this.pool.read(id, (agent) => agent.context());
  }

  /** What an action would make the next request re-read, read from the session's loop like `context` (price.ts). */
  async price(id: number, action: ActionToPrice): Promise<PriceView> {
    const price = await this.pool.read(id, (agent) => agent.priceOf(pricedAction(agent.session, action)));
    return priceView(price, this.catalog.settings.askAboveSeconds);
  }

  async setAskAboveSeconds(typed: string): Promise<number | undefined> {
    const askAboveSeconds = parseAskAboveSeconds(typed);
    this.catalog.remember({ askAboveSeconds });
    return askAboveSeconds;
  }

  async listModels(): Promise<ModelFile[]> {
    return this.catalog.list();
  }

  async setModelsFolder(folder: string): Promise<void> {
    this.catalog.setFolder(folder);
  }

  async loadModel(file: string): Promise<void> {
    await this.catalog.choose(file);
  }

  async downloadModel(uri?: string): Promise<string> {
    return this.catalog.download(uri);
  }

  async setPlan(id: number, items: { text: string; status?: 'todo' | 'doing' | 'done' }[]): Promise<void> {
    this.pool.session(id).setPlanByPerson(items.map((item) => ({ text: item.text, status: item.status ?? 'todo' })));
    this.o.emit({ type: 'session-changed', sessionId: id });
  }

  async switchModel(id: number, file: string): Promise<void> {
    await this.pool.switchModel(id, file);
    this.o.emit({ type: 'session-changed', sessionId: id });
  }

  async serverModels(url: string, key?: string): Promise<string[]> {
    const base = baseUrl(url);
    if (key !== undefined) this.serverKeys.set(base, key);
    return listModels({ url: base, apiKey: this.serverKeys.get(base) });
  }

  async useServerModel(url: string, model: string, sessionId?: number): Promise<string> {
    const base = baseUrl(url);
    // The server and the model are checked before anything remembers them.
    await connectServer({ url: base, model, apiKey: this.serverKeys.get(base) });
    const id = engineRefId({ kind: 'server', url: base, model });
    if (sessionId !== undefined) await this.switchModel(sessionId, id);
    else this.catalog.remember({ lastModel: id });
    return id;
  }

  async answerApproval(approvalId: number, answer: ApprovalAnswer, reason?: string): Promise<void> {
    this.approvals.answer(approvalId, answer, reason);
  }

  async pendingApprovals(): Promise<ApprovalView[]> {
    return this.approvals.pending();
  }

  async mcpServers(workspace: string, sessionId?: number): Promise<McpServersView> {
    return this.mcp.servers(workspace, sessionId === undefined ? undefined : this.pool.session(sessionId).tools);
  }

  async approveMcpFile(workspace: string, hash: string): Promise<void> {
    return this.mcp.approve(workspace, hash);
  }

  async restartMcpServer(workspace: string, name: string): Promise<void> {
    return this.mcp.restart(workspace, name);
  }

  async trustMcpServer(workspace: string, name: string, trusted: boolean): Promise<void> {
    return this.mcp.trust(workspace, name, trusted);
  }

  async hooks(workspace: string): Promise<HooksView> {
    return hooksView(this.o.dataFolder, workspace);
  }

  async approveHooksFile(workspace: string, hash: string): Promise<void> {
    approveHooksFile(this.o.dataFolder, workspace, hash);
  }

  async projectFiles(workspace: string): Promise<ProjectFilesView> {
    return projectFiles(this.o.dataFolder, resolveFolder(workspace));
  }

  // Checkpoints (changes.ts): the Changes tab, its reverts (only while the session is idle), a rewind's plan.
  async changes(id: number, since?: number): Promise<ChangesView> {
    return changesView(this.pool.session(id), since);
  }

  async revertFile(id: number, rel: string, since?: number): Promise<ChangesView> {
    this.pool.idle(id);
    const session = this.pool.session(id);
    session.history.revertFile(rel, since);
    return changesView(session, since);
  }

  async revertHunk(id: number, rel: string, hunk: number, shown: string, since?: number): Promise<ChangesView> {
    this.pool.idle(id);
    const session = this.pool.session(id);
    revertShownHunk(session, rel, hunk, shown, since);
    return changesView(session, since);
  }

  async rewindPlan(id: number, seq?: number): Promise<RewindPlanView> {
    return rewindPlanView(this.pool.session(id), seq);
  }

  // Background shells (shellsView.ts): the Processes tab.
  async shells(id: number): Promise<ShellSummary[]> {
    return shellsView(this.deps.shells, id);
  }

  async shellOutput(id: number, shellId: string): Promise<ShellOutputView> {
    return shellOutputView(this.deps.shells, id, shellId);
  }

  async stopShell(id: number, shellId: string): Promise<string> {
    return stopShell(this.deps.shells, id, shellId);
  }

  async settings(): Promise<SettingView[]> {
    return settingViews(this.catalog.settings);
  }

  async setSetting(name: string, typed?: string): Promise<SettingView[]> {
    this.catalog.set(name, typed);
    return settingViews(this.catalog.settings);
  }

  async localSettings(): Promise<LocalSettings> {
    return this.catalog.machine.settings();
  }

  /** New local engine settings: every session gives its sequence back, and the model loads again with them. */
  async setLocalSettings(settings: LocalSettingsText): Promise<LocalSettings> {
    return this.catalog.machine.apply(settings, async () => {
      await this.pool.closeAll();
      await this.catalog.reload();
    }, this.catalog.loadedModel);
  }

  async doctor(model?: string): Promise<DoctorReport> {
    return this.catalog.machine.doctor(model ?? this.catalog.defaultModel());
  }

  /**
   * Tells the UI when sessions were created or deleted outside it (by `keel` on the same store).
   * The app hosts call this every couple of seconds; it is one small query.
   */
  checkOutside(): void {
    const stamp = this.o.store.sessionsStamp();
    if (stamp === this.sessionsStamp) return;
    this.sessionsStamp = stamp;
    this.o.emit({ type: 'sessions-changed' });
  }

  async close(): Promise<void> {
    this.approvals.denyAll();
    await this.pool.dispose();
    // Nothing is shown once Keel quits: the shells end without an event each.
    this.unwatchShells?.();
    await this.deps.shells?.endAll();
    await this.catalog.dispose();
    await this.mcp.close();
  }
}
