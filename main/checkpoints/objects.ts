import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * Git objects and refs the shadow repository writes itself, in git's own repository format (a
 * loose object: `TYPE SIZE\0CONTENT`, zlib-deflated, named by its SHA-1; a ref: a file holding
 * the id): a file's content, a tree, a commit of a tree and HEAD set to it cost no git process. Both are written to a
 * temporary file and renamed, so a kill leaves the old one or the new one.
 */
export function writeCommit(gitDir: string, tree: string, parent: string | undefined, when = new Date()): string {
  const stamp = `${Math.floor(when.getTime() / 1000)} +0000`;
  const body = `tree ${tree}\n${parent ? `parent ${parent}\n` : ''}author Keel <keel@localhost> ${stamp}\ncommitter Keel <keel@localhost> ${stamp}\n\nkeel\n`;
  return writeObject(gitDir, 'commit', Buffer.from(body));
}

/** Writes an object where the store lacks it (a blob, a tree, a commit); its id. */
export function writeObject(gitDir: string, type: 'blob' | 'tree' | 'commit', body: Buffer): string {
  const object = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  const oid = crypto.createHash('sha1').update(object).digest('hex');
  const file = path.join(gitDir, 'objects', oid.slice(0, 2), oid.slice(2));
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Named as git names its own temporary objects: a failed write is removed with those.
    replaceFile(path.join(path.dirname(file), `tmp_obj_keel_${process.pid}`), file, zlib.deflateSync(object, { level: 1 }), 0o444);
  }
  return oid;
}

/** Points HEAD (the branch it names) at a commit. */
export function setHead(gitDir: string, commit: string): void {
  const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
  const ref = head.startsWith('ref: ') ? head.slice(5) : 'HEAD';
  if (ref.split('/').some((p) => p === '..' || p === '')) throw new Error(`${path.join(gitDir, 'HEAD')} names no ref Keel writes: ${head}`);
  const file = path.join(gitDir, ref);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Beside the git dir's own files, not among the refs: a kill leaves no half a ref git would read.
  replaceFile(path.join(gitDir, 'keel-ref.tmp'), file, Buffer.from(`${commit}\n`), 0o644);
}

function replaceFile(tmp: string, file: string, data: Buffer, mode: number): void {
  try {
    fs.rmSync(tmp, { force: true }); // a killed writer's
    fs.writeFileSync(tmp, data, { mode });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
