/**
 * Keel as an Agent Client Protocol agent (docs/acp.md): an editor (Zed, a JetBrains IDE, Neovim)
 * drives Keel's own service — the app's store, sessions, engine and approvals — over JSON-RPC.
 * Each ACP method is one call of the contract; the service's events for a session with a prompt
 * under way become that session's `session/update` notifications, in the order they came, and an
 * approval becomes `session/request_permission`, its answer given to the service as the app gives it.
 */
import {
  agent, PROTOCOL_VERSION, RequestError,
  type AgentApp, type AgentContext, type ContentBlock, type McpServer, type PromptResponse, type RequestPermissionRequest, type SessionModeState, type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { Host } from '../appHost.js';
import type { FileSource } from '../core/tools/fileSource.js';
import { MODE_HELP, MODES, type ApprovalAnswer, type ApprovalView, type EditorServer, type KeelEvent, type Mode, type RequestRow } from '../contract.js';
import {
  callPaths, endedUpdate, filesBefore, historyUpdates, planUpdate, requestMeta, startedUpdate, toolKind, usageUpdate,
} from './updates.js';

export interface AcpOptions {
  /** Keel's version, as `initialize` names the agent. */
  version: string;
  /** The mode of a new session (default: the service's). */
  mode?: Mode;
  /** Says something to the person (standard error: the editor's agent log). */
  log?: (line: string) => void;
  /** Where the editor's buffers go, by Keel session, when the editor offers them (the host's file tools read this). */
  files?: Map<number, FileSource>;
}

/** A prompt under way: where its updates go, in order, and what is known of its calls. */
interface Turn {
  client: AgentContext;
  root: string;
  /** Every update and permission request of the turn, chained: each is sent after the one before. */
  chain: Promise<void>;
  cancelled: boolean;
  requests: RequestRow[];
  /** Calls started and not yet ended, by result id: the files an edit will change, as they were before it. */
  calls: Map<string, { name: string; before?: Map<string, string | undefined> }>;
}

/** ACP's answers to an approval, each the app's own answer (contract.ts APPROVAL_ANSWERS). */
const OPTIONS = [
  { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-session', name: 'Always for this session', kind: 'allow_always' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
] as const satisfies { optionId: ApprovalAnswer; name: string; kind: string }[];

/** The answer an option the editor chose stands for; one Keel did not offer is a denial, never an allow. */
const answerOf = (optionId: string): ApprovalAnswer => OPTIONS.find((o) => o.optionId === optionId)?.optionId ?? 'deny';

/** The agent, bound to a host: one connection's sessions are the service's, opened or made by it. */
export function acpAgent(host: Pick<Host, 'api' | 'subscribe'>, o: AcpOptions): { app: AgentApp; stopAll(): Promise<void> } {
  const { api } = host;
  /** Sessions this connection made or loaded, by ACP id: their folder. */
  const known = new Map<string, { id: number; root: string }>();
  const turns = new Map<number, Turn>();
  /** What the editor said it offers in `initialize`: its buffers, for reading and for writing. */
  let offers: FileOffers = {};
  /** A session this connection has: its folder, and the editor's buffers for its file tools where offered. */
  const have = (client: AgentContext, sessionId: string, id: number, root: string): void => {
    known.set(sessionId, { id, root });
    if (offers.readTextFile || offers.writeTextFile) o.files?.set(id, editorFiles(client, sessionId, offers));
  };

  const session = (sessionId: string): { id: number; root: string } => {
    const s = known.get(sessionId);
    if (!s) throw RequestError.invalidParams({ sessionId }, `Keel has no session ${sessionId} on this connection: make one with session/new or open it with session/load`);
    return s;
  };
  const send = (turn: Turn, sessionId: string, update: SessionUpdate): void => {
    turn.chain = turn.chain.then(() => turn.client.notify('session/update', { sessionId, update })).catch(() => undefined);
  };

  host.subscribe((event: KeelEvent) => {
    const sessionId = 'sessionId' in event && event.sessionId !== undefined ? event.sessionId : event.type === 'approval' ? event.approval.sessionId : undefined;
    const turn = sessionId !== undefined ? turns.get(sessionId) : undefined;
    if (!turn || sessionId === undefined) return;
    const acpId = String(sessionId);
    if (event.type === 'text') send(turn, acpId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta } });
    if (event.type === 'tool-started') {
      const edits = toolKind(event.name) === 'edit';
      turn.calls.set(event.id, { name: event.name, ...(edits ? { before: filesBefore(callPaths(event.name, event.args, turn.root)) } : {}) });
      send(turn, acpId, startedUpdate(event.id, event.name, event.args, turn.root));
    }
    if (event.type === 'tool') {
      const call = turn.calls.get(event.tool.id);
      turn.calls.delete(event.tool.id);
      send(turn, acpId, endedUpdate(event.tool, call?.before));
      if (event.tool.name.startsWith('plan_')) {
        turn.chain = turn.chain.then(async () => {
          const view = await api.openSession(sessionId);
          await turn.client.notify('session/update', { sessionId: acpId, update: planUpdate(view.plan) });
        }).catch(() => undefined);
      }
    }
    if (event.type === 'request') {
      turn.requests.push(event.request);
      send(turn, acpId, usageUpdate(event.request));
    }
    if (event.type === 'approval') ask(turn, acpId, event.approval);
  });

  /** The person is asked in the editor once the call's own update is out; their answer goes to the service. */
  const ask = (turn: Turn, sessionId: string, approval: ApprovalView): void => {
    const id = [...turn.calls.keys()].reverse().find((k) => turn.calls.get(k)?.name === approval.tool) ?? `approval-${approval.approvalId}`;
    const request: RequestPermissionRequest = {
      sessionId,
      toolCall: {
        toolCallId: id, title: approval.reason, kind: toolKind(approval.tool), status: 'pending', rawInput: approval.args as Record<string, unknown>,
        content: [{ type: 'content', content: { type: 'text', text: approval.preview } }],
        locations: approval.paths.map((p) => ({ path: p })),
      },
      options: [...OPTIONS],
    };
    const asked = turn.chain.then(() => turn.client.request('session/request_permission', request));
    void asked.then(
      (r) => api.answerApproval(approval.approvalId, r.outcome.outcome === 'selected' ? answerOf(r.outcome.optionId) : 'deny'),
      // The editor could not be asked (it went away): the call is denied, as a stop denies it.
      () => api.answerApproval(approval.approvalId, 'deny'),
    ).catch(() => undefined);
  };

  /** The workspace's slash commands, offered to the editor once the session exists (a prompt `/name args` runs one). */
  const offerCommands = async (client: AgentContext, sessionId: string, root: string): Promise<void> => {
    const commands = (await api.slashCommands(root)).filter((c) => !c.problem);
    if (commands.length === 0) return;
    await client.notify('session/update', { sessionId, update: {
      sessionUpdate: 'available_commands_update',
      availableCommands: commands.map((c) => ({ name: c.name, description: `${c.description} ${c.label}`, ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}) })),
    } });
  };

  const modes = (current: Mode): SessionModeState => ({
    currentModeId: current,
    availableModes: MODES.map((m) => ({ id: m, name: m, description: MODE_HELP[m] })),
  });

  const app = agent({ name: 'keel' })
    .onRequest('initialize', ({ params }) => {
      offers = { ...params.clientCapabilities?.fs };
      return {
        protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: false },
          mcpCapabilities: { http: false, sse: false },
        },
        agentInfo: { name: 'keel', title: 'Keel', version: o.version },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params, client }) => {
      const mcpServers = stdioServers(params.mcpServers, o.log);
      const summary = await api.createSession({ workspace: params.cwd, kind: 'agent', ...(o.mode ? { mode: o.mode } : {}), mcpServers });
      const sessionId = String(summary.id);
      have(client, sessionId, summary.id, summary.workspace);
      // After the response: an update must name a session the editor has.
      setImmediate(() => void offerCommands(client, sessionId, summary.workspace).catch(() => undefined));
      return { sessionId, modes: modes(summary.mode) };
    })
    .onRequest('session/load', async ({ params, client }) => {
      const id = Number(params.sessionId);
      if (!Number.isSafeInteger(id) || id < 1) throw RequestError.invalidParams({ sessionId: params.sessionId }, `${params.sessionId} is not a Keel session id`);
      const view = await api.openSession(id);
      await api.useEditorServers(id, stdioServers(params.mcpServers, o.log));
      have(client, params.sessionId, id, view.summary.workspace);
      for (const update of historyUpdates(view)) await client.notify('session/update', { sessionId: params.sessionId, update });
      await offerCommands(client, params.sessionId, view.summary.workspace);
      return { modes: modes(view.summary.mode) };
    })
    .onRequest('session/set_mode', async ({ params }) => {
      if (!(MODES as readonly string[]).includes(params.modeId)) throw RequestError.invalidParams({ modeId: params.modeId }, `Keel's modes are ${MODES.join(', ')}`);
      await api.setMode(session(params.sessionId).id, params.modeId as Mode);
      return {};
    })
    .onRequest('session/prompt', async ({ params, client }): Promise<PromptResponse> => {
      const { id, root } = session(params.sessionId);
      if (turns.has(id)) throw RequestError.invalidRequest({ sessionId: params.sessionId }, 'this session is answering a prompt already; cancel it first');
      const text = promptText(params.prompt);
      const turn: Turn = { client, root, chain: Promise.resolve(), cancelled: false, requests: [], calls: new Map() };
      turns.set(id, turn);
      try {
        await api.send(id, text);
      } catch (err) {
        if (!turn.cancelled) throw RequestError.internalError({ sessionId: params.sessionId }, (err as Error).message);
      } finally {
        turns.delete(id);
        await turn.chain;
      }
      return { stopReason: turn.cancelled ? 'cancelled' : 'end_turn', _meta: { keel: { requests: turn.requests.map(requestMeta) } } };
    })
    .onNotification('session/cancel', async ({ params }) => {
      const s = known.get(params.sessionId);
      const turn = s && turns.get(s.id);
      if (!s || !turn) return;
      turn.cancelled = true;
      await api.stop(s.id);
    });

  /** Stops every prompt under way (the editor went away): each turn is stored as stopped. */
  const stopAll = async (): Promise<void> => {
    for (const [id, turn] of turns) {
      turn.cancelled = true;
      await api.stop(id);
    }
  };
  return { app, stopAll };
}

