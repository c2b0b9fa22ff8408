import fs from 'node:fs';
import path from 'node:path';
import type { Entry } from './mirror.js';
import type { LargeFiles } from './shadowRepo.js';

/**
 * The checkpoint log: one JSON line per record, appended, in the shadow repository's
 * folder. A line cut by a crash is not a record (it is skipped, and the next append starts on a
 * line of its own).
 *
 *   start   the workspace when the session began
 *   turn    the workspace when turn `seq` began: what a rewind to it puts back
 *   call    one change of the session's (a call of turn `seq`; a rewind's or a revert's putting
 *           back, by `kind`): `paths` changed in it, and `entries` what each was after it (null:
 *           none). A log from before entries has `tree` instead: the workspace after the change.
 *   broken  a snapshot of turn `seq` failed: that turn, and every turn before it, rewinds without files
 */
export type LogRecord =
  | { t: 'start'; tree: string; large?: LargeFiles }
  | { t: 'turn'; seq: number; tree: string; large?: LargeFiles }
  | { t: 'call'; seq: number; paths: string[]; entries?: Record<string, Entry | null>; tree?: string; large?: LargeFiles; kind?: 'rewind' | 'revert' }
  | { t: 'broken'; seq: number; reason: string };

export class CheckpointLog {
  readonly records: LogRecord[] = [];

  constructor(readonly file: string) {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return;
    }
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        this.records.push(JSON.parse(line) as LogRecord);
      } catch {
        // cut by a crash mid-append
      }
    }
  }

  get exists(): boolean {
    return fs.existsSync(this.file);
  }

  append(record: LogRecord): void {
    const line = JSON.stringify(record);
    const fd = fs.openSync(this.file, 'a+');
    try {
      // A line cut by a crash before this one gets its own line break first.
      const size = fs.fstatSync(fd).size;
      // Not synced: a kill loses nothing the system has; a power cut may lose the last records,
      // and a change without its record is then one from outside: left by a rewind, never lost.
      fs.writeSync(fd, `${size > 0 && !this.endsWithNewline(fd, size) ? '\n' : ''}${line}\n`);
    } finally {
      fs.closeSync(fd);
    }
    this.records.push(record);
  }

  private endsWithNewline(fd: number, size: number): boolean {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, size - 1);
    return b[0] === 10;
  }

  lastLarge(): LargeFiles {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i];
      if (r.t !== 'broken') return r.large ?? {};
    }
    return {};
  }
}

/** Writes a file so that a crash leaves the old content or the new one: temp, sync, rename, sync folder. */
export function writeDurably(file: string, data: string): void {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  syncFolder(path.dirname(file));
}

export function syncFolder(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Not every system syncs a folder; the rename is still atomic.
  }
}
