import fs from 'node:fs';
import { atomicWrite, fileError, readTextFile, sha256 } from '../workspace/files.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { detectEol, toLf, withEol } from '../workspace/text.js';
import { ToolError, type FileChange, type FileText, type ToolContext } from './types.js';

/** A file about to be changed, as the model sees it: LF line endings, no BOM. */
export interface Editable {
  pathGiven: string;
  absPath: string;
  /** undefined when the file does not exist yet. */
  file?: FileText;
  /** The content with LF line endings (what `old_string` is matched against). */
  text: string;
  eol: '\n' | '\r\n';
}

/**
 * Opens a file for a change. A file the session read or wrote whose content has changed on disk
 * since (another hash; mtime is never consulted) is a conflict: refused, naming the absolute path.
 */
export function openForChange(ctx: ToolContext, pathGiven: string, mustExist: boolean): Editable {
  const absPath = resolveInWorkspace(ctx.root, pathGiven);
  if (!fs.existsSync(absPath)) {
    if (mustExist) throw fileError(absPath, Object.assign(new Error(), { code: 'ENOENT' }));
    return { pathGiven, absPath, text: '', eol: '\n' };
  }
  const file = readTextFile(absPath);
  const known = ctx.knownHash(absPath);
  if (known !== undefined && known !== file.hash) {
    throw new ToolError(`Error: ${absPath} has changed on disk since this session last read or wrote it; read it again first. Nothing was changed.`);
  }
  const eol = detectEol(file.text);
  return { pathGiven, absPath, file, text: toLf(file.text), eol };
}

/**
 * Writes the new LF text in the file's own line ending, keeping its BOM, atomically, and answers
 * what changed. Content equal to what is there writes nothing.
 */
export function commitChange(target: Editable, newText: string): FileChange {
  const { pathGiven, absPath, file } = target;
  const bytes = Buffer.from((file?.bom ? '\uFEFF' : '') + withEol(newText, target.eol), 'utf8');
  const hash = sha256(bytes);
  if (file && hash === file.hash) {
    return { pathGiven, absPath, action: 'unchanged', before: target.text, after: target.text, hash };
  }
  atomicWrite(absPath, bytes);
  return { pathGiven, absPath, action: file ? 'modified' : 'created', before: target.text, after: toLf(newText), hash };
}

/**
 * One `old_string` → `new_string` replacement on LF text. Not found, or found more than once
 * without `replaceAll`, is an error naming the absolute path (nothing is written by the caller).
 */
export function replaceIn(text: string, oldString: string, newString: string, replaceAll: boolean, absPath: string): string {
  const old = toLf(oldString);
  if (old === '') throw new ToolError(`Error: old_string is empty; to create or overwrite ${absPath} use write.`);
  const first = text.indexOf(old);
  if (first < 0) throw new ToolError(`Error: old_string was not found in ${absPath}. Nothing was changed.`);
  const replacement = toLf(newString);
  if (replaceAll) return text.split(old).join(replacement);
  const count = occurrences(text, old);
  if (count > 1) {
    throw new ToolError(`Error: old_string occurs ${count} times in ${absPath}; give more context to make it unique, or set replace_all. Nothing was changed.`);
  }
  return text.slice(0, first) + replacement + text.slice(first + old.length);
}

/** How many places `part` starts at in `text`, overlapping ones included (`aa` is twice in `aaa`). */
function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) count++;
  return count;
}
