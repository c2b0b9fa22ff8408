import fs from 'node:fs';
import path from 'node:path';
import type { AgentLoop, LoopEvent, Script } from '../../core/turn/loop.js';
import type { ChildHost } from '../../core/turn/subagents.js';
import type { SessionDeps } from '../../core/state/deps.js';
import { hostSubagents } from '../../subagentHost.js';
import { Session } from '../../core/session/session.js';
import type { Mode, SessionKind, SessionRow } from '../../core/state/types.js';
import { lockSession, SessionBusy, type SessionLock } from '../../db/sessionLock.js';
import type { SqliteStore } from '../../db/store.js';
import { keelHome, stateFile } from '../../keelHome.js';
import type { LoadedModel } from '../../llm/model.js';
import { defaultStateBudget } from '../../llm/stateFiles.js';
import type { McpHub } from '../../mcp/hub.js';
import type { Shells } from '../../core/tools/shells.js';
import { parseExternalName } from '../../core/tools/external.js';
import { hookFailure } from '../../core/hooks/run.js';
import { readSettings } from '../../app/settings.js';
import { connectEngine, engineRefId, openAgent, openEngine, parseEngineRef, type EngineRef, type EngineSource } from '../../openEngine.js';
import { baseUrl } from '../../remote/http.js';
import { CliError, requireFolder, requireSession, type Io } from '../io.js';
import { cliSessionDeps, sandboxNotice, type Approvals } from './deps.js';
import { connectServers } from './mcp.js';
import { modelFile, openModel, type ModelFlags } from './model.js';
import { serverKey, type ServerFlags } from './server.js';

export type { Approvals } from './deps.js';

export interface AgentFlags extends ModelFlags, ServerFlags {
  /** The most tokens one model reply may have. */
  maxTokens?: number;
  /** Scripted replies (tests drive the real engine with them, as the app's scriptFor does). */
  script?: Script;
  /** The most requests one turn may make (`keel run --max-turns`; default loop.json max_steps). */
  maxSteps?: number;
  /** The most seconds of re-reading a cache break Keel takes on its own may cost (`keel run --max-seconds`). */
  maxBreakSeconds?: number;
}

/** A session with its model loaded and an agent on it. `close()` saves its cache and frees the model. */
/** What a loop event tells the person on standard error: a notice, and each hook that failed with its output. */
export function noticesOf(e: LoopEvent): string[] {
  if (e.type === 'notice') return [e.text];
  if (e.type === 'hook') return e.runs.map(hookFailure).filter((m): m is string => m !== undefined);
  return [];
}

export class Conversation {
  readonly agent: AgentLoop;
  /** Where the agent's events go; set by whoever shows the conversation. */
  onEvent: (event: LoopEvent) => void = () => {};
  /** Where its subagents' states and events go (`keel run --json`). */
  onChild: NonNullable<ChildHost['onChild']> = () => {};

  constructor(
    readonly store: SqliteStore, readonly session: Session, private readonly target: Target, flags: AgentFlags,
    readonly approvals: Approvals,
    /** This process's background shells (the session's deps'): the session's end when the conversation closes. */
    readonly shells: Shells | undefined,
    private readonly servers?: McpHub,
    /** This process drives the session while the conversation is open (db/sessionLock.ts). */
    private readonly lock: SessionLock = lockSession(store.file, session.id, `keel ${process.argv[2] ?? 'chat'}`),
  ) {
    this.agent = openAgent({
      session, store, engine: openEngine(target.source), stateFile: stateFile(session.id),
      maxReplyTokens: flags.maxTokens, maxSteps: flags.maxSteps, maxBreakSeconds: flags.maxBreakSeconds, script: flags.script, onEvent: (e) => this.onEvent(e),
    });
  }

  /** What the session runs on, as `keel run --json` announces it. */
  get engine(): { model: string; kind: 'local' | 'server' } {
    return { model: this.target.id, kind: this.target.ref.kind };
  }

  /**
   * An MCP tool of the session's list as its server names it (the list's `mcp__s__look_around` may be
   * the server's `look.around`); from the name alone where its server is not connected now.
   */
  mcpTool(name: string): { server: string; tool: string } | undefined {
    const info = this.servers?.describe(name);
    return info && 'server' in info ? { server: info.server, tool: info.tool } : parseExternalName(name);
  }

  /**
   * Ends the session's background shells: none outlives the command that started them (the
   * process's exit handler would kill them too, but without a word and without their last status).
   */
  async endShells(): Promise<void> {
    await this.shells?.endSession(this.session.id, 'Keel quit');
  }

  /** Ends the session's background shells, saves its cache (at quit: never on the path of a message), then frees the model. */
  async close(): Promise<void> {
    try {
      await this.endShells();
      await this.agent.saveState();
    } finally {
      await this.agent.dispose();
      await this.target.loaded?.dispose();
      await this.servers?.close();
      this.lock.release();
    }
  }
}

/** What a conversation runs on: the reference (what the session records), opened. */
interface Target {
  ref: EngineRef;
  /** What the session records as its model. */
  id: string;
  source: EngineSource;
  /** The model this conversation loaded (and frees at close). */
  loaded?: LoadedModel;
}

/**
 * The command line's edge: `--server URL --model NAME` is the server's model, else `--model FILE.gguf`
 * (the local engine flags beside it); a session's stored model is read as it was recorded.
 */
function refOf(model: string, flags: AgentFlags, note = ''): EngineRef {
  if (flags.server !== undefined) return { kind: 'server', url: baseUrl(flags.server), model };
  return { kind: 'local', file: modelFile(model, note), settings: localFlags(flags) };
}

