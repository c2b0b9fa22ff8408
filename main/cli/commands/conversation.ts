import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PROMPTS_DIR } from '../../core/prompts/buildSystemPrompt.js';
import { Session, type SessionDeps } from '../../core/session/session.js';
import type { Mode, SessionKind } from '../../core/session/types.js';
import { ToolRegistry } from '../../core/tools/registry.js';
import type { SqliteStore } from '../../db/store.js';
import { keelHome, stateFile } from '../../keelHome.js';
import type { Approver } from '../../core/permissions/approval.js';
import { Agent, type AgentEvent } from '../../llm/agent.js';
import type { LoadedModel } from '../../llm/model.js';
import type { Script } from '../../llm/request.js';
import { CliError, requireFolder, requireSession, type Io } from '../io.js';
import type { McpHub } from '../../mcp/hub.js';
import { connectServers } from './mcp.js';
import { modelFile, openModel, type ModelFlags } from './model.js';

/** Who answers the gate's questions: the chat prompt sets it; without one, whatever asks is denied. */
export interface Approvals {
  approve?: Approver;
}

export interface AgentFlags extends ModelFlags {
  /** The most tokens one model reply may have. */
  maxTokens?: number;
  /** Scripted replies (tests drive the real engine with them, as the app's scriptFor does). */
  script?: Script;
}

/** A session with its model loaded and an agent on it. `close()` frees the model. */
export class Conversation {
  readonly agent: Agent;
  /** Where the agent's events go; set by whoever shows the conversation. */
  onEvent: (event: AgentEvent) => void = () => {};

  constructor(
    readonly store: SqliteStore, readonly session: Session, private readonly loaded: LoadedModel, flags: AgentFlags,
    readonly approvals: Approvals, private readonly servers?: McpHub,
  ) {
    this.agent = new Agent({
      session, store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, model: loaded,
      stateFile: stateFile(session.id), maxReplyTokens: flags.maxTokens, script: flags.script, onEvent: (e) => this.onEvent(e),
    });
  }

  async close(): Promise<void> {
    await this.agent.dispose();
    await this.loaded.dispose();
    await this.servers?.close();
  }
}

function sessionDeps(store: SqliteStore, approvals: Approvals, external?: McpHub): SessionDeps {
  return {
    store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date(), external,
    permissions: {
      approve: (request) => (approvals.approve ? approvals.approve(request) : Promise.resolve('deny')),
      protectedFolders: [keelHome()],
    },
  };
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
  const file = modelFile(o.model);
  const loaded = await openModel(file, o, io.err);
  const approvals: Approvals = {};
  // The session's tool list takes what the workspace's MCP servers list now: they are connected first.
  const servers = await connectServers(fs.realpathSync(root), io);
  const session = Session.create(sessionDeps(store, approvals, servers), { root, kind: o.kind, mode: o.mode, title: o.title, model: loaded.path });
  servers.watch(session.tools);
  io.out.write(`Created session ${session.id} (${session.kind}, mode ${session.mode}) in ${session.root}.\n`);
  return new Conversation(store, session, loaded, o, approvals, servers);
}

/**
 * `keel chat ID` and `keel say ID`: loads the session's model (or `model`: the session moves to it
 * and its next request reads everything again), and the KV state saved for it when it matches.
 */
export async function resumeConversation(store: SqliteStore, id: number, model: string | undefined, flags: AgentFlags, io: Io): Promise<Conversation> {
  const row = requireSession(store, id);
  let file: string;
  if (model !== undefined) file = modelFile(model);
  else if (row.model === '') throw new CliError(`Session ${id} has no model yet: give one with --model FILE.gguf.`);
  else file = modelFile(row.model, ` (session ${id}'s model; give another with --model FILE.gguf)`);
  const approvals: Approvals = {};
  const loaded = await openModel(file, flags, io.err);
  const servers = fs.existsSync(row.root) ? await connectServers(row.root, io) : undefined;
  const session = Session.open(sessionDeps(store, approvals, servers), id);
  servers?.watch(session.tools);
  const conversation = new Conversation(store, session, loaded, flags, approvals, servers);
  try {
    if (loaded.path !== row.model) {
      await conversation.agent.switchModel(loaded);
      if (row.model !== '') io.err.write(`Session ${id} moved from ${row.model} to ${loaded.path}: its next request reads everything again.\n`);
    } else if (await conversation.agent.restoreState().catch((e: Error) => {
      io.err.write(`The saved cache of session ${id} could not be loaded (${e.message}); the next request reads everything again.\n`);
      return false;
    })) {
      io.err.write(`Session ${id} resumed with its saved cache.\n`);
    }
  } catch (e) {
    await conversation.close();
    throw e;
  }
  return conversation;
}
