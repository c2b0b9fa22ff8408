import { applyPatch, formatPatch, reversePatch, structuredPatch, type StructuredPatch } from 'diff';
import type { ChangedFile, ChangeKind } from '../core/checkpoints/types.js';
import type { Entry } from './mirror.js';

/** One side of a change: its entry (undefined: no file) and content. */
export interface Side {
  entry?: Entry;
  content?: Buffer;
  large: boolean;
}

/** How one file differs between a base and now, with its diff: undefined where it does not. */
export function describeChange(path: string, base: Side, now: Side, from?: string): ChangedFile | undefined {
  if (from === undefined && !base.large && !now.large && sameSide(base, now)) return undefined;
  const kind: ChangeKind = from !== undefined ? 'renamed'
    : !base.entry && !base.large ? 'created'
    : !now.entry && !now.large ? 'deleted'
    : base.entry && now.entry && base.entry.oid === now.entry.oid ? 'mode' : 'modified';
  const link = base.entry?.mode === '120000' || now.entry?.mode === '120000';
  const binary = isBinary(base.content) || isBinary(now.content);
  const large = base.large || now.large;
  const patch = binary || large ? undefined : filePatch(text(base.content), text(now.content));
  const hunks = patch ? patch.hunks.map((h) => formatHunk(patch, h)) : [];
  return { path, kind, ...(from !== undefined ? { from } : {}), binary, large, link, diff: hunks.join('\n'), hunks };
}

/** The text of `now` with hunk `index` of base→now taken back, the other hunks left. */
export function withoutHunk(base: string, now: string, index: number): string {
  const patch = filePatch(base, now);
  const hunk = patch.hunks[index];
  if (!hunk) throw new RangeError(`there is no hunk ${index + 1} (the file has ${patch.hunks.length})`);
  const one: StructuredPatch = { ...patch, hunks: [hunk] };
  const result = applyPatch(now, reversePatch(one));
  if (result === false) throw new RangeError(`hunk ${index + 1} no longer applies`);
  return result;
}

export function filePatch(before: string, after: string): StructuredPatch {
  return structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3 });
}

/** A hunk as `diff` writes it (contract.md: counts always given, `\ No newline at end of file`). */
export function formatHunk(patch: StructuredPatch, h: StructuredPatch['hunks'][number]): string {
  const text = formatPatch({ ...patch, hunks: [h] });
  return text.slice(text.indexOf('@@')).replace(/\n$/, '');
}

function sameSide(a: Side, b: Side): boolean {
  return a.entry === undefined || b.entry === undefined ? a.entry === b.entry : a.entry.mode === b.entry.mode && a.entry.oid === b.entry.oid;
}

function isBinary(content: Buffer | undefined): boolean {
  return content !== undefined && content.includes(0);
}

function text(content: Buffer | undefined): string {
  return content?.toString('utf8') ?? '';
}
