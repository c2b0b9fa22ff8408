import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolConfig } from '../config.js';
import { searchTool, type SearchArgs } from './search.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';

let ws: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({
    'b.txt': 'config config CONFIG',
    'a.txt': 'Config, config; config.',
    'config.md': '',
    'z.txt': 'config '.repeat(12),
    'other.txt': 'nothing here',
    'node_modules/config.js': 'config',
    'logo-config.png': Buffer.from([0, 1, 2]),
  });
});
afterEach(() => ws.remove());

const body = async (args: SearchArgs): Promise<string> => {
  const out = await searchTool.run(args, makeContext(ws.root));
  if (out.kind !== 'text') throw new Error('expected text');
  return out.body;
};

describe('search', () => {
  it('ranks by score (name x10, content x1), ties by path, zero scores left out', async () => {
    const r = ws.root;
    expect(await body({ query: 'CONFIG' })).toBe(
      [
        `${r}/z.txt (score 12)`,
        `${r}/config.md (score 10)`,
        `${r}/logo-config.png (score 10)`,
        `${r}/a.txt (score 3)`,
        `${r}/b.txt (score 3)`,
      ].join('\n'),
    );
  });

  it('adds up every word of the query', async () => {
    expect(await body({ query: 'nothing  here', path: 'other.txt' })).toBe(`${ws.root}/other.txt (score 2)`);
  });

  it(`shows at most ${toolConfig.search.max_results} files`, async () => {
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`many/f${i}.txt`, 'needle']));
    ws.remove();
    ws = makeTempRoot(many);
    expect((await body({ query: 'needle' })).split('\n')).toHaveLength(toolConfig.search.max_results);
  });

  it('answers no match, and refuses a query without words', async () => {
    expect(await body({ query: 'absent' })).toBe(`No files match absent in ${ws.root}.`);
    await expect(body({ query: '   ' })).rejects.toThrow(/^Error: /);
  });
});
