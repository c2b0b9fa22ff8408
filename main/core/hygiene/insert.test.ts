import { describe, expect, it } from 'vitest';
import { insertResult } from './insert.js';
import type { Inserted, TableEntry } from './types.js';
import type { RawOutput } from '../tools/types.js';

const hash = 'ab'.repeat(32);
const read = (start: number, end: number, total = 10, h = hash, absPath = '/w/a.ts'): RawOutput => ({
  kind: 'read', pathGiven: 'a.ts', absPath, hash: h, total, start, end,
  lines: Array.from({ length: end - start + 1 }, (_, i) => `l${start + i}`),
});

describe('insertResult: reads (§1, §2)', () => {
  it('brackets a full read with the path as given, the lines, the length and 8 hex of the hash', () => {
    const r = insertResult({ number: 18, tool: 'read', args: {}, raw: read(1, 2), table: [] });
    expect(r.text).toBe(`[#0012 a.ts lines 1-2 of 10 sha abababab]\n1: l1\n2: l2`);
    expect(r.entry).toEqual({ kind: 'read', number: 18, absPath: '/w/a.ts', hash, start: 1, end: 2 });
  });

  it('stubs a range inside an earlier full read of the same content, naming the newest such read', () => {
    const table: TableEntry[] = [
      { kind: 'read', number: 1, absPath: '/w/a.ts', hash, start: 1, end: 10 },
      { kind: 'read', number: 2, absPath: '/w/a.ts', hash, start: 3, end: 6 },
      { kind: 'read', number: 3, absPath: '/w/b.ts', hash, start: 1, end: 10 },
    ];
    const r = insertResult({ number: 4, tool: 'read', args: {}, raw: read(4, 5), table });
    expect(r.kind).toBe('stub');
    expect(r.text).toBe('[#0004 a.ts lines 4-5 of 10 sha abababab]\nUnchanged since #0002, which already shows lines 3-6.');
    expect(r.body).toBe('4: l4\n5: l5');
    expect(r.entry).toBeUndefined();
  });

  it('reads in full when the range reaches past the earlier read or the hash differs', () => {
    const table: TableEntry[] = [{ kind: 'read', number: 1, absPath: '/w/a.ts', hash, start: 1, end: 5 }];
    expect(insertResult({ number: 2, tool: 'read', args: {}, raw: read(4, 6), table }).kind).toBe('full');
    expect(insertResult({ number: 2, tool: 'read', args: {}, raw: read(1, 2, 10, 'cd'.repeat(32)), table }).kind).toBe('full');
  });

  it('answers an empty file in full, always', () => {
    const raw: RawOutput = { kind: 'read', pathGiven: 'e.txt', absPath: '/w/e.txt', hash: 'e3b0c442' + '0'.repeat(56), total: 0, start: 1, end: 0, lines: [] };
    const r = insertResult({ number: 1, tool: 'read', args: {}, raw, table: [] });
    expect(r.text).toBe('[#0001 e.txt empty sha e3b0c442]');
    expect(r.read?.full).toBe(true);
  });
});

describe('insertResult: listings (§6) and other output', () => {
  const body = '/w/a.ts\n/w/b.ts';
  const table: TableEntry[] = [{ kind: 'result', number: 5, tool: 'glob', argsKey: '{"path":"src","pattern":"*"}', body }];

  it('answers the same arguments (any key order) and the same text with Same result as', () => {
    const r = insertResult({ number: 6, tool: 'glob', args: { pattern: '*', path: 'src' }, raw: { kind: 'text', body }, table });
    expect(r.text).toBe('[#0006] Same result as #0005.');
    expect(r.body).toBe(body);
  });

  it('answers in full when the text changed, and never deduplicates other tools', () => {
    expect(insertResult({ number: 6, tool: 'glob', args: { pattern: '*', path: 'src' }, raw: { kind: 'text', body: 'x' }, table }).kind).toBe('full');
    const bashTable: TableEntry[] = [{ kind: 'result', number: 1, tool: 'bash', argsKey: '{"command":"ls"}', body: 'x' }];
    expect(insertResult({ number: 2, tool: 'bash', args: { command: 'ls' }, raw: { kind: 'text', body: 'x' }, table: bashTable }).text).toBe('[#0002]\nx');
  });

  it('gives an empty output its id alone and ids past #ffff five digits', () => {
    expect(insertResult({ number: 0x10000, tool: 'bash', args: {}, raw: { kind: 'text', body: '' }, table: [] }).text).toBe('[#10000]');
  });
});

