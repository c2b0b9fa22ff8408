import { describe, expect, it } from 'vitest';
import { recallTool } from './recall.js';
import { makeContext } from '../../../test/toolContext.js';
import type { RawOutput, ToolContext } from './types.js';

const bodies = new Map<number, string>([[1, 'first\nbody'], [0x1a, 'twenty-six']]);
const asked: number[] = [];
const ctx: ToolContext = {
  ...makeContext('/nowhere'),
  storedBody: (n) => (asked.push(n), bodies.get(n)),
};

async function recall(args: { id: string; offset?: number; limit?: number }): Promise<Extract<RawOutput, { kind: 'recall' }>> {
  const out = await recallTool.run(args, ctx);
  if (out.kind !== 'recall') throw new Error('expected a recall');
  return out;
}

describe('recall', () => {
  it('finds number 1 from #1, 1, #0001 and 0001', async () => {
    for (const id of ['#1', '1', '#0001', '0001']) {
      const out = await recall({ id });
      expect(out.target).toEqual({ number: 1, body: 'first\nbody' });
      expect(out.label).toBe(id.startsWith('#') ? id : `#${id}`);
    }
  });

  it('reads the id as hex', async () => {
    expect((await recall({ id: '#001a' })).target).toEqual({ number: 0x1a, body: 'twenty-six' });
    expect((await recall({ id: '1A' })).target?.number).toBe(0x1a);
  });

  it('echoes an unknown id with #, and has no target', async () => {
    expect(await recall({ id: 'ffff' })).toEqual({ kind: 'recall', label: '#ffff', target: undefined, offset: 1, limit: 2000 });
    expect(await recall({ id: '#00ff' })).toMatchObject({ label: '#00ff', target: undefined });
  });

  it('asks nothing for an id that is no number', async () => {
    asked.length = 0;
    const out = await recall({ id: 'zz' });
    expect([out.label, out.target, asked]).toEqual(['#zz', undefined, []]);
    expect((await recall({ id: '#0' })).target).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('passes offset and limit, the limit capped to 2000', async () => {
    expect(await recall({ id: '1', offset: 5, limit: 10 })).toMatchObject({ offset: 5, limit: 10 });
    expect(await recall({ id: '1', limit: 5000 })).toMatchObject({ offset: 1, limit: 2000 });
    expect(await recall({ id: '1' })).toMatchObject({ offset: 1, limit: 2000 });
  });
});
