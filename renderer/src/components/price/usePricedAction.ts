import { useCallback, useEffect, useRef, useState } from 'react';
import type { ActionToPrice, PriceView } from '../../../../main/contract.js';
import type { Outcome } from '../../stores/slice.js';
import { useKeel } from '../../stores/store.js';

/** An action held back above the person's limit, until they answer the question. */
export interface PriceQuestionState {
  /** What main said the action costs, or why it could not say. */
  got: Outcome<PriceView>;
  /** The limit in seconds the question names. */
  limit?: number;
  confirm(): void;
  cancel(): void;
}

export interface PricedAction {
  /** Main's price for the session as it is now; undefined until asked and answered. */
  got?: Outcome<PriceView>;
  /** Asks main now, unless the answer for the session as it is now is had or on its way. */
  want(): Promise<Outcome<PriceView>>;
  /**
   * Takes the action through its price: `go` runs at once unless the price is above the person's
   * limit (main's `asks`; a price main could not work out, where a limit is set), in which case
   * `question` holds it until confirmed. Cancelling changes nothing.
   */
  attempt(go: () => void): Promise<void>;
  question?: PriceQuestionState;
}

/**
 * The price of a cache break, shown before it is paid (issue 36): what `action` would make the open
 * session's next request re-read, asked of main (never computed here) when `eager` (a confirmation
 * opening) or on `want` (a pointer on a button), and again after anything changes the session or the
 * limit. Nothing is asked while the session answers (main refuses then) or with no action.
 */
export function usePricedAction(action: ActionToPrice | undefined, eager = false): PricedAction {
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const view = useKeel((s) => s.transcript.view);
  const running = useKeel((s) => s.transcript.running);
  const limit = useKeel((s) => s.model.app?.askAboveSeconds);
  const key = action && sessionId !== undefined ? `${sessionId} ${action.kind} ${action.turn ?? ''} ${limit ?? ''}` : undefined;
  // An answer belongs to the session as main showed it (its view) and to the limit: any change asks again.
  const [answer, setAnswer] = useState<{ key: string; view: unknown; got: Outcome<PriceView> }>();
  const asking = useRef<{ key: string; view: unknown; promise: Promise<Outcome<PriceView>> }>(undefined);
  const [held, setHeld] = useState<{ go(): void; got: Outcome<PriceView> }>();

  const want = useCallback((): Promise<Outcome<PriceView>> => {
    if (key === undefined || sessionId === undefined || !action) return Promise.resolve({ ok: false, error: 'No session is open.' });
    if (running) return Promise.resolve({ ok: false, error: 'The session is answering.' });
    const current = asking.current;
    if (current && current.key === key && current.view === view) return current.promise;
    const promise = useKeel.getState().requests.price(sessionId, { kind: action.kind, ...(action.turn !== undefined && { turn: action.turn }) });
    asking.current = { key, view, promise };
    void promise.then((got) => {
      if (asking.current?.promise === promise) setAnswer({ key, view, got });
    });
    return promise;
    // The action is named by `key` (a new object of the same kind and turn asks nothing new).
  }, [key, view, running, sessionId]);

  useEffect(() => {
    if (eager && key !== undefined && !running) void want();
  }, [eager, key, running, want]);
  // A question outlives nothing that changed the session under it.
  useEffect(() => setHeld(undefined), [key, view]);

  const attempt = async (go: () => void) => {
    const got = await want();
    const asks = got.ok ? got.value.asks : limit !== undefined;
    if (asks) setHeld({ go, got });
    else go();
  };
  const got = answer && answer.key === key && answer.view === view ? answer.got : undefined;
  const question = held && {
    got: held.got,
    limit: held.got.ok ? held.got.value.askAboveSeconds : limit,
    confirm: () => {
      setHeld(undefined);
      held.go();
    },
    cancel: () => setHeld(undefined),
  };
  return { got, want, attempt, question };
}
