import { loopConfig } from '../config.js';
import type { ModelCall } from '../engine/types.js';
import { stableJson } from '../hygiene/stableJson.js';

/**
 * The same call made again and again in a row (across a turn's replies): from `repeat_limit` on it
 * is answered with a problem instead of being run, and at twice that the turn stops.
 */
export class RepeatCheck {
  private last = '';
  private repeats = 0;
  private readonly limit = loopConfig.repeatLimit;

  /** Counts the call; the problem it is answered with instead of running, if any. */
  problem(call: ModelCall): string | undefined {
    const signature = `${call.name} ${stableJson(call.args ?? null)}`;
    this.repeats = signature === this.last ? this.repeats + 1 : 1;
    this.last = signature;
    return call.problem ?? (this.repeats >= this.limit
      ? `this is the same ${call.name} call ${this.repeats} times in a row; its result is above. Answer, or call something else.`
      : undefined);
  }

  /** Whether the model went on repeating past every answer: the turn ends. */
  get exhausted(): boolean {
    return this.repeats >= 2 * this.limit;
  }
}
