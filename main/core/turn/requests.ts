import type { Conversation, Engine, Generation } from '../engine/types.js';
import { sha256 } from '../hash.js';
import type { Session } from '../session/session.js';
import type { BreakCause, RequestRow, SessionStore } from '../state/types.js';

/**
 * The record of a session's requests: each with its cache use and, where it reused less than the
 * cache held, the cause. Keel's own history changes (compaction, undo, a switch) name theirs before
 * the request (`pendingCause`); a loss nobody asked for is the engine's to explain (`unaskedCause`).
 */
export class RequestLog {
  /** The cause the next request's loss is owed to: a change Keel made since the last request. */
  pendingCause?: BreakCause;
  /** What the previous request left in the cache, when that cache is gone (switch, resume). */
  lostCache = 0;
  /** Where the previous request's reply began: a loss after it is the reply's, not the template's. */
  private lastReplyStart = Number.POSITIVE_INFINITY;

  constructor(private readonly store: SessionStore, private readonly session: Session) {}

  /** Stores one request the engine made of `conversation`, and resets what the next request is compared with. */
  record(
    engine: Engine, conversation: Conversation, r: Generation, kind: RequestRow['kind'], answers?: RequestRow['answers'],
  ): RequestRow {
    const u = r.usage;
    const cachedBefore = Math.max(u.cachedBefore, this.lostCache);
    const lost = u.reusedTokens < cachedBefore;
    const cause = lost || this.pendingCause ? this.pendingCause ?? this.unaskedCause(r) : undefined;
    const request = this.store.insertRequest({
      sessionId: this.session.id,
      kind,
      model: engine.id,
      promptTokens: u.promptTokens,
      reusedTokens: u.reusedTokens,
      newTokens: u.newTokens,
      outputTokens: u.outputTokens,
      cachedBefore,
      prefillMs: u.prefillMs,
      generationMs: u.generationMs,
      systemSha: sha256(conversation.system),
      toolsSha: sha256(JSON.stringify(conversation.tools)),
      firstDiff: cause ? u.reusedTokens : undefined,
      cause,
      turn: this.session.turns().at(-1)?.seq,
      answers,
      contextSize: engine.contextSize,
      createdAt: new Date().toISOString(),
      ...(u.engine ? { engine: u.engine } : {}),
    });
    this.pendingCause = undefined;
    this.lostCache = 0;
    this.lastReplyStart = u.promptTokens;
    return request;
  }

  /**
   * A loss nobody asked for: one the engine names itself (a server that evicted the prefix); the same
   * text inside the last reply tokenized otherwise (a reply cut off mid-character, say); else a chat
   * dropped earlier results, or the template re-rendered.
   */
  private unaskedCause(r: Generation): BreakCause {
    const u = r.usage;
    if (u.lossCause) return u.lossCause;
    if (u.rewritten === false && u.reusedTokens >= this.lastReplyStart) return 'reply re-tokenized';
    if (this.session.kind === 'chat' && u.reusedTokens < this.lastReplyStart) return 'chat reply results not carried';
    return 'template re-rendered earlier text';
  }
}

/**
 * What the person is told about a reply that is not a plain answer: an empty one, or one cut before
 * its end (inside a call, whose call is then not run). The reply itself is stored as generated.
 */
export function unfinished(r: Generation): string | undefined {
  const cutCall = r.reply.raw !== undefined && r.reply.raw !== r.reply.words && r.reply.calls.length === 0 && r.stoppedBy !== 'end' && r.stoppedBy !== 'trigger';
  const how = r.stoppedBy === 'limit' ? 'cut off at the reply token limit' : r.stoppedBy === 'stopped' ? 'stopped' : 'ended by the model';
  if (cutCall) return `The model's reply was ${how} inside a tool call; the call was not run.`;
  if (r.text.trim() === '' && r.reply.words === '') return `The model's reply was empty (${how}).`;
  return undefined;
}
