import fs from 'node:fs';
import path from 'node:path';
import { checkpointConfig } from '../core/config.js';
import { CheckpointError, type ChangedFile, type Checkpoints, type RewindPlan } from '../core/checkpoints/types.js';
import { describeChange, withoutHunk, type Side } from './changes.js';
import { CheckpointLog, writeDurably, type LogRecord } from './log.js';
import { sameEntry, type Entry } from './mirror.js';
import { currentEntry, putBack, safePath, type PutBack } from './putBack.js';
import { diskEntry, ShadowRepo, type LargeFiles, type Recorded } from './shadowRepo.js';
import { readBlobs, readEntries } from './reads.js';

export interface GitCheckpointOptions {
  /** The shadow repository's folder (in Keel's data folder, one per session). */
  dir: string;
  /** The workspace root, resolved. */
  root: string;
  /** A new session: the workspace as it is now is its start. */
  fresh: boolean;
  maxFileBytes?: number;
  /** The git binary (tests give one that fails as a full disk does). */
  git?: string;
  /** Whether the workspace watcher tells what changed (default); without it every record walks. */
  watch?: boolean;
}

/** A rewind in flight: written before the first file is touched, removed once it is done. */
interface Journal {
  seq: number;
  ops: PutBack[];
}

type CallRecord = Extract<LogRecord, { t: 'call' }>;
type TurnRecord = Extract<LogRecord, { t: 'turn' | 'start' }>;

/**
 * Checkpoints on a shadow git repository: `git --git-dir=DIR --work-tree=ROOT`, so the
 * workspace's own `.git` (index, refs, config) is never touched, and a workspace that is not a git
 * repository works the same. See the Checkpoints interface for the contract.
 */
export class GitCheckpoints implements Checkpoints {
  private readonly repo: ShadowRepo;
  private readonly log: CheckpointLog;
  private readonly journalFile: string;

  constructor(private readonly o: GitCheckpointOptions) {
    this.repo = new ShadowRepo(o.dir, o.root, o.maxFileBytes ?? checkpointConfig.maxFileBytes, o.git, o.watch ?? true);
    this.log = new CheckpointLog(path.join(o.dir, 'keel-checkpoints.jsonl'));
    this.journalFile = path.join(o.dir, 'keel-rewind.json');
    if (!o.fresh && !this.repo.exists) return; // a session from before checkpoints: recorded from its next turn on
    this.repo.resume(this.log.lastLarge(), this.recorded());
    if (o.fresh) this.record({ t: 'start' }, undefined, 0);
  }

  /** Stops watching the workspace (the session is done with). */
  close(): void {
    this.repo.close();
  }

  turnStarted(seq: number): string | undefined {
    return this.record({ t: 'turn', seq }, undefined, seq);
  }

  beforeCall(seq: number): string | undefined {
    return this.guard(seq, () => void this.repo.snapshot());
  }

  afterCall(seq: number, paths?: readonly string[]): string | undefined {
    const rel = paths?.map((p) => path.relative(this.o.root, p).split(path.sep).join('/')).filter((p) => p !== '' && !p.startsWith('..'));
    return this.record({ t: 'call', seq }, rel, seq);
  }

  recordedTurns(): number[] {
    return this.log.records.flatMap((r) => (r.t === 'turn' ? [r.seq] : []));
  }

  planRewind(seq: number): RewindPlan {
    const { base, windows } = this.since(seq);
    const last = new Map<string, CallRecord>();
    for (const w of windows) for (const p of w.paths) last.set(p, w);
    const paths = [...last.keys()].sort();
    const expected = this.entriesAt(last);
    const before = readEntries(this.repo.git, base.tree, paths);
    const plan: RewindPlan = { restored: [], left: [], large: [] };
    for (const p of paths) {
      if (last.get(p)!.large?.[p] !== undefined || base.large?.[p] !== undefined) {
        plan.large.push(p);
        continue;
      }
      const now = currentEntry(this.o.root, p);
      if (!sameEntry(now, expected.get(p))) plan.left.push(p);
      else if (!sameEntry(now, before.get(p))) plan.restored.push(p);
    }
    return plan;
  }

  rewind(seq: number, takeBack: () => void): RewindPlan {
    const plan = this.planRewind(seq);
    const before = readEntries(this.repo.git, this.since(seq).base.tree, plan.restored);
    const journal: Journal = { seq, ops: plan.restored.map((p) => ({ path: p, ...(before.get(p) ? { entry: before.get(p) } : {}) })) };
    writeDurably(this.journalFile, JSON.stringify(journal));
    this.finish(journal, takeBack);
    return plan;
  }

  recover(takeBack: (seq: number) => void): number | undefined {
    let journal: Journal;
    try {
      journal = JSON.parse(fs.readFileSync(this.journalFile, 'utf8')) as Journal;
    } catch {
      fs.rmSync(`${this.journalFile}.tmp`, { force: true });
      return undefined;
    }
    this.finish(journal, () => takeBack(journal.seq));
    return journal.seq;
  }