describe('insertResult: recall (§4)', () => {
  it('shows a window of the stored body without line numbers', () => {
    const raw: RawOutput = { kind: 'recall', label: '#3', target: { number: 3, body: 'a\nb\nc' }, offset: 2, limit: 2000 };
    expect(insertResult({ number: 4, tool: 'recall', args: {}, raw, table: [] }).text).toBe('[#0004 recall #0003 lines 2-3 of 3]\nb\nc');
  });

  it('echoes an unknown id as given', () => {
    const raw: RawOutput = { kind: 'recall', label: '#ffff', offset: 1, limit: 2000 };
    expect(insertResult({ number: 21, tool: 'recall', args: {}, raw, table: [] }).text).toBe('[#0015] No stored result #ffff in this session.');
  });

  it('answers an empty stored body as empty', () => {
    const raw: RawOutput = { kind: 'recall', label: '#1', target: { number: 1, body: '' }, offset: 1, limit: 2000 };
    expect(insertResult({ number: 2, tool: 'recall', args: {}, raw, table: [] }).text).toBe('[#0002 recall #0001 empty]');
  });
});

describe('insertResult: changes (§5)', () => {
  const file = (action: 'created' | 'modified' | 'deleted' | 'unchanged', pathGiven: string, before = '', after = '') =>
    ({ pathGiven, absPath: `/w/${pathGiven}`, action, before, after, hash: action === 'deleted' ? '' : '7d0a91c3'.padEnd(64, '0') });

  it('answers an edit with its hunks under a bracket with the new hash', () => {
    const r = insertResult({ number: 1, tool: 'edit', args: {}, raw: { kind: 'change', files: [file('modified', 'a.ts', 'x\ny\n', 'x\nz\n')] }, table: [] });
    expect(r.text).toBe('[#0001 a.ts sha 7d0a91c3]\n@@ -1,2 +1,2 @@\n x\n-y\n+z');
  });

  it('lays out a patch over several files in order', () => {
    const files = [file('modified', 'a.ts', 'a\n', 'b\n'), file('created', 'new.md', '', '1\n2\n'), file('deleted', 'old.md', 'q\n')];
    const r = insertResult({ number: 37, tool: 'apply_patch', args: {}, raw: { kind: 'change', files }, table: [] });
    expect(r.text).toBe('[#0025]\n[a.ts sha 7d0a91c3]\n@@ -1,1 +1,1 @@\n-a\n+b\n[new.md sha 7d0a91c3] Created, 2 lines.\n[old.md deleted]');
    expect(r.wrote).toEqual([
      { absPath: '/w/a.ts', hash: files[0].hash }, { absPath: '/w/new.md', hash: files[1].hash }, { absPath: '/w/old.md', hash: '' },
    ]);
  });

  it('answers one-line changes on one line', () => {
    const one = (f: ReturnType<typeof file>) => insertResult({ number: 2, tool: 'write', args: {}, raw: { kind: 'change', files: [f] }, table: [] });
    expect(one(file('created', 'n.md', '', 'a\nb')).text).toBe('[#0002 n.md sha 7d0a91c3] Created, 2 lines.');
    expect(one(file('deleted', 'o.md')).text).toBe('[#0002 o.md deleted]');
    expect(one(file('unchanged', 'u.md', 'a', 'a')).text).toBe('[#0002 u.md sha 7d0a91c3] Unchanged.');
  });
});

describe('insertResult: where a capped text is elided (§3), known as it is made', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');
  const modified = (before: string, after: string) => ({ pathGiven: 'a.ts', absPath: '/w/a.ts', action: 'modified' as const, before, after, hash: '7d0a91c3'.padEnd(64, '0') });

  it('names the elided line and its count for output, errors and diffs: the line the text holds, the count of lines it lacks', () => {
    const outputs: Inserted[] = [
      insertResult({ number: 1, tool: 'bash', args: {}, raw: { kind: 'text', body: lines(1000) }, table: [] }),
      insertResult({ number: 2, tool: 'bash', args: {}, raw: { kind: 'error', message: lines(500) }, table: [] }),
      insertResult({ number: 3, tool: 'edit', args: {}, raw: { kind: 'change', files: [modified(lines(900) + '\n', '')] }, table: [] }),
    ];
    for (const r of outputs) {
      const text = r.text.split('\n');
      const id = `#000${r.number}`;
      expect(text[r.elided!.line]).toBe(`[${r.elided!.count} lines elided, full output ${id}]`);
      expect(text.length - 2 + r.elided!.count).toBe(r.body.split('\n').length);
    }
    expect(outputs[0].elided).toEqual({ line: 201, count: 700 });
  });

  it('names none where nothing was cut', () => {
    expect(insertResult({ number: 1, tool: 'bash', args: {}, raw: { kind: 'text', body: lines(400) }, table: [] }).elided).toBeUndefined();
    expect(insertResult({ number: 2, tool: 'bash', args: {}, raw: { kind: 'text', body: '' }, table: [] }).elided).toBeUndefined();
  });
});
