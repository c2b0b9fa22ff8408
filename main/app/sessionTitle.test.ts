import { describe, expect, it } from 'vitest';
import { sessionTitle, TITLE_LENGTH, titleFromMessage } from './sessionTitle.js';

describe('a session title', () => {
  const row = { title: '', root: '/home/me/ws' };

  it('is the folder before any message, the first message after, the given title always', () => {
    expect(sessionTitle(row, [])).toBe('ws');
    expect(sessionTitle(row, [{ status: 'done', words: '  Fix the parser  ' }, { status: 'done', words: 'Then the tests' }])).toBe('Fix the parser');
    // An undone first message gives way to the next one.
    expect(sessionTitle(row, [{ status: 'undone', words: 'oops' }, { status: 'done', words: 'Fix the lexer' }])).toBe('Fix the lexer');
    expect(sessionTitle({ ...row, title: 'Parser work' }, [{ status: 'done', words: 'Fix the parser' }])).toBe('Parser work');
  });

  it('is short: the first line, spaces collapsed, cut at a word with an ellipsis', () => {
    expect(titleFromMessage('Read   a.txt\nand then tell me')).toBe('Read a.txt');
    const long = 'Please rename every use of the old configuration loader across the whole repository';
    const title = titleFromMessage(long);
    expect(title.length).toBeLessThanOrEqual(TITLE_LENGTH);
    expect(title.endsWith('…')).toBe(true);
    expect(long.startsWith(title.slice(0, -1))).toBe(true);
    expect(title.at(-2)).not.toBe(' ');
    expect(titleFromMessage('x'.repeat(100))).toBe(`${'x'.repeat(TITLE_LENGTH - 1)}…`);
  });
});
