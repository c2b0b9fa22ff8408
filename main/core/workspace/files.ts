import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../hash.js';
import { ToolError, type FileText } from '../types.js';

// The hash lives in ../hash.ts; re-exported for the file tools' importers.
export { sha256 };

const BINARY_PROBE = 8000;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a text file whole. Refuses, naming the absolute path: a missing file, a directory, anything
 * but a regular file (a FIFO would block), a binary file (a NUL byte in its first 8000 bytes) and
 * invalid UTF-8.
 */
export function readTextFile(absPath: string): FileText {
  let raw: Buffer;
  try {
    const st = fs.statSync(absPath);
    if (st.isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR' });
    if (!st.isFile()) throw new ToolError(`Error: ${absPath} is not a regular file; it is not shown.`);
    raw = fs.readFileSync(absPath);
  } catch (err) {
    throw err instanceof ToolError ? err : fileError(absPath, err);
  }
  if (raw.subarray(0, BINARY_PROBE).includes(0)) {
    throw new ToolError(`Error: ${absPath} is a binary file (it contains NUL bytes); it is not shown as text.`);
  }
  let decoded: string;
  try {
    decoded = utf8.decode(raw);
  } catch {
    throw new ToolError(`Error: ${absPath} is not valid UTF-8 text; it is not shown.`);
  }
  const bom = decoded.startsWith('\uFEFF');
  return { absPath, raw, text: bom ? decoded.slice(1) : decoded, bom, hash: sha256(raw) };
}

export function fileError(absPath: string, err: unknown): ToolError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return new ToolError(`Error: ${absPath} does not exist.`);
  if (code === 'EISDIR') return new ToolError(`Error: ${absPath} is a directory, not a file; use list to see its entries.`);
  if (code === 'EACCES' || code === 'EPERM') return new ToolError(`Error: permission denied for ${absPath}.`);
  if (code === 'ENOTDIR') return new ToolError(`Error: a part of ${absPath} is a file, not a directory.`);
  return new ToolError(`Error: ${absPath}: ${(err as Error)?.message ?? String(err)}`);
}

/**
 * Writes a file atomically: a temporary file in the same folder, then rename, so a crash leaves
 * the old content or the new, never a mix. An existing file's mode is kept (a read-only one is
 * refused); parents are created.
 */
export function atomicWrite(absPath: string, data: Buffer | string): void {
  const dir = path.dirname(absPath);
  let mode: number | undefined;
  try {
    const st = fs.statSync(absPath);
    if (st.isDirectory()) throw new ToolError(`Error: ${absPath} is a directory, not a file.`);
    mode = st.mode & 0o7777;
    // The rename below would replace a read-only file: refuse as writing in place would.
    fs.accessSync(absPath, fs.constants.W_OK);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw fileError(absPath, err);
  }
  const tmp = path.join(dir, `.${path.basename(absPath)}.keel-${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    // EEXIST: a part of the folder path is a file.
    throw fileError(absPath, (err as NodeJS.ErrnoException).code === 'EEXIST' ? { code: 'ENOTDIR' } : err);
  }
  try {
    const fd = fs.openSync(tmp, 'wx', mode ?? 0o666);
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (mode !== undefined) fs.chmodSync(tmp, mode);
    fs.renameSync(tmp, absPath);
  } catch (err) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // A failed clean-up must not hide the error that matters.
    }
    throw fileError(absPath, err);
  }
}
