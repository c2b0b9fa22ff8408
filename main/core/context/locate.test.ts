import { describe, expect, it } from 'vitest';
import { locate } from './locate.js';
import type { Piece } from './outline.js';

const piece = (kind: Piece['kind'], ...texts: string[]): Piece => ({ kind, label: kind, texts });
/** Each piece's characters, as locate gives them out. */
const cut = (text: string, pieces: Piece[], tools?: { from: number; to: number }) => {
  const { spans, found } = locate(text, pieces, tools);
  return { parts: spans.map((s) => text.slice(s.from, s.to)), found };
};

describe('locate', () => {
  it('gives the template text before each found text to it; the text after the last, to a piece not found after it', () => {
    const text = '<s>[SYS]be brief[/SYS][U]hi[/U][A]hello[/A][U]';
    const r = cut(text, [piece('system', 'be brief'), piece('message', 'hi'), piece('reply', 'hello'), piece('next', 'X')]);
    expect(r.parts).toEqual(['<s>[SYS]be brief', '[/SYS][U]hi', '[/U][A]hello', '[/A][U]']);
    expect(r.found).toEqual([true, true, true, false]);
    expect(r.parts.join('')).toBe(text);
    // Found last, the reply takes the rest.
    expect(cut(text, [piece('system', 'be brief'), piece('message', 'hi'), piece('reply', 'hello')]).parts.at(-1)).toBe('[/U][A]hello[/A][U]');
  });

  it('gives a piece not found the template text between its found neighbours', () => {
    const text = '[U]read it[/U][A]<call read>[R]#1 body[/R][U]next';
    const r = cut(text, [piece('message', 'read it'), piece('reply'), piece('call', 'read(a)'), piece('result', '#1 body'), piece('next', 'next')]);
    // The empty reply and the call rendered otherwise: the last of them takes the text between the message and the result.
    expect(r.parts).toEqual(['[U]read it', '', '[/U][A]<call read>[R]', '#1 body', '[/R][U]next']);
    expect(r.found).toEqual([true, false, false, true, true]);
  });

  it('finds the tool list anywhere, keeps the conversation order elsewhere, and cuts the list back where a text reaches into it', () => {
    // A template that writes the tools before the system prompt; the list as found takes two characters of it.
    const text = '[SYS]TOOLS: read, edit. Be brief.[/SYS][U]go';
    const at = text.indexOf('TOOLS');
    const tools = { from: at, to: text.indexOf('Be brief') + 2 };
    const r = cut(text, [piece('system', 'Be brief.'), piece('tools'), piece('message', 'go')], tools);
    expect(r.parts).toEqual(['Be brief.', '[SYS]TOOLS: read, edit. ', '[/SYS][U]go']);
    expect(r.found).toEqual([true, true, true]);
  });

  it('does not take a text found only inside the tool list as the piece', () => {
    const text = '[SYS]sys[T]read: read a file[/T][U]read a file please';
    const tools = { from: text.indexOf('[T]'), to: text.indexOf('[/T]') + 4 };
    const r = cut(text, [piece('system', 'sys'), piece('tools'), piece('message', 'read a file')], tools);
    expect(r.parts).toEqual(['[SYS]sys', '[T]read: read a file[/T]', '[U]read a file please']);
  });
});
