import { afterEach, describe, expect, it } from 'vitest';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { architectureModel } from './testModel/architectureModels.js';
import { NEXT_MESSAGE } from '../core/turn/loop.js';
import { describePrice } from '../core/price/price.js';
import { prefillCost, prefillSeconds, prefillSpeed, type MeasuredRequest } from '../core/price/prefillSpeed.js';

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

/** Three turns, each a plain answer. */
async function threeTurns(fx: EngineFixture): Promise<number[]> {
  fx.replies.push('One.', 'Two.', 'Three.');
  await fx.agent.send('Alpha message about the first thing');
  await fx.agent.send('Bravo message about the second thing');
  await fx.agent.send('Charlie message about the third thing');
  return fx.agent.session.turns().map((t) => t.seq);
}

// The price is told before the action; then the action is taken and the next message sent is the very
// stand-in the price was computed with, so the request's new tokens are what was predicted, exactly.
describe('the price of a cache break, before it is paid (real engine)', { timeout: 180_000 }, () => {
  it.each([['transformer', undefined], ['hybrid (qwen35: checkpoints)', 'qwen35' as const]])('%s: takes back, deletes and switches as priced', async (_label, family) => {
    f = await engineFixture(family ? { model: architectureModel(family) } : {});
    const seqs = await threeTurns(f);

    // Deleting the first turn re-reads the two after it.
    const del = await f.agent.priceOf({ kind: 'delete', turn: seqs[0] });
    expect(del.exact).toBe(true);
    expect(del.tokens).toBeGreaterThan(20);
    const back = await f.agent.priceOf({ kind: 'take back', turn: seqs[2] });
    expect(back.tokens).toBeLessThan(del.tokens);

    f.agent.deleteTurn(seqs[0]);
    f.replies.push('Four.');
    await f.agent.send(NEXT_MESSAGE);
    expect(f.agent.requests().at(-1)!.newTokens).toBe(del.nextTokens);

    // Taking back the last turn (undo) costs no more than its own message on a transformer.
    const undo = await f.agent.priceOf({ kind: 'take back', turn: f.agent.session.turns().at(-1)!.seq });
    if (!family) expect(undo.tokens).toBe(0);
    f.agent.undo();
    f.replies.push('Five.');
    await f.agent.send(NEXT_MESSAGE);
    expect(f.agent.requests().at(-1)!.newTokens).toBe(undo.nextTokens);

    // A switch re-reads everything (the same model here, so the count is the new engine's too).
    const sw = await f.agent.priceOf({ kind: 'switch model' });
    expect(sw.exact).toBe(false);
    const next = await f.agent.context();
    expect(sw.nextTokens).toBe(next.promptTokens);
    expect(describePrice(sw)).toMatch(/^re-reads about \d+ tokens, about \d+(\.\d)? (s|min) on this machine$/);
  });

  it('prices the first compaction with the longest words the model wrote in one reply standing in for the summary', async () => {
    f = await engineFixture();
    await threeTurns(f);
    const longest = 'The retry stops one try early, and the lease module uses config without importing it.';
    f.replies.push(longest, 'Short.');
    await f.agent.send('What is wrong?');
    await f.agent.send('And now?');
    const price = await f.agent.priceOf({ kind: 'compact' });
    expect(price.exact).toBe(false);
    // A summary as long as that reply (here, that very text) is read as priced, to the token.
    f.replies.push(longest);
    await f.agent.compact();
    f.replies.push('Six.');
    await f.agent.send(NEXT_MESSAGE);
    // (With none standing in, the floor it was, it came short by the summary's tokens.)
    expect(f.agent.requests().at(-1)!.newTokens).toBe(price.nextTokens);
  });
});

