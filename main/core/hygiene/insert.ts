import { contextConfig, fill } from '../config.js';
import type { FileChange, RawOutput } from '../types.js';
import { splitLines } from '../workspace/text.js';
import { capped } from './cap.js';
import { diffHunks } from './diff.js';
import { formatId } from './ids.js';
import { stableJson } from './stableJson.js';
import type { Inserted, TableEntry } from './types.js';

const texts = contextConfig.texts;
const short = (hash: string) => hash.slice(0, contextConfig.sha_digits);

export interface InsertInput {
  /** The number this result gets (the session's next). */
  number: number;
  tool: string;
  args: unknown;
  raw: RawOutput;
  /** The dedupe table: full results in the request being built, oldest first. */
  table: readonly TableEntry[];
}

/**
 * Spec §1–§6 in one pure function, applied when a result is inserted and never afterwards:
 * the id and bracket, the stub for an unchanged re-read, `Same result as` for a repeated
 * listing, the cap for large output, the recall window, the diff of a change.
 */
export function insertResult({ number, tool, args, raw, table }: InsertInput): Inserted {
  const id = formatId(number);
  switch (raw.kind) {
    case 'read':
      return insertRead(number, raw, table);
    case 'recall':
      return insertRecall(number, raw);
    case 'change':
      return insertChange(number, raw.files);
    case 'error':
      return { number, kind: 'error', ...withBody(`[${id}]`, raw.message, id), body: raw.message };
    case 'text': {
      if (!contextConfig.dedupe.by_result.includes(tool)) {
        return { number, kind: 'full', ...withBody(`[${id}]`, raw.body, id), body: raw.body };
      }
      const argsKey = stableJson(args);
      const same = newest(table, (e) => e.kind === 'result' && e.tool === tool && e.argsKey === argsKey && e.body === raw.body);
      if (same) {
        return { number, kind: 'same', text: `[${id}] ${fill(texts.same_result, { id: formatId(same.number) })}`, body: raw.body };
      }
      return {
        number,
        kind: 'full',
        ...withBody(`[${id}]`, raw.body, id),
        body: raw.body,
        entry: { kind: 'result', number, tool, argsKey, body: raw.body },
      };
    }
  }
}

function insertRead(number: number, raw: Extract<RawOutput, { kind: 'read' }>, table: readonly TableEntry[]): Inserted {
  const id = formatId(number);
  const record = { number, pathGiven: raw.pathGiven, absPath: raw.absPath, hash: raw.hash, start: raw.start, end: raw.end, total: raw.total };
  if (raw.total === 0) {
    return { number, kind: 'full', text: `[${id} ${raw.pathGiven} empty sha ${short(raw.hash)}]`, body: '', read: { ...record, full: true } };
  }
  const bracket = `[${id} ${raw.pathGiven} lines ${raw.start}-${raw.end} of ${raw.total} sha ${short(raw.hash)}]`;
  const body = raw.lines.map((line, i) => `${raw.start + i}: ${line}`).join('\n');
  const earlier = newest(table, (e) => e.kind === 'read' && e.absPath === raw.absPath && e.hash === raw.hash && e.start <= raw.start && raw.end <= e.end);
  if (earlier && earlier.kind === 'read') {
    const sentence = fill(texts.stub, { id: formatId(earlier.number), lines: `${earlier.start}-${earlier.end}` });
    return { number, kind: 'stub', text: `${bracket}\n${sentence}`, body, read: { ...record, full: false } };
  }
  return {
    number,
    kind: 'full',
    text: `${bracket}\n${body}`,
    body,
    entry: { kind: 'read', number, absPath: raw.absPath, hash: raw.hash, start: raw.start, end: raw.end },
    read: { ...record, full: true },
  };
}

function insertRecall(number: number, raw: Extract<RawOutput, { kind: 'recall' }>): Inserted {
  const id = formatId(number);
  if (!raw.target) {
    const body = fill(texts.no_stored_result, { id: raw.label });
    return { number, kind: 'recall', text: `[${id}] ${body}`, body };
  }
  const target = formatId(raw.target.number);
  const lines = splitLines(raw.target.body);
  if (lines.length === 0) return { number, kind: 'recall', text: `[${id} recall ${target} empty]`, body: '' };
  if (raw.offset > lines.length) {
    const body = `Error: offset ${raw.offset} is past the end of ${target}, which has ${lines.length} lines.`;
    return { number, kind: 'error', text: `[${id}]\n${body}`, body };
  }
  const shown = lines.slice(raw.offset - 1, raw.offset - 1 + raw.limit);
  const body = shown.join('\n');
  const last = raw.offset + shown.length - 1;
  return { number, kind: 'recall', text: `[${id} recall ${target} lines ${raw.offset}-${last} of ${lines.length}]\n${body}`, body };
}

function insertChange(number: number, files: FileChange[]): Inserted {
  const id = formatId(number);
  const wrote = files.map((f) => ({ absPath: f.absPath, hash: f.hash }));
  if (files.length === 1) {
    const { bracket, line, hunks } = describeChange(files[0]);
    const head = `[${id} ${bracket}]` + (line ? ` ${line}` : '');
    const shown = hunks === undefined ? { text: head } : withBody(head, hunks, id);
    return { number, kind: 'change', ...shown, body: line ?? hunks ?? '', wrote };
  }
  const body = files
    .map((f) => {
      const { bracket, line, hunks } = describeChange(f);
      return `[${bracket}]` + (line ? ` ${line}` : '') + (hunks === undefined ? '' : `\n${hunks}`);
    })
    .join('\n');
  return { number, kind: 'change', ...withBody(`[${id}]`, body, id), body, wrote };
}

/** A changed file's bracket content, its one-line answer (created, unchanged) or its hunks. */
function describeChange(f: FileChange): { bracket: string; line?: string; hunks?: string } {
  const withSha = `${f.pathGiven} sha ${short(f.hash)}`;
  switch (f.action) {
    case 'deleted':
      return { bracket: `${f.pathGiven} deleted` };
    case 'created':
      return { bracket: withSha, line: fill(texts.created, { count: splitLines(f.after).length }) };
    case 'unchanged':
      return { bracket: withSha, line: texts.unchanged };
    case 'modified':
      return { bracket: withSha, hunks: diffHunks(f.before, f.after) };
  }
}

/** The bracket line, then the body capped (spec §3), with where the elided line stands if it was. */
function withBody(bracket: string, body: string, id: string): Pick<Inserted, 'text' | 'elided'> {
  if (body === '') return { text: bracket };
  const { text, elided } = capped(body, id);
  return { text: `${bracket}\n${text}`, ...(elided ? { elided: { line: elided.at + 1, count: elided.count } } : {}) };
}

function newest(table: readonly TableEntry[], match: (e: TableEntry) => boolean): TableEntry | undefined {
  for (let i = table.length - 1; i >= 0; i--) if (match(table[i])) return table[i];
  return undefined;
}
