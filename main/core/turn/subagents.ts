import { fill, subagentsConfig } from '../config.js';
import { Session } from '../session/session.js';
import type { SessionDeps } from '../state/deps.js';
import type { SessionRow } from '../state/types.js';
import { ToolError, type SubagentRequest, type SubagentRunner } from '../tools/types.js';
import type { AgentLoop, LoopEvent } from './loop.js';
import { agentTools, readAgents, type AgentDefinition } from './agentFiles.js';

const texts = subagentsConfig.texts;

/** Where a subagent stands, for the person: waiting for a sequence, running, or ended (with its answer or error). */
export type ChildState = 'waiting' | 'running' | 'answered' | 'failed';

/** What runs subagents on a model: the app's pool, the CLI, a bench. */
export interface ChildHost {
  /**
   * An agent loop for a subagent's session on the model its parent runs on, on a context sequence
   * of its own (the parent's cache is not touched), with `maxSteps` and `sharePrefix` set.
   * Throws where that model cannot be had.
   */
  open(child: Session, o: { maxSteps: number; onEvent: (event: LoopEvent) => void }): Promise<{ loop: AgentLoop; close(): Promise<void> }>;
  /** A child's state and events, for the person (nested under the parent's call). */
  onChild?(parentId: number, childId: number, change: { state: ChildState } | { event: LoopEvent }): void;
}

/**
 * The `task` tool's subagents: each a session of its own (its own context, ids and stored
 * transcript, its parent named), with its agent's tools narrowed from the parent's list, the
 * parent's system prompt and date first (a shared prefix) and its agent's instructions after, and
 * the parent's permission mode. At most `max_parallel` of one parent run at once; the rest wait in order.
 */
export class Subagents {
  private readonly slots = new Map<number, { running: number; queue: (() => void)[] }>();

  constructor(private readonly deps: SessionDeps, private readonly host: ChildHost) {}

  /** The deps' `subagents` entry: the runner for a parent session. */
  forParent(parent: SessionRow): SubagentRunner {
    return { run: (request, signal) => this.run(parent, request, signal) };
  }

  private async run(parent: SessionRow, request: SubagentRequest, signal?: AbortSignal): Promise<{ answer: string; sessionId: number }> {
    const agent = this.agent(parent, request.agent);
    const tools = agentTools(parent.tools ?? [], agent);
    const name = agent?.name ?? 'general';
    const instructions = [fill(texts.heading, { name }), agent?.instructions ?? ''].filter((t) => t !== '').join('\n\n');
    const child = Session.create({ ...this.deps, subagents: undefined }, {
      root: parent.root, kind: 'agent', mode: parent.mode, title: request.description, model: parent.model,
      child: { parentId: parent.id, systemPrompt: `${parent.systemPrompt}\n${instructions}\n`, promptDate: parent.promptDate, tools },
    });
    const tell = (change: { state: ChildState } | { event: LoopEvent }) => this.host.onChild?.(parent.id, child.id, change);
    tell({ state: 'waiting' });
    let release: (() => void) | undefined;
    try {
      release = await this.slot(parent.id, signal);
      tell({ state: 'running' });
      const opened = await this.host.open(child, { maxSteps: subagentsConfig.maxSteps, onEvent: (event) => tell({ event }) });
      try {
        const r = await opened.loop.answer(request.prompt, { signal });
        if (signal?.aborted) throw new ToolError(texts.stopped);
        if (!r.answered) throw new ToolError(fill(texts.limit, { steps: opened.loop.requests().filter((q) => q.kind === 'turn').length }));
        tell({ state: 'answered' });
        return { answer: r.words, sessionId: child.id };
      } finally {
        await opened.close();
        await this.deps.shells?.endSession(child.id);
      }
    } catch (e) {
      tell({ state: 'failed' });
      if (e instanceof ToolError) throw e;
      if (signal?.aborted) throw new ToolError(texts.stopped);
      throw new ToolError(fill(texts.failed, { error: (e as Error).message }));
    } finally {
      release?.();
    }
  }

  /** The agent asked for (none: the general one), checked against the parent's model. */
  private agent(parent: SessionRow, name: string | undefined): AgentDefinition | undefined {
    if (name === undefined || name === 'general') return undefined;
    const { agents } = readAgents(parent.root);
    const agent = agents.find((a) => a.name === name);
    if (!agent) throw new ToolError(fill(texts.unknown, { name, list: ['general', ...agents.map((a) => a.name)].join(', ') }));
    if (agent.model && !sameModel(agent.model, parent.model)) {
      throw new ToolError(fill(texts.model, { name, model: agent.model, own: parent.model || 'none' }));
    }
    return agent;
  }

  /** Waits for one of the parent's `max_parallel` places; the release gives it to the next in line. */
  private slot(parentId: number, signal?: AbortSignal): Promise<() => void> {
    let s = this.slots.get(parentId);
    if (!s) this.slots.set(parentId, (s = { running: 0, queue: [] }));
    const slots = s;
    const release = () => {
      slots.running--;
      slots.queue.shift()?.();
      if (slots.running === 0 && slots.queue.length === 0) this.slots.delete(parentId);
    };
    if (slots.running < subagentsConfig.maxParallel) {
      slots.running++;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', stop);
        slots.running++;
        resolve(release);
      };
      const stop = () => {
        slots.queue.splice(slots.queue.indexOf(go), 1);
        reject(new ToolError(texts.stopped));
      };
      slots.queue.push(go);
      signal?.addEventListener('abort', stop, { once: true });
    });
  }
}

/**
 * Whether an agent's `model` names the parent's: Claude Code's `inherit` and its own aliases
 * (which name no model Keel has) mean the session's model; anything else must be its file name or id.
 */
function sameModel(asked: string, own: string): boolean {
  if (['inherit', 'sonnet', 'opus', 'haiku'].includes(asked)) return true;
  const base = own.split(/[\\/#]/).at(-1) ?? own;
  return asked === own || asked === base || `${asked}.gguf` === base;
}
