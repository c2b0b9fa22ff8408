import fs from 'node:fs';
import { fileError, sha256 } from '../workspace/files.js';
import { readShown, writeShown, type FileSource } from './fileSource.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { detectEol, toLf, withEol } from '../workspace/text.js';
import { ToolError, type FileChange, type FileText, type ToolContext } from './types.js';

/** A file about to be changed. */
export interface Editable {
  pathGiven: string;
  absPath: string;
  /** undefined when the file does not exist yet. */
  file?: FileText;
  /** The content, BOM removed, line endings as they are (what an edit changes). */
  raw: string;
  /** The content with LF line endings (what the model was shown, and what a diff compares). */
  text: string;
  /** The file's main line ending: what `\n` stands for in the model's text. */
  eol: '\n' | '\r\n';
  /** Nothing is written: the change is only worked out (for an approval's preview). */
  dryRun: boolean;
  /** The editor whose buffers hold the file (keel acp); the disk when unset. */
  files?: FileSource;
}

/**
 * Opens a file for a change. A file the session read or wrote whose content has changed on disk
 * since (another hash; mtime is never consulted) is a conflict: refused, naming the absolute path.
 */
export async function openForChange(ctx: ToolContext, pathGiven: string, mustExist: boolean): Promise<Editable> {
  const absPath = resolveInWorkspace(ctx.root, pathGiven);
  const { files } = ctx;
  if (!fs.existsSync(absPath)) {
    if (mustExist) throw fileError(absPath, Object.assign(new Error(), { code: 'ENOENT' }));
    return { pathGiven, absPath, raw: '', text: '', eol: '\n', dryRun: ctx.dryRun === true, files };
  }
  const file = await readShown(absPath, files);
  const known = ctx.knownHash(absPath);
  if (known !== undefined && known !== file.hash) {
    throw new ToolError(`Error: ${absPath} has changed on disk since this session last read or wrote it; read it again first. Nothing was changed.`);
  }
  const eol = detectEol(file.text);
  return { pathGiven, absPath, file, raw: file.text, text: toLf(file.text), eol, dryRun: ctx.dryRun === true, files };
}

/** Whole new content from the model (write, patch): `\n` stands for the file's line ending. */
export function inFileEol(target: Editable, text: string): string {
  return target.eol === '\r\n' && !text.includes('\r\n') ? withEol(text, '\r\n') : text;
}

/**
 * Writes the new content as given (line endings included), keeping the file's BOM, atomically,
 * and answers what changed. Content equal to what is there writes nothing.
 */
export async function commitChange(target: Editable, newText: string): Promise<FileChange> {
  const { pathGiven, absPath, file } = target;
  const bytes = Buffer.from((file?.bom ? '\uFEFF' : '') + newText, 'utf8');
  const hash = sha256(bytes);
  if (file && hash === file.hash) {
    return { pathGiven, absPath, action: 'unchanged', before: target.text, after: target.text, hash };
  }
  if (!target.dryRun) await writeShown(absPath, bytes, target.files);
  return { pathGiven, absPath, action: file ? 'modified' : 'created', before: target.text, after: toLf(newText), hash };
}

/**
 * One `old_string` → `new_string` replacement in the file's own text. `\n` in either stands for the
 * line ending where it matches: the file's main one first, then the other (a mixed file), so the
 * rest of the file keeps its bytes. Not found, or found more than once without `replaceAll`, is an
 * error naming the absolute path (nothing is written by the caller).
 */
export function replaceIn(target: Editable, text: string, oldString: string, newString: string, replaceAll: boolean): string {
  const absPath = target.absPath;
  const oldLf = toLf(oldString);
  if (oldLf === '') throw new ToolError(`Error: old_string is empty; to create or overwrite ${absPath} use write.`);
  const other: Editable['eol'] = target.eol === '\n' ? '\r\n' : '\n';
  const eol = [target.eol, other].find((e) => text.includes(withEol(oldLf, e)));
  if (eol === undefined) throw new ToolError(`Error: old_string was not found in ${absPath}. Nothing was changed.`);
  const old = withEol(oldLf, eol);
  const replacement = withEol(toLf(newString), oldLf.includes('\n') ? eol : target.eol);
  if (replaceAll) return text.split(old).join(replacement);
  const count = occurrences(text, old);
  if (count > 1) {
    throw new ToolError(`Error: old_string occurs ${count} times in ${absPath}; give more context to make it unique, or set replace_all. Nothing was changed.`);
  }
  const first = text.indexOf(old);
  return text.slice(0, first) + replacement + text.slice(first + old.length);
}

/** How many places `part` starts at in `text`, overlapping ones included (`aa` is twice in `aaa`). */
function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) count++;
  return count;
}
