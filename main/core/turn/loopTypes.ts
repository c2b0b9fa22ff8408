import type { Engine } from '../engine/types.js';
import type { HookEventName } from '../hooks/settings.js';
import type { HookRun } from '../hooks/run.js';
import type { CallResult } from '../calls/calls.js';
import type { Session } from '../session/session.js';
import type { RequestRow, SessionStore } from '../state/types.js';

/** What the agent loop tells its caller (the app, the CLI, a bench) as it goes. */
export type LoopEvent =
  | { type: 'message'; sent: string }
  | { type: 'text'; delta: string }
  /** A call starts (its result will be `number`); `tool` follows when it has its result. */
  | { type: 'tool-started'; name: string; args: unknown; number: number }
  | { type: 'tool'; name: string; args: unknown; result: CallResult }
  /** Hooks that ran for a message (UserPromptSubmit) or an answer (Stop); a call's are on its result. */
  | { type: 'hook'; event: HookEventName; runs: HookRun[] }
  | { type: 'request'; request: RequestRow }
  | { type: 'compacted'; text: string }
  /** Something the person should know that is not part of the conversation (a saved state not used, say). */
  | { type: 'notice'; text: string };

export interface LoopOptions {
  session: Session;
  store: SessionStore;
  engine: Engine;
  promptsDir: string;
  /** Where the engine's cache is saved between runs, so a resumed session need not re-read. */
  stateFile?: string;
  /** Replies to force, one per request (tests and benchmarks drive the real engine with them). */
  script?: Script;
  maxReplyTokens?: number;
  maxSteps?: number;
  /** The most seconds a cache break Keel takes on its own (a compaction) may cost at the measured prefill speed; undefined: no limit. */
  maxBreakSeconds?: number;
  temperature?: number;
  /** Compact before a turn once the prompt would fill this share of the context. */
  compactAt?: number;
  onEvent?: (event: LoopEvent) => void;
  /** A subagent's loop: its first request starts from the prefix it shares with its siblings, where the engine can copy it. */
  sharePrefix?: boolean;
}

/** Scripted replies (teacher forcing): each request's reply is given as the engine's text. */
export interface Script {
  next(): string | undefined;
}