interface FileOffers { readTextFile?: boolean; writeTextFile?: boolean }

/**
 * The editor's buffers as a session's file source: `read` answers what the editor holds for a file
 * (its unsaved text where the person has it open), `write` hands it the new text to put in the buffer
 * and save. Only what the editor offered is used; the rest stays on disk.
 */
function editorFiles(client: AgentContext, sessionId: string, offers: FileOffers): FileSource {
  return {
    name: 'The editor',
    ...(offers.readTextFile && {
      read: async (absPath: string) => (await client.request('fs/read_text_file', { sessionId, path: absPath })).content,
    }),
    ...(offers.writeTextFile && {
      write: async (absPath: string, content: string) => void (await client.request('fs/write_text_file', { sessionId, path: absPath, content })),
    }),
  };
}

/**
 * The editor's servers Keel runs: those over stdio (which every ACP agent takes), each in the command
 * sandbox as the person's own servers are; one over HTTP or SSE is said to be left out.
 */
function stdioServers(servers: readonly McpServer[], log?: (line: string) => void): EditorServer[] {
  const out: EditorServer[] = [];
  for (const s of servers) {
    if ('command' in s) out.push({ name: s.name, command: s.command, args: s.args, env: s.env.map((e) => ({ name: e.name, value: e.value })) });
    else log?.(`The editor's MCP server ${s.name} is left out: Keel takes an editor's servers over stdio only.`);
  }
  return out;
}

/** A prompt's blocks as the message Keel sends: text as it is, a link to a file as its path on a line of its own. */
function promptText(blocks: readonly ContentBlock[]): string {
  const parts = blocks.map((b) => {
    if (b.type === 'text') return b.text;
    if (b.type === 'resource_link') return b.uri.startsWith('file://') ? decodeURIComponent(new URL(b.uri).pathname) : b.uri;
    throw RequestError.invalidParams({ type: b.type }, `Keel takes text and links to files in a prompt, not ${b.type} content`);
  });
  const text = parts.join('\n').trim();
  if (!text) throw RequestError.invalidParams({}, 'the prompt has no text');
  return text;
}
