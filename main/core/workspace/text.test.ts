import { describe, expect, it } from 'vitest';
import { countLines, detectEol, splitLines, toLf, withEol } from './text.js';

describe('splitLines (contract: line counting)', () => {
  it('counts a\\nb\\n and a\\nb as 2 lines, and the empty text as none', () => {
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\nb')).toEqual(['a', 'b']);
    expect(splitLines('')).toEqual([]);
    expect([countLines('a\nb\n'), countLines('a\nb'), countLines('')]).toEqual([2, 2, 0]);
  });

  it('keeps empty lines, one newline being one empty line', () => {
    expect(splitLines('\n')).toEqual(['']);
    expect(splitLines('\n\n')).toEqual(['', '']);
    expect(splitLines('a\n\nb\n\n')).toEqual(['a', '', 'b', '']);
  });

  it('strips a \\r before \\n only', () => {
    expect(splitLines('a\r\nb\r\n')).toEqual(['a', 'b']);
    expect(splitLines('a\r\nb')).toEqual(['a', 'b']);
    expect(splitLines('\r\n')).toEqual(['']);
    expect(splitLines('a\rb\r\nc\r')).toEqual(['a\rb', 'c\r']);
    expect(splitLines('a\r\r\n')).toEqual(['a\r']);
  });
});

describe('detectEol', () => {
  it('is CRLF only when most line breaks are CRLF', () => {
    expect(detectEol('')).toBe('\n');
    expect(detectEol('no break')).toBe('\n');
    expect(detectEol('a\nb\n')).toBe('\n');
    expect(detectEol('a\r\nb\r\n')).toBe('\r\n');
    expect(detectEol('a\r\nb\r\nc\n')).toBe('\r\n');
    expect(detectEol('a\r\nb\nc\n')).toBe('\n');
    expect(detectEol('a\r\nb\n')).toBe('\n'); // a tie stays LF
    expect(detectEol('a\rb\rc\n')).toBe('\n'); // a lone CR is no line break
  });
});

describe('toLf and withEol', () => {
  it('turns CRLF into LF, leaving a lone CR', () => {
    expect(toLf('a\r\nb\rc\n')).toBe('a\nb\rc\n');
  });

  it('writes \\n as the given ending, without doubling a CRLF already there', () => {
    expect(withEol('a\nb\n', '\r\n')).toBe('a\r\nb\r\n');
    expect(withEol('a\r\nb\n', '\r\n')).toBe('a\r\nb\r\n');
    expect(withEol('a\nb\r\n', '\n')).toBe('a\nb\r\n');
    expect(withEol('a\rb', '\r\n')).toBe('a\rb');
    expect(withEol(toLf('x\r\ny\r\n'), '\r\n')).toBe('x\r\ny\r\n');
  });
});