  /** Puts the journal's files back, takes the turns back, records it, and ends the journal. */
  private finish(journal: Journal, takeBack: () => void): void {
    const blobs = readBlobs(this.repo.git, journal.ops.flatMap((op) => (op.entry ? [op.entry.oid] : [])));
    // Removals first, deepest first, so a folder made in those turns is gone before a file takes its name.
    const ops = [...journal.ops.filter((op) => !op.entry).reverse(), ...journal.ops.filter((op) => op.entry)];
    for (const op of ops) putBack(this.o.root, op, op.entry && blobs.get(op.entry.oid));
    takeBack();
    this.record({ t: 'call', seq: journal.seq, kind: 'rewind' }, journal.ops.map((op) => op.path), journal.seq);
    fs.rmSync(this.journalFile, { force: true });
  }

  changes(sinceSeq?: number): ChangedFile[] {
    const { base, windows } = this.since(sinceSeq);
    const paths = [...new Set(windows.flatMap((w) => w.paths))].sort();
    const before = readEntries(this.repo.git, base.tree, paths);
    const blobs = readBlobs(this.repo.git, [...before.values()].map((e) => e.oid));
    const sides = paths.map((p) => {
      const now = safePath(this.o.root, p) ? diskEntry(path.join(this.o.root, p)) : undefined;
      const b = before.get(p);
      const baseSide: Side = { entry: b, content: b && blobs.get(b.oid), large: base.large?.[p] !== undefined };
      const nowSide: Side = { entry: now && { mode: now.mode, oid: now.oid }, content: now?.content, large: this.isLarge(p) };
      return { p, baseSide, nowSide };
    });
    // A file deleted and another created with the same content is a rename.
    const gone = new Map(sides.filter((s) => s.baseSide.entry && !s.nowSide.entry && !s.nowSide.large).map((s) => [s.baseSide.entry!.oid, s]));
    const out: ChangedFile[] = [];
    for (const s of sides) {
      const renamedFrom = !s.baseSide.entry && s.nowSide.entry ? gone.get(s.nowSide.entry.oid) : undefined;
      if (renamedFrom) gone.delete(s.nowSide.entry!.oid);
      const c = renamedFrom
        ? describeChange(s.p, renamedFrom.baseSide, s.nowSide, renamedFrom.p)
        : describeChange(s.p, s.baseSide, s.nowSide);
      if (c) out.push(c);
    }
    const renamed = new Set(out.flatMap((c) => (c.from !== undefined ? [c.from] : [])));
    return out.filter((c) => !(c.kind === 'deleted' && renamed.has(c.path)));
  }

  revertFile(rel: string, sinceSeq?: number): void {
    const c = this.changed(rel, sinceSeq);
    if (c.large) throw new CheckpointError(`${path.join(this.o.root, rel)} is over ${checkpointConfig.maxFileBytes} bytes: it was named, not copied, so it cannot be put back.`);
    const { base } = this.since(sinceSeq);
    const paths = c.from !== undefined ? [c.from, rel] : [rel];
    const before = readEntries(this.repo.git, base.tree, paths);
    const blobs = readBlobs(this.repo.git, [...before.values()].map((e) => e.oid));
    this.changeAsSession(paths, () => {
      for (const p of paths) putBack(this.o.root, { path: p, entry: before.get(p) }, before.get(p) && blobs.get(before.get(p)!.oid));
    });
  }

  revertHunk(rel: string, hunk: number, sinceSeq?: number): void {
    const c = this.changed(rel, sinceSeq);
    if (c.binary || c.large || c.hunks.length === 0) throw new CheckpointError(`${path.join(this.o.root, rel)} has no hunks to take back; revert the whole file.`);
    const { base } = this.since(sinceSeq);
    const from = readEntries(this.repo.git, base.tree, [c.from ?? rel]).get(c.from ?? rel);
    const baseText = from ? readBlobs(this.repo.git, [from.oid]).get(from.oid)!.toString('utf8') : '';
    const abs = path.join(this.o.root, rel);
    const now = diskEntry(abs);
    let text: string;
    try {
      text = withoutHunk(baseText, now?.content.toString('utf8') ?? '', hunk);
    } catch (err) {
      throw new CheckpointError(`${abs}: ${(err as Error).message}.`);
    }
    const entry: Entry = { mode: now?.mode ?? '100644', oid: '' };
    this.changeAsSession([rel], () => putBack(this.o.root, { path: rel, entry }, Buffer.from(text)));
  }

