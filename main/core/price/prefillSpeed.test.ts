/**
 * The fit on what bench:reuse measured on two 2-core machines without a GPU, quiet (the third session
 * on an AVX-512 one, whose small reads cost half as much a token): each request of a Keel session
 * (tokens read, tokens kept before them, prefill ms), then the five breaks it prices after the session,
 * each priced from the requests before it as the app would, against the time it took.
 */
import { describe, expect, it } from 'vitest';
import measured from './fixtures/benchReuse.json' with { type: 'json' };
import { prefillSeconds, prefillSpeed, type MeasuredRequest } from './prefillSpeed.js';

type Read = [newTokens: number, reusedTokens: number, prefillMs: number];
const request = ([newTokens, reusedTokens, prefillMs]: Read): MeasuredRequest => ({ newTokens, reusedTokens, prefillMs });

describe('prefill speed on a measured session', () => {
  it.each(Object.entries(measured))('prices each break of the %s session within 0.75–1.3 of its time', (_, session) => {
    const requests = (session.requests as Read[]).map(request);
    for (const [action, ...read] of session.actions as [string, ...Read][]) {
      const r = request(read);
      const ratio = prefillSeconds(prefillSpeed(requests)!, r.newTokens, r.reusedTokens) * 1000 / r.prefillMs;
      // 62 turns: a compaction's read 5.5k deep was priced from the latest requests, all 19k deep, at 3.25×.
      expect(ratio, action).toBeGreaterThan(0.75);
      expect(ratio, action).toBeLessThan(1.3);
      requests.push(r);
    }
  });
});
