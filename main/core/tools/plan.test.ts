import { describe, expect, it } from 'vitest';
import { PLAN_SUBMIT_UNAVAILABLE, planSubmitTool } from './planSubmit.js';
import { planUpdateTool } from './planUpdate.js';
import { formatPlan, planWriteTool } from './planWrite.js';
import { makeContext } from '../../../test/toolContext.js';
import type { RawOutput } from './types.js';

const body = (out: RawOutput): string => {
  if (out.kind !== 'text') throw new Error(`expected text, got ${out.kind}`);
  return out.body;
};

describe('plan_write', () => {
  it('replaces the plan and answers it, todo by default', async () => {
    const ctx = makeContext('/nowhere');
    ctx.setPlan([{ text: 'old', status: 'done' }]);
    const out = await planWriteTool.run({ items: [{ text: 'a' }, { text: 'b', status: 'doing' }, { text: 'c', status: 'done' }] }, ctx);
    expect(body(out)).toBe('1. [ ] a\n2. [~] b\n3. [x] c');
    expect(ctx.plan).toEqual([{ text: 'a', status: 'todo' }, { text: 'b', status: 'doing' }, { text: 'c', status: 'done' }]);
  });

  it('numbers past 9 and accepts an empty plan', async () => {
    const ctx = makeContext('/nowhere');
    const items = Array.from({ length: 11 }, (_, i) => ({ text: `step ${i + 1}` }));
    expect(body(await planWriteTool.run({ items }, ctx)).split('\n')[10]).toBe('11. [ ] step 11');
    expect(body(await planWriteTool.run({ items: [] }, ctx))).toBe('');
    expect(ctx.plan).toEqual([]);
    expect(formatPlan([])).toBe('');
  });
});

describe('plan_update', () => {
  const start = () => {
    const ctx = makeContext('/nowhere');
    ctx.setPlan([{ text: 'a', status: 'todo' }, { text: 'b', status: 'todo' }]);
    return ctx;
  };

  it('changes the status of one item and answers the whole plan', async () => {
    const ctx = start();
    expect(body(await planUpdateTool.run({ index: 2, status: 'doing' }, ctx))).toBe('1. [ ] a\n2. [~] b');
    expect(body(await planUpdateTool.run({ index: 1, status: 'done' }, ctx))).toBe('1. [x] a\n2. [~] b');
  });

  it('changes the text, keeping the status, and both at once', async () => {
    const ctx = start();
    expect(body(await planUpdateTool.run({ index: 1, text: 'A' }, ctx))).toBe('1. [ ] A\n2. [ ] b');
    expect(body(await planUpdateTool.run({ index: 2, text: 'B', status: 'done' }, ctx))).toBe('1. [ ] A\n2. [x] B');
    expect(ctx.plan).toEqual([{ text: 'A', status: 'todo' }, { text: 'B', status: 'done' }]);
  });

  it('refuses an index out of range and leaves the plan alone', async () => {
    const ctx = start();
    const before = ctx.plan;
    await expect(planUpdateTool.run({ index: 3, status: 'done' }, ctx)).rejects.toThrow('Error: the plan has 2 items; there is no item 3.');
    await expect(planUpdateTool.run({ index: 0, status: 'done' }, ctx)).rejects.toThrow('there is no item 0');
    expect(ctx.plan).toBe(before);
    await expect(planUpdateTool.run({ index: 1 }, makeContext('/nowhere'))).rejects.toThrow('the plan has 0 items');
  });
});

describe('plan_submit', () => {
  it('answers the unavailable text outside plan mode', async () => {
    for (const mode of ['auto', 'ask', 'read-only']) {
      const ctx = { ...makeContext('/nowhere'), mode };
      expect(await planSubmitTool.run({ summary: 's' }, ctx)).toEqual({ kind: 'text', body: PLAN_SUBMIT_UNAVAILABLE });
    }
    expect(PLAN_SUBMIT_UNAVAILABLE).toMatch(/plan mode/);
  });
});
