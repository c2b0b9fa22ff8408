/**
 * Opening an MCP configuration file the way a hostile repository cannot abuse: as a regular file
 * of at most `MAX_CONFIG_BYTES`, never a device (`/dev/zero` would fill memory) nor a FIFO (a read
 * would wait forever: it is opened without blocking and refused by what it is), and for a
 * workspace's file never through a link that leads out of the workspace (`.mcp.json -> ~/.netrc`).
 * What the file holds never appears in an error: a JSON error names the line and column only,
 * since Node's own message quotes the text it choked on.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A configuration file is a few kilobytes; 1 MiB leaves room and bounds what a bad one costs. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export type ConfigText =
  | { kind: 'missing' }
  | { kind: 'text'; bytes: Buffer }
  /** Why it cannot be used, a clause after the file's name ("is a FIFO, not a file"); never its content. */
  | { kind: 'refused'; why: string };

/**
 * Reads `file`. With `within` (the workspace root, resolved), the file and every link on its way
 * must stay inside it.
 */
export function readConfigText(file: string, within?: string): ConfigText {
  let real: string;
  try {
    fs.lstatSync(file);
    real = fs.realpathSync.native(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // A dangling link is not "no file": the person should hear that it points nowhere.
      return isLink(file) ? { kind: 'refused', why: 'is a link to a file that does not exist' } : { kind: 'missing' };
    }
    return { kind: 'refused', why: `cannot be read (${code ?? 'error'})` };
  }
  if (within !== undefined && !inside(within, real)) return { kind: 'refused', why: 'is a link to a file outside the workspace, which Keel does not follow' };
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. O_NOFOLLOW: the
    // resolved path checked above is the one opened, not a link swapped in since.
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
  } catch (err) {
    return { kind: 'refused', why: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { kind: 'refused', why: `is ${kindOf(stat)}, not a regular file` };
    if (stat.size > MAX_CONFIG_BYTES) return { kind: 'refused', why: `is ${stat.size} bytes, more than the ${MAX_CONFIG_BYTES} an MCP configuration may be` };
    // Read to the cap + 1 whatever the size said: a file growing while read is still bounded.
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > MAX_CONFIG_BYTES) return { kind: 'refused', why: `is more than the ${MAX_CONFIG_BYTES} bytes an MCP configuration may be` };
    }
    return { kind: 'text', bytes: buffer.subarray(0, length) };
  } catch (err) {
    return { kind: 'refused', why: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    fs.closeSync(fd);
  }
}

/** JSON, or where it stops being JSON (line and column), never the text around it. */
export function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false; why: string } {
  const text = bytes.toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    if (!at) return { ok: false, why: text.trim() === '' ? 'is empty' : 'is not valid JSON' };
    const before = text.slice(0, Number(at[1])).split('\n');
    return { ok: false, why: `is not valid JSON (at line ${before.length}, column ${before[before.length - 1].length + 1})` };
  }
}

/** Whether `target` is `root` or below it (both resolved). */
export function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}
