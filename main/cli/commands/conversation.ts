import fs from 'node:fs';
import path from 'node:path';
import type { Engine } from '../../core/engine/types.js';
import type { AgentLoop, LoopEvent, Script } from '../../core/session/loop.js';
import type { McpHub } from '../../mcp/hub.js';
import { connectServers } from './mcp.js';
import { Session } from '../../core/session/session.js';
import type { Mode, SessionKind } from '../../core/session/types.js';
import type { SqliteStore } from '../../db/store.js';
import { keelHome, stateFile } from '../../keelHome.js';
import type { LoadedModel } from '../../llm/model.js';
import { defaultStateBudget } from '../../llm/stateFiles.js';
import { readSettings } from '../../app/settings.js';
import { openAgent, openEngine } from '../../openEngine.js';
import { parseServerModelId, serverModelId } from '../../remote/connect.js';
import { CliError, requireFolder, requireSession, type Io } from '../io.js';
import { modelFile, openModel, type ModelFlags } from './model.js';
import { openServer, type ServerFlags } from './server.js';
import { sandboxNotice, sessionDeps, type Approvals } from './sessionDeps.js';

export type { Approvals } from './sessionDeps.js';

export interface AgentFlags extends ModelFlags, ServerFlags {
  /** The most tokens one model reply may have. */
  maxTokens?: number;
  /** Scripted replies (tests drive the real engine with them, as the app's scriptFor does). */
  script?: Script;
  /** The most requests one turn may make (`keel run --max-turns`; default loop.json max_steps). */
  maxSteps?: number;
}

/** A session with its model loaded and an agent on it. `close()` saves its cache and frees the model. */
export class Conversation {
  readonly agent: AgentLoop;
  /** Where the agent's events go; set by whoever shows the conversation. */
  onEvent: (event: LoopEvent) => void = () => {};

  constructor(
    readonly store: SqliteStore, readonly session: Session, private readonly target: Target, flags: AgentFlags,
    readonly approvals: Approvals, private readonly servers?: McpHub,
  ) {
    this.agent = openAgent({
      session, store, engine: target.engine(), stateFile: stateFile(session.id),
      maxReplyTokens: flags.maxTokens, maxSteps: flags.maxSteps, script: flags.script, onEvent: (e) => this.onEvent(e),
    });
  }

  /** What the session runs on, as `keel run --json` announces it. */
  get engine(): { model: string; kind: 'local' | 'server' } {
    return { model: this.target.id, kind: this.target.loaded ? 'local' : 'server' };
  }

  /** Saves the session's cache (at quit: never on the path of a message), then frees the model. */
  async close(): Promise<void> {
    try {
      await this.agent.saveState();
    } finally {
      await this.agent.dispose();
      await this.target.loaded?.dispose();
      await this.servers?.close();
    }
  }
}

/** The in-process engine, its saved caches within the budget the app's settings give (or the default). */
function localEngine(model: LoadedModel) {
  return openEngine({ kind: 'local', model, stateBudget: readSettings(keelHome()).stateBudgetBytes ?? defaultStateBudget(keelHome()) });
}

/** What a conversation runs on: a loaded GGUF, or a model on a server. */
interface Target {
  /** What the session records as its model. */
  id: string;
  engine(): Engine;
  loaded?: LoadedModel;
}

/** `--server URL --model NAME` (the server's model), else `--model FILE.gguf` (loaded here). */
async function openTarget(model: string, flags: AgentFlags, io: Io, note = ''): Promise<Target> {
  if (flags.server !== undefined) {
    const server = await openServer(flags.server, model, flags.keyFile, io.err);
    return { id: serverModelId(server.client.url, server.model), engine: () => openEngine({ kind: 'server', server }) };
  }
  const loaded = await openModel(modelFile(model, note), flags, io.err);
  return { id: loaded.path, engine: () => localEngine(loaded), loaded };
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
  const target = await openTarget(o.model, o, io);
  const approvals: Approvals = {};
  // The session's tool list takes what the workspace's MCP servers list now: they are connected first.
  const servers = await connectServers(fs.realpathSync(root), io);
  const deps = sessionDeps(store, approvals, servers);
  await sandboxNotice(deps, io.err);
  const session = Session.create(deps, { root, kind: o.kind, mode: o.mode, title: o.title, model: target.id });
  servers.watch(session.tools);
  io.out.write(`Created session ${session.id} (${session.kind}, mode ${session.mode}) in ${session.root}${o.server === undefined ? '' : ` on ${target.id}`}.\n`);
  return new Conversation(store, session, target, o, approvals, servers);
}

/**
 * `keel chat ID` and `keel say ID`: loads the session's model (or `model`: the session moves to it
 * and its next request reads everything again), and the KV state saved for it when it is usable.
 */
export async function resumeConversation(store: SqliteStore, id: number, model: string | undefined, flags: AgentFlags, io: Io): Promise<Conversation> {
  const row = requireSession(store, id);
  const onServer = model === undefined && flags.server === undefined ? parseServerModelId(row.model) : undefined;
  let target: Target;
  if (onServer) target = await openTarget(onServer.model, { ...flags, server: onServer.url }, io);
  else if (model !== undefined) target = await openTarget(model, flags, io);
  else if (flags.server !== undefined) throw new CliError(`--server needs --model NAME: the server's model to move session ${id} to.`);
  else if (row.model === '') throw new CliError(`Session ${id} has no model yet: give one with --model FILE.gguf.`);
  else target = await openTarget(row.model, flags, io, ` (session ${id}'s model; give another with --model FILE.gguf)`);
  const approvals: Approvals = {};
  const servers = fs.existsSync(row.root) ? await connectServers(row.root, io) : undefined;
  const deps = sessionDeps(store, approvals, servers);
  await sandboxNotice(deps, io.err);
  const session = Session.open(deps, id);
  servers?.watch(session.tools);
  const conversation = new Conversation(store, session, target, flags, approvals, servers);
  conversation.onEvent = (e) => {
    if (e.type === 'notice') io.err.write(`${e.text}\n`);
  };
  try {
    if (target.id !== row.model) {
      await conversation.agent.switchEngine(target.engine());
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