describe('prefill speed learnt from the session', () => {
  const row = (newTokens: number, reusedTokens: number, prefillMs: number): MeasuredRequest => ({ newTokens, reusedTokens, prefillMs });
  // ms = 10 + 0.5·n + 0.0001·n·(s + n/2), exactly, at several sizes and depths.
  const cost = (n: number, s: number) => 10 + 0.5 * n + 0.0001 * n * (s + n / 2);
  const sizes = [[100, 0], [1000, 0], [400, 5000], [50, 9000], [2000, 3000]];

  it('fits a fixed cost, a cost per token and attention over what each token follows', () => {
    const speed = prefillSpeed([...sizes.map(([n, s]) => row(n, s, cost(n, s))), row(0, 100, 3)])!;
    // Exact measures: the same fit near every size.
    for (const [near, start] of [[8, 9000], [3000, 0]]) {
      const c = prefillCost(speed, near, start);
      expect(c.fixedMs).toBeCloseTo(10, 3);
      expect(c.perTokenMs).toBeCloseTo(0.5, 5);
      expect(c.perDepthMs).toBeCloseTo(0.0001, 8);
    }
    expect(prefillSeconds(speed, 3000, 12000)).toBeCloseTo(cost(3000, 12000) / 1000, 5);
    expect(prefillSeconds(speed, 0, 500)).toBe(0);
  });

  it('leaves out a term that would come out below zero, and knows nothing before a request', () => {
    expect(prefillSpeed([])).toBeUndefined();
    // Larger requests that took less time: no term may be negative, so the fit keeps the fixed cost alone,
    // the one closest to both relatively: (1/300 + 1/100) / (1/300² + 1/100²) = 120 ms.
    // Two requests are fewer than a fit near one size draws on: they weigh alike.
    const speed = prefillSpeed([row(100, 0, 300), row(1000, 0, 100)])!;
    expect(prefillCost(speed, 100, 0)).toMatchObject({ fixedMs: 120, perTokenMs: 0, perDepthMs: 0 });
    // One request: its time.
    const one = prefillSpeed([row(40, 0, 75)])!;
    expect(one.requests).toBe(1);
    expect(prefillCost(one, 40, 0).fixedMs).toBeCloseTo(75, 9);
    expect(prefillCost(one, 40, 0)).toMatchObject({ perTokenMs: 0, perDepthMs: 0 });
  });

  it('prices a small read as the small reads went, whatever the large ones measured (errors relative to each)', () => {
    // Truly 100 ms + 0.5 ms a token; the large reads measured 15 % off, the smaller high and the larger low.
    const rows = [row(10, 0, 105), row(20, 0, 110), row(30, 0, 115), row(40, 0, 120), row(1000, 0, 690), row(2000, 0, 1100), row(3000, 0, 1360)];
    const ratio = prefillSeconds(prefillSpeed(rows)!, 8, 0) * 1000 / 104;
    expect(ratio).toBeGreaterThan(0.9);
    expect(ratio).toBeLessThan(1.1);
  });

  it('prices a small read from the reads of about its size, where a token costs more in a narrow batch', () => {
    // 8 ms a token up to 40 tokens, 4 ms beyond (a wider batch runs faster kernels), 10 ms a request: no one line fits both.
    const t = (n: number) => 10 + (n <= 40 ? 8 * n : 160 + 4 * (n - 40));
    const sizesRead = [12, 16, 20, 24, 28, 32, 36, 40, 18, 22, 26, 30, 80, 120, 160, 240, 320, 400, 480, 600, 700, 800, 900, 1000];
    const speed = prefillSpeed(sizesRead.map((n) => row(n, 0, t(n))))!;
    for (const n of [8, 500]) {
      const ratio = prefillSeconds(speed, n, 0) * 1000 / t(n);
      expect(ratio, `${n} tokens`).toBeGreaterThan(0.9);
      expect(ratio, `${n} tokens`).toBeLessThan(1.1);
    }
  });

  it('prices a read larger than every request by its size, however noisy the small reads were', () => {
    // Truly 150 ms + 3 ms a token; small reads measured up to twice or half that (a busy machine). Their
    // fixed part alone predicts them about as well, and priced a 5,699-token delete at 0.55 s for 17 s.
    const t = (n: number) => 150 + 3 * n;
    const noise = [1.24, 1.51, 2.19, 0.81, 0.67, 2.16, 1.43, 1.5, 1.27, 0.5, 1.23, 1.85];
    const rows = [20, 35, 50, 80, 120, 160, 200, 260, 320, 400, 450, 500].map((n, i) => row(n, 8000 + i * 100, t(n) * noise[i]));
    const speed = prefillSpeed(rows)!;
    const c = prefillCost(speed, 5699, 4000);
    expect(c.perTokenMs + c.perDepthMs).toBeGreaterThan(0);
    const ratio = prefillSeconds(speed, 5699, 4000) * 1000 / t(5699);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
    // One request, and a read ten times its size: its time per token, not its time.
    expect(prefillSeconds(prefillSpeed([row(40, 0, 80)])!, 400, 0)).toBeCloseTo(0.8, 9);
  });

  it('prices a read larger than every request with attention over its own depth, which reads at one depth cannot tell from a cost per token', () => {
    // As bench:reuse measured on this CPU: 0.5 ms a token plus 0.44 µs for each token it follows. The latest
    // requests are small reads 11.5k–13.7k tokens deep (a token there costs about 6 ms), and a delete of 3,579.
    const t = (n: number, s: number) => 60 + 0.5 * n + 0.00044 * n * (s + n / 2);
    const noise = [1.1, 0.9, 1.2, 0.85, 1.05, 0.95, 1.15, 0.9, 1.0, 1.1, 0.8, 1.2, 0.95, 1.05, 0.9, 1.1, 1.0, 0.85, 1.15, 0.95, 1.05, 0.9, 1.1];
    const small = [80, 19, 67, 34, 20, 38, 32, 158, 40, 21, 300, 23, 80, 17, 67, 341, 32, 166, 40, 23, 80, 8, 31];
    const rows = [...small.map((n, i) => row(n, 11500 + i * 95, t(n, 11500 + i * 95) * noise[i])), row(3579, 9938, t(3579, 9938))];
    // A switch to another engine reads the whole 11,717-token prompt from 0: a cost per token alone priced it at 1.7×.
    const ratio = prefillSeconds(prefillSpeed(rows)!, 11717, 0) * 1000 / t(11717, 0);
    expect(ratio).toBeGreaterThan(0.75);
    expect(ratio).toBeLessThan(1.25);
  });

});
