import { afterEach, describe, expect, it } from 'vitest';
import type { RequestRow } from '../core/state/types.js';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { formatCall } from './toolCalls.js';

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

const call = (fx: EngineFixture, name: string, args: unknown) => formatCall(fx.syntax(), name, args);
const breaks = (rows: RequestRow[]) => rows.filter((r) => r.reusedTokens < r.cachedBefore || r.cause).map((r) => r.cause);
const firstOf = (rows: RequestRow[], turn: number) => rows.find((r) => r.turn === turn && r.answers === 'person')!;

describe('history control on a real model', { timeout: 120_000 }, () => {
  it('a rewind reuses the KV cache up to the rewind point, and records the break as "rewind"', async () => {
    f = await engineFixture({ files: { 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 2;\n' } });
    f.replies.push(call(f, 'read', { path: 'a.ts' }), 'One.', call(f, 'read', { path: 'b.ts' }), 'Two.', 'Three.');
    await f.agent.send('Alpha message');
    await f.agent.send('Bravo message');
    await f.agent.send('Charlie message');
    const before = f.agent.requests();
    expect(breaks(before)).toEqual([]);
    // What turn 2's first request found in the cache: everything up to the end of turn 1.
    const rewindPoint = firstOf(before, 2).cachedBefore;

    f.agent.rewindTo(2);
    f.replies.push('Edited.');
    await f.agent.send('Something else entirely');
    const rows = f.agent.requests();
    const after = rows.at(-1)!;
    expect(breaks(rows)).toEqual(['rewind']);
    expect(after.cachedBefore).toBeGreaterThan(after.reusedTokens);
    expect(after.reusedTokens).toBeGreaterThanOrEqual(rewindPoint);
    // Past the rewind point only the new message's opening markup can match.
    expect(after.reusedTokens - rewindPoint).toBeLessThan(8);
    expect(after.firstDiff).toBe(after.reusedTokens);
    const prompt = f.agent.promptText();
    expect(prompt).toContain('Alpha message');
    expect(prompt).not.toMatch(/Bravo|Charlie|Two\.|\[#0002 b\.ts/);
    expect(f.agent.session.turns().map((t) => t.words)).toEqual(['Alpha message', 'Something else entirely']);
  });

  it('deleting an earlier turn keeps the later ones and records the break as "turn deleted"', async () => {
    f = await engineFixture({ files: { 'a.ts': 'x\n' } });
    f.replies.push(call(f, 'read', { path: 'a.ts' }), 'One.', 'Two.');
    await f.agent.send('Alpha message');
    await f.agent.send('Bravo message');
    f.agent.deleteTurn(1);
    f.replies.push('Three.');
    await f.agent.send('Charlie message');
    const rows = f.agent.requests();
    expect(breaks(rows)).toEqual(['turn deleted']);
    expect(rows.at(-1)!.reusedTokens).toBeLessThan(firstOf(rows, 1).promptTokens);
    expect(f.agent.promptText()).not.toMatch(/Alpha|One\.|\[#0001 a\.ts/);
    expect(f.agent.session.turns().map((t) => t.words)).toEqual(['Bravo message', 'Charlie message']);
  });
});
