import { describe, expect, it } from 'vitest';
import { estimatedMap, pieceTexts } from './promptMap.js';

describe('the server engine\'s prompt map', () => {
  it('reads llama-server\'s pieces, byte pieces held until they make a character', () => {
    // 🙂 is F0 9F 99 82: split over two byte tokens, as a tokenizer without it in its vocabulary spells it.
    const { text, ends } = pieceTexts([
      { id: 1, piece: '<s>' }, { id: 2, piece: 'hi ' }, { id: 3, piece: [0xf0, 0x9f] }, { id: 4, piece: [0x99, 0x82] }, { id: 5, piece: '!' },
    ]);
    expect(text).toBe('<s>hi 🙂!');
    expect(ends).toEqual([3, 6, 6, 8, 9]);
  });

  it('estimates a token every 4 bytes over the request\'s JSON, as promptTokens does, cached where it shares the previous one', () => {
    const text = '{"messages":[{"content":"ünïcode 🙂 and more"}]}';
    const map = estimatedMap(text, 4);
    expect(map.ends).toHaveLength(Math.ceil(Buffer.byteLength(text) / 4));
    expect(map.ends.at(-1)).toBe(text.length);
    expect(map.ends.every((end, i) => i === 0 || end >= map.ends[i - 1])).toBe(true);
    expect(map).toMatchObject({ exact: false, cached: 0 });
    // 12 bytes shared with the previous request: 3 tokens.
    expect(estimatedMap(text, 4, '{"messages":[]}').cached).toBe(3);
  });
});