/** The local engine's settings the flags give (the shorthands over `local` included). */
function localFlags(flags: ModelFlags): NonNullable<ModelFlags['local']> {
  return {
    ...flags.local,
    ...(flags.threads !== undefined && { threads: flags.threads }),
    ...(flags.contextSize !== undefined && { contextSize: flags.contextSize }),
    ...(flags.gpu !== undefined && { backend: flags.gpu ? 'auto' : 'cpu' }),
  };
}

/** Opens the reference: a model loaded with a progress bar, or a server checked with the CLI's key. */
async function openTarget(ref: EngineRef, flags: AgentFlags, io: Io): Promise<Target> {
  let loaded: LoadedModel | undefined;
  const source = await connectEngine(ref, {
    apiKey: () => serverKey(flags.keyFile),
    notice: (text) => io.err.write(`keel: ${text}\n`),
    loadModel: async (local) => (loaded = await openModel(local.file, { local: local.settings }, io.err)),
    stateBudget: readSettings(keelHome()).stateBudgetBytes ?? defaultStateBudget(keelHome()),
  });
  return { ref, id: engineRefId(ref), source, loaded };
}

export interface NewOptions extends AgentFlags {
  workspace: string;
  model: string;
  kind: SessionKind;
  mode: Mode;
  title?: string;
}

/** `keel new`: checks the workspace and model, loads the model, then creates the session. */
export async function newConversation(store: SqliteStore, o: NewOptions, io: Io): Promise<Conversation> {
  const root = path.resolve(o.workspace);
  requireFolder(o.workspace, root);
  const target = await openTarget(refOf(o.model, o), o, io);
  const approvals: Approvals = {};
  // The session's tool list takes what the workspace's MCP servers list now: they are connected first.
  const servers = await connectServers(fs.realpathSync(root), io);
  const deps = cliSessionDeps(store, approvals, servers);
  await sandboxNotice(deps, io.err);
  const session = Session.create(deps, { root, kind: o.kind, mode: o.mode, title: o.title, model: target.id });
  servers.watch(session.tools);
  io.out.write(`Created session ${session.id} (${session.kind}, mode ${session.mode}) in ${session.root}${o.server === undefined ? '' : ` on ${target.id}`}.\n`);
  return hostChildren(deps, target, o, new Conversation(store, session, target, o, approvals, deps.shells, servers));
}

/**
 * `keel chat ID` and `keel say ID`: loads the session's model (or `model`: the session moves to it
 * and its next request reads everything again), and the KV state saved for it when it is usable.
 */
export async function resumeConversation(store: SqliteStore, id: number, model: string | undefined, flags: AgentFlags, io: Io): Promise<Conversation> {
  const row = requireSession(store, id);
  // Refused before a model is loaded when another process drives the session.
  const lock = takeSession(store, id);
  try {
    return await resume(store, row, lock, model, flags, io);
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** The lock on a session, or the CliError naming who holds it. */
function takeSession(store: SqliteStore, id: number): SessionLock {
  try {
    return lockSession(store.file, id, `keel ${process.argv[2] ?? 'chat'}`);
  } catch (e) {
    if (e instanceof SessionBusy) throw new CliError(e.message);
    throw e;
  }
}

async function resume(store: SqliteStore, row: SessionRow, lock: SessionLock, model: string | undefined, flags: AgentFlags, io: Io): Promise<Conversation> {
  const id = row.id;
  let ref: EngineRef;
  if (model !== undefined) ref = refOf(model, flags);
  else if (flags.server !== undefined) throw new CliError(`--server needs --model NAME: the server's model to move session ${id} to.`);
  else if (row.model === '') throw new CliError(`Session ${id} has no model yet: give one with --model FILE.gguf.`);
  else ref = storedRef(row.model, flags, ` (session ${id}'s model; give another with --model FILE.gguf)`);
  const target = await openTarget(ref, flags, io);
  const approvals: Approvals = {};
  const servers = fs.existsSync(row.root) ? await connectServers(row.root, io) : undefined;
  const deps = cliSessionDeps(store, approvals, servers);
  await sandboxNotice(deps, io.err);
  const session = Session.open(deps, id);
  servers?.watch(session.tools);
  const conversation = hostChildren(deps, target, flags, new Conversation(store, session, target, flags, approvals, deps.shells, servers, lock));
  conversation.onEvent = (e) => {
    for (const line of noticesOf(e)) io.err.write(`${line}\n`);
  };
  try {
    if (target.id !== row.model) {
      await conversation.agent.switchEngine(openEngine(target.source));
      if (row.model !== '') io.err.write(`Session ${id} moved from ${row.model} to ${target.id}: its next request reads everything again.\n`);
    } else if (await conversation.agent.restoreState()) {
      io.err.write(`Session ${id} resumed with its saved cache.\n`);
    }
  } catch (e) {
    await conversation.close();
    throw e;
  }
  return conversation;
}

/**
 * The conversation's subagents run in this process on the model it loaded, each on a sequence (or
 * server slot) of its own; the flags' script, where there is one, gives their replies too.
 */
function hostChildren(deps: SessionDeps, target: Target, flags: AgentFlags, conversation: Conversation): Conversation {
  hostSubagents(deps, {
    engine: async () => openEngine(target.source), script: () => flags.script,
    onChild: (parentId, childId, change) => conversation.onChild(parentId, childId, change),
  });
  return conversation;
}

/** A session's recorded model as its reference; a model file is checked as `--model` would be, and this command's flags apply. */
function storedRef(recorded: string, flags: AgentFlags, note: string): EngineRef {
  let ref: EngineRef;
  try {
    ref = parseEngineRef(recorded);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  return ref.kind === 'local' ? refOf(ref.file, flags, note) : ref;
}