  /** A change Keel makes for the person (a revert): recorded as the session's, so a later rewind takes it back too. */
  private changeAsSession(paths: string[], change: () => void): void {
    const seq = this.recordedTurns().at(-1) ?? 0;
    const failed = this.guard(seq, () => void this.repo.snapshot());
    if (failed) throw new CheckpointError(failed);
    change();
    const after = this.record({ t: 'call', seq, kind: 'revert' }, paths, seq);
    if (after) throw new CheckpointError(after);
  }

  private changed(rel: string, sinceSeq?: number): ChangedFile {
    const c = this.changes(sinceSeq).find((f) => f.path === rel);
    if (!c) throw new CheckpointError(`${path.join(this.o.root, rel)} was not changed by this session ${sinceSeq === undefined ? 'since it began' : `since turn ${sinceSeq} began`}.`);
    return c;
  }

  private isLarge(rel: string): boolean {
    const st = fs.lstatSync(path.join(this.o.root, rel), { throwIfNoEntry: false });
    return st !== undefined && st.isFile() && st.size > (this.o.maxFileBytes ?? checkpointConfig.maxFileBytes);
  }

  /**
   * The record a rewind to (or a view since) turn `seq` starts from, and the session's changes
   * after it. Refused where the turn was not recorded or a snapshot since failed.
   */
  private since(seq?: number): { base: TurnRecord; windows: CallRecord[] } {
    const records = this.log.records;
    const at = seq === undefined
      ? records.findIndex((r) => r.t === 'start' || r.t === 'turn')
      : records.findLastIndex((r) => r.t === 'turn' && r.seq === seq);
    if (at < 0) {
      const what = seq === undefined ? 'This session' : `Turn ${seq}`;
      throw new CheckpointError(`${what} cannot be rewound with files: its files were not recorded (the session began before Keel recorded files, or recording it failed). Rewind the conversation only.`);
    }
    const later = records.slice(at + 1);
    const broken = later.find((r) => r.t === 'broken');
    if (broken) throw new CheckpointError(`Turn ${seq ?? 'since the start'} cannot be rewound with files: recording turn ${broken.seq}'s files failed (${broken.reason}). Rewind the conversation only.`);
    return { base: records[at] as TurnRecord, windows: later.filter((r): r is CallRecord => r.t === 'call') };
  }

  /** What each path was after the session's last change to it (absent: no file). */
  private entriesAt(last: Map<string, CallRecord>): Map<string, Entry> {
    const out = new Map<string, Entry>();
    const byTree = new Map<string, string[]>();
    for (const [p, w] of last) {
      if (w.entries) {
        const e = w.entries[p];
        if (e) out.set(p, e);
      } else if (w.tree) byTree.set(w.tree, [...(byTree.get(w.tree) ?? []), p]);
    }
    for (const [tree, paths] of byTree) for (const [p, e] of readEntries(this.repo.git, tree, paths)) out.set(p, e);
    return out;
  }

  /** Takes a snapshot and logs it; a failure is logged as broken and returned as the person's text. */
  private record(r: { t: 'start' } | { t: 'turn'; seq: number } | { t: 'call'; seq: number; kind?: 'rewind' | 'revert' }, paths: string[] | undefined, seq: number): string | undefined {
    return this.guard(seq, () => {
      const s = this.repo.snapshot(paths);
      const large: LargeFiles | undefined = Object.keys(s.large).length > 0 ? s.large : undefined;
      if (r.t === 'call') this.log.append({ ...r, paths: s.changed, entries: this.entriesNow(s.changed, s.large), ...(large ? { large } : {}) });
      else this.log.append({ ...r, tree: this.repo.tree(), ...(large ? { large } : {}) });
    });
  }

  /** The changed paths as recorded now (a large file is named by its signature alone). */
  private entriesNow(paths: readonly string[], large: LargeFiles): Record<string, Entry | null> {
    const out: Record<string, Entry | null> = {};
    for (const p of paths) if (large[p] === undefined) out[p] = this.repo.entry(p) ?? null;
    return out;
  }

  /** The log's last tree and what its later records changed: the workspace as last recorded. */
  private recorded(): Recorded | undefined {
    const records = this.log.records;
    const at = records.findLastIndex((r) => r.t !== 'broken' && r.tree !== undefined);
    if (at < 0) return undefined;
    const after: Recorded['after'] = [];
    for (const r of records.slice(at + 1)) {
      if (r.t !== 'call') continue;
      for (const p of r.paths) after.push([p, r.entries?.[p] ?? undefined]);
    }
    return { tree: (records[at] as { tree: string }).tree, after };
  }

  private guard(seq: number, f: () => void): string | undefined {
    try {
      if (!this.repo.exists) this.repo.init();
      f();
      return undefined;
    } catch (err) {
      const reason = (err as Error).message.split('\n')[0];
      try {
        this.log.append({ t: 'broken', seq, reason });
      } catch {
        // The disk that failed the snapshot may fail this too; the turn goes on either way.
      }
      return reason;
    }
  }
}
