import { nulSplit } from './git.js';
import { writeObject } from './objects.js';

/** A file as git records it: its mode (`100644`, `100755`, `120000` for a link) and blob id. */
export interface Entry {
  mode: string;
  oid: string;
}

export function sameEntry(a: Entry | undefined, b: Entry | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.mode === b.mode && a.oid === b.oid;
}

/** A folder among a folder's entries. */
const FOLDER = null;

/**
 * The recorded workspace held in memory, folder by folder: what git's index would hold, so that a
 * record of a few changed files and the tree of a turn cost no git process. A tree is written in
 * git's own format (main/checkpoints/objects.ts), only for the folders that changed since the last
 * one, so its id is the one `git write-tree` gives for the same files. Every entry's blob is in
 * the store: git wrote it, or the record that set the entry did.
 */
export class TreeMirror {
  /** Each folder's entries by name ('' is the root): a file's entry, or FOLDER. */
  private readonly folders = new Map<string, Map<string, Entry | null>>([['', new Map()]]);
  /** Tree ids already written, by folder; a change drops its folder's and its parents'. */
  private readonly written = new Map<string, string>();

  /** From `git ls-files -s -z` (`MODE OID STAGE\tPATH`) or `git ls-tree -r -z` (`MODE TYPE OID\tPATH`). */
  static parse(listing: Buffer): TreeMirror {
    const m = new TreeMirror();
    for (const line of nulSplit(listing)) {
      const tab = line.indexOf('\t');
      const [mode, second, third] = line.slice(0, tab).split(' ');
      const oid = second.length === 40 ? second : third;
      if (second !== 'tree') m.set(line.slice(tab + 1), { mode, oid });
    }
    return m;
  }

  get(rel: string): Entry | undefined {
    const at = rel.lastIndexOf('/');
    const e = this.folders.get(at < 0 ? '' : rel.slice(0, at))?.get(rel.slice(at + 1));
    return e ?? undefined;
  }

  /** The files recorded under a folder (none where `rel` is not a recorded folder). */
  filesUnder(rel: string): string[] {
    const out: string[] = [];
    for (const [name, e] of this.folders.get(rel) ?? []) {
      const sub = `${rel}/${name}`;
      if (e === FOLDER) out.push(...this.filesUnder(sub));
      else out.push(sub);
    }
    return out;
  }

  /** Every recorded file. */
  entries(): Map<string, Entry> {
    const out = new Map<string, Entry>();
    const visit = (folder: string) => {
      for (const [name, e] of this.folders.get(folder)!) {
        const sub = folder === '' ? name : `${folder}/${name}`;
        if (e === FOLDER) visit(sub);
        else out.set(sub, e);
      }
    };
    visit('');
    return out;
  }

  /**
   * Records a file (`entry`) or its absence (undefined). As in git's index, a file replaces a
   * folder of the same name and a folder a file; a folder left empty is gone.
   */
  set(rel: string, entry: Entry | undefined): void {
    const parts = rel.split('/');
    const name = parts.pop()!;
    if (!entry) {
      const folder = parts.join('/');
      const kids = this.folders.get(folder);
      if (!kids?.has(name)) return;
      if (kids.get(name) === FOLDER) this.dropFolder(rel);
      kids.delete(name);
      this.changed(folder);
      this.prune(folder);
      return;
    }
    let folder = '';
    for (const part of parts) {
      const kids = this.folders.get(folder)!;
      const sub = folder === '' ? part : `${folder}/${part}`;
      if (kids.get(part) !== FOLDER) {
        kids.set(part, FOLDER);
        this.folders.set(sub, new Map());
      }
      folder = sub;
    }
    const kids = this.folders.get(folder)!;
    if (kids.get(name) === FOLDER) this.dropFolder(rel);
    kids.set(name, entry);
    this.changed(folder);
  }

  /** The tree of the recorded workspace, written into the store with every folder tree it lacks. */
  write(gitDir: string, folder = ''): string {
    const done = this.written.get(folder);
    if (done) return done;
    const items = [...this.folders.get(folder)!].map(([name, e]) => ({ name, e, key: Buffer.from(e === FOLDER ? `${name}/` : name) }));
    // git's order: by bytes, a folder's name as if it ended in '/'.
    items.sort((a, b) => Buffer.compare(a.key, b.key));
    const body: Buffer[] = [];
    for (const { name, e } of items) {
      const oid = e === FOLDER ? this.write(gitDir, folder === '' ? name : `${folder}/${name}`) : e.oid;
      body.push(Buffer.from(`${e === FOLDER ? '40000' : e.mode} ${name}\0`), Buffer.from(oid, 'hex'));
    }
    const id = writeObject(gitDir, 'tree', Buffer.concat(body));
    this.written.set(folder, id);
    return id;
  }

  /** A folder's tree and its parents' are no longer the ones written. */
  private changed(folder: string): void {
    for (let f: string | undefined = folder; f !== undefined; f = f === '' ? undefined : parentOf(f)) this.written.delete(f);
  }

  private dropFolder(rel: string): void {
    for (const [name, e] of this.folders.get(rel) ?? []) if (e === FOLDER) this.dropFolder(`${rel}/${name}`);
    this.folders.delete(rel);
    this.written.delete(rel);
  }

  /** Empty folders up from `folder` go, as git keeps no empty folder. */
  private prune(folder: string): void {
    while (folder !== '' && this.folders.get(folder)?.size === 0) {
      this.folders.delete(folder);
      this.written.delete(folder);
      const parent = parentOf(folder);
      this.folders.get(parent)?.delete(folder.slice(parent === '' ? 0 : parent.length + 1));
      folder = parent;
    }
  }
}

function parentOf(folder: string): string {
  const at = folder.lastIndexOf('/');
  return at < 0 ? '' : folder.slice(0, at);
}
