import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { CheckpointError } from '../core/checkpoints/types.js';
import { makeTempRoot } from '../../test/toolContext.js';
import { snapshotTree } from '../../test/outsideTree.js';
import { treeFiles } from '../../test/treeDigest.js';
import { GitCheckpoints } from './gitCheckpoints.js';

const sh = (root: string, script: string) => execFileSync('sh', ['-c', script], { cwd: root });

/** Each test runs with the workspace watcher telling what changed, and without it (every record walks). */
let watch = true;
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

function setup(files: Record<string, string | Buffer> = {}, o: { maxFileBytes?: number; dataDir?: string; links?: string } = {}) {
  const ws = makeTempRoot(files);
  if (o.links) sh(ws.root, o.links);
  const data = o.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'keel-cp-data-'));
  cleanups.push(() => ws.remove());
  if (!o.dataDir) cleanups.push(() => fs.rmSync(data, { recursive: true, force: true }));
  const dir = path.join(data, 'checkpoints', 'session-1');
  const open = (fresh: boolean) => new GitCheckpoints({ dir, root: ws.root, fresh, maxFileBytes: o.maxFileBytes, watch });
  return { root: ws.root, dir, open, cp: open(true) };
}


describe.each([{ watching: true }, { watching: false }])('GitCheckpoints, watcher $watching', ({ watching }) => {
  beforeAll(() => {
    watch = watching;
  });

  test('a rewind puts back what commands did: edits, creations, deletions, renames, mode bits, links', () => {
    const { root, cp } = setup({ 'a.txt': 'one\ntwo\n', 'b.txt': 'bee\n', 'sub/c.txt': 'sea\n', 'run.sh': 'echo hi\n' }, { links: 'ln -s a.txt link-a' });
    const before = treeFiles(root);
    cp.turnStarted(1);
    cp.beforeCall(1);
    sh(root, "sed -i 's/two/TWO/' a.txt && rm b.txt && mv sub/c.txt sub/d.txt && chmod +x run.sh && mkdir -p new/deep && echo n > new/deep/n.txt && rm link-a && ln -s sub link-a");
    cp.afterCall(1);
    expect(cp.changes().map((c) => [c.path, c.kind])).toEqual([
      ['a.txt', 'modified'], ['b.txt', 'deleted'], ['link-a', 'modified'], ['new/deep/n.txt', 'created'], ['run.sh', 'mode'], ['sub/d.txt', 'renamed'],
    ]);
    const plan = cp.rewind(1, () => {});
    expect(plan.left).toEqual([]);
    expect(plan.restored).toEqual(['a.txt', 'b.txt', 'link-a', 'new/deep/n.txt', 'run.sh', 'sub/c.txt', 'sub/d.txt']);
    expect(treeFiles(root)).toEqual(before);
    expect(fs.existsSync(path.join(root, 'new'))).toBe(false);
  });

  test("the workspace's own .git is never touched: index, refs, config, every file's bytes and times", () => {
    const { root, open } = setup({ 'a.txt': 'one\n', '.gitignore': 'ignored/\n' });
    sh(root, 'git init -q && git -c user.name=t -c user.email=t@t add -A && git -c user.name=t -c user.email=t@t commit -qm first && echo two >> a.txt');
    const gitBefore = snapshotTree(path.join(root, '.git'));
    const cp = open(true);
    cp.turnStarted(1);
    cp.beforeCall(1);
    sh(root, 'echo three >> a.txt && echo x > b.txt');
    cp.afterCall(1);
    cp.rewind(1, () => {});
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(snapshotTree(path.join(root, '.git'))).toEqual(gitBefore);
    expect(cp.changes().map((c) => c.path)).not.toContain('.git/index');
  });

  test('files git ignores are not tracked: changed, they stay as they are', () => {
    const { root, cp } = setup({ '.gitignore': 'node_modules/\n*.log\n', 'node_modules/p/i.js': 'old\n', 'src.ts': 'x\n' });
    cp.turnStarted(1);
    cp.beforeCall(1);
    sh(root, 'echo new > node_modules/p/i.js && echo log > out.log && echo y > src.ts');
    cp.afterCall(1);
    expect(cp.rewind(1, () => {}).restored).toEqual(['src.ts']);
    expect(fs.readFileSync(path.join(root, 'node_modules/p/i.js'), 'utf8')).toBe('new\n');
    expect(fs.readFileSync(path.join(root, 'out.log'), 'utf8')).toBe('log\n');
  });

  test('a file changed from outside after the session last changed it is left and named; the others go back', () => {
    const { root, cp } = setup({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    cp.turnStarted(1);
    fs.writeFileSync(path.join(root, 'a.txt'), 'session a\n');
    fs.writeFileSync(path.join(root, 'b.txt'), 'session b\n');
    cp.afterCall(1, [path.join(root, 'a.txt'), path.join(root, 'b.txt')]);
    cp.turnStarted(2);
    fs.writeFileSync(path.join(root, 'b.txt'), 'outside b\n');
    fs.writeFileSync(path.join(root, 'c.txt'), 'outside c\n');
    const plan = cp.rewind(1, () => {});
    expect(plan).toEqual({ restored: ['a.txt'], left: ['b.txt'], large: [] });
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('outside b\n');
    expect(fs.readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('outside c\n');
  });

  test('an outside change between two calls is not the session\'s', () => {
    const { root, cp } = setup({ 'a.txt': 'a\n' });
    cp.turnStarted(1);
    cp.beforeCall(1);
    sh(root, 'echo s > s.txt');
    cp.afterCall(1);
    fs.writeFileSync(path.join(root, 'o.txt'), 'outside\n');
    cp.beforeCall(1);
    sh(root, 'echo s2 >> s.txt');
    cp.afterCall(1);
    expect(cp.rewind(1, () => {}).restored).toEqual(['s.txt']);
    expect(fs.existsSync(path.join(root, 'o.txt'))).toBe(true);
    expect(fs.existsSync(path.join(root, 's.txt'))).toBe(false);
  });

  test("a file tool's paths: an ignored one is not recorded, a deleted one comes back, one never recorded and gone is no error", () => {
    const { root, cp } = setup({ '.gitignore': 'out/\n', 'a.txt': 'a\n', 'gone.txt': 'gone\n' });
    cp.turnStarted(1);
    fs.mkdirSync(path.join(root, 'out'));
    fs.writeFileSync(path.join(root, 'out/build.js'), 'built\n');
    fs.writeFileSync(path.join(root, 'a.txt'), 'A\n');
    fs.rmSync(path.join(root, 'gone.txt'));
    const abs = (p: string) => path.join(root, p);
    expect(cp.afterCall(1, [abs('out/build.js'), abs('a.txt'), abs('gone.txt'), abs('never.txt')])).toBeUndefined();
    expect(cp.changes().map((c) => [c.path, c.kind])).toEqual([['a.txt', 'modified'], ['gone.txt', 'deleted']]);
    expect(cp.rewind(1, () => {}).restored).toEqual(['a.txt', 'gone.txt']);
    expect(fs.readFileSync(abs('a.txt'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(abs('gone.txt'), 'utf8')).toBe('gone\n');
    expect(fs.readFileSync(abs('out/build.js'), 'utf8')).toBe('built\n');
  });

  test("a file tool's file that grew over the limit is named, taken out of the record, and left by a rewind", () => {
    const { root, cp } = setup({ 'data.bin': 'small\n' }, { maxFileBytes: 1000 });
    cp.turnStarted(1);
    fs.writeFileSync(path.join(root, 'data.bin'), 'changed\n');
    expect(cp.afterCall(1, [path.join(root, 'data.bin')])).toBeUndefined();
    // The index now holds a content neither HEAD (the turn's start) nor the file has: taken out all the same.
    fs.writeFileSync(path.join(root, 'data.bin'), Buffer.alloc(5000, 1));
    expect(cp.afterCall(1, [path.join(root, 'data.bin')])).toBeUndefined();
    expect(cp.rewind(1, () => {})).toEqual({ restored: [], left: [], large: ['data.bin'] });
    expect(fs.statSync(path.join(root, 'data.bin')).size).toBe(5000);
  });

  test('a shadow repository from before HEAD commits and call entries (calls logged with trees) reopens and rewinds exactly', () => {
    const { root, dir, open } = setup({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', dir, '--work-tree', root, ...args], { env, cwd: root }).toString().trim();
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    git('init', '-q');
    git('add', '-A');
    const start = git('write-tree');
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed\n');
    fs.writeFileSync(path.join(root, 'c.txt'), 'new\n');
    git('add', '-A');
    const after = git('write-tree');
    const log = [{ t: 'start', tree: start }, { t: 'turn', seq: 1, tree: start }, { t: 'call', seq: 1, tree: after, paths: ['a.txt', 'c.txt'] }];
    fs.writeFileSync(path.join(dir, 'keel-checkpoints.jsonl'), log.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const cp = open(false);
    expect(cp.recordedTurns()).toEqual([1]);
    expect(cp.turnStarted(2)).toBeUndefined();
    cp.beforeCall(2);
    sh(root, 'echo bee > b.txt');
    expect(cp.afterCall(2)).toBeUndefined();
    expect(cp.changes(2).map((c) => c.path)).toEqual(['b.txt']);
    expect(cp.rewind(1, () => {})).toEqual({ restored: ['a.txt', 'b.txt', 'c.txt'], left: [], large: [] });
    expect(treeFiles(root)).toEqual(new Map([['a.txt', expect.stringMatching(/^file - /)], ['b.txt', expect.stringMatching(/^file - /)]]));
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
  });

  test("HEAD is a chain of commits of the turns' trees, written by Keel, that git itself reads and checks", () => {
    const { root, dir, cp } = setup({ 'a.txt': 'a\n' });
    for (const seq of [1, 2, 3]) {
      cp.turnStarted(seq);
      fs.writeFileSync(path.join(root, 'a.txt'), `turn ${seq}\n`);
      cp.afterCall(seq, [path.join(root, 'a.txt')]);
    }
    cp.turnStarted(4);
    const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', dir, ...args], { env }).toString();
    const records = fs.readFileSync(path.join(dir, 'keel-checkpoints.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: string; tree?: string });
    const trees = records.filter((r) => r.t === 'start' || r.t === 'turn').map((r) => r.tree!);
    expect(trees).toHaveLength(5);
    // Newest first: one commit for each tree a turn began with (turn 1 began as the session did).
    expect(git('log', '--format=%T', 'HEAD').trim().split('\n')).toEqual([...new Set(trees)].reverse());
    expect(new Set(trees).size).toBe(4);
    git('fsck', '--strict', '--no-dangling');
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('binary files go back byte for byte; a file over the limit is named, never copied', () => {
    const bin = Buffer.from([0, 1, 2, 255, 0, 10, 13]);
    const { root, dir, cp } = setup({ 'img.bin': bin }, { maxFileBytes: 1000 });
    cp.turnStarted(1);
    cp.beforeCall(1);
    fs.writeFileSync(path.join(root, 'img.bin'), Buffer.from([9, 0, 9]));
    fs.writeFileSync(path.join(root, 'big.dat'), Buffer.alloc(5000, 7));
    cp.afterCall(1);
    const changes = cp.changes();
    expect(changes.find((c) => c.path === 'img.bin')).toMatchObject({ binary: true, diff: '' });
    expect(changes.find((c) => c.path === 'big.dat')).toMatchObject({ large: true, kind: 'created' });
    const plan = cp.rewind(1, () => {});
    expect(plan).toEqual({ restored: ['img.bin'], left: [], large: ['big.dat'] });
    expect(fs.readFileSync(path.join(root, 'img.bin')).equals(bin)).toBe(true);
    expect(fs.existsSync(path.join(root, 'big.dat'))).toBe(true);
    const blobs = execFileSync('git', ['--git-dir', dir, 'cat-file', '--batch-all-objects', '--batch-check'], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();
    expect(blobs).not.toMatch(/blob 5000\n/);
  });

  test('a link out of the workspace is recorded as a link and never followed, also when put back', () => {
    const outside = makeTempRoot({ 'secret.txt': 'secret\n' });
    cleanups.push(() => outside.remove());
    const { root, dir, cp } = setup({ 'a.txt': 'a\n' }, { links: `ln -s ${outside.root} out && ln -s ${outside.root}/secret.txt s.txt` });
    cp.turnStarted(1);
    cp.beforeCall(1);
    sh(root, 'rm s.txt && echo local > s.txt && rm out && mkdir out && echo mine > out/secret.txt');
    cp.afterCall(1);
    cp.rewind(1, () => {});
    expect(fs.readlinkSync(path.join(root, 's.txt'))).toBe(`${outside.root}/secret.txt`);
    expect(fs.readlinkSync(path.join(root, 'out'))).toBe(outside.root);
    expect(fs.readFileSync(path.join(outside.root, 'secret.txt'), 'utf8')).toBe('secret\n');
    const objects = execFileSync('git', ['--git-dir', dir, 'cat-file', '--batch-all-objects', '--batch'], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();
    expect(objects).not.toContain('secret\n');
  });

  test('a session from before checkpoints rewinds conversation only, and says so', () => {
    const { open } = setup({ 'a.txt': 'a\n' });
    const legacy = open(false);
    expect(() => legacy.planRewind(1)).toThrow(CheckpointError);
    expect(() => legacy.planRewind(1)).toThrow(/Turn 1 cannot be rewound with files: its files were not recorded \(the session began before Keel recorded files/);
    expect(legacy.turnStarted(2)).toBeUndefined();
    expect(legacy.planRewind(2)).toEqual({ restored: [], left: [], large: [] });
  });

  test('a kill after the journal was written is finished on the next open: the workspace ends after, and the turns go', () => {
    const { root, open, cp } = setup({ 'a.txt': 'a\n' });
    cp.turnStarted(1);
    cp.beforeCall(1);
    sh(root, 'echo b > a.txt && echo n > n.txt');
    cp.afterCall(1);
    expect(() => cp.rewind(1, () => {
      throw new Error('killed');
    })).toThrow('killed');
    const reopened = open(false);
    const taken: number[] = [];
    expect(reopened.recover((seq) => taken.push(seq))).toBe(1);
    expect(taken).toEqual([1]);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(fs.existsSync(path.join(root, 'n.txt'))).toBe(false);
    expect(reopened.recover(() => {})).toBeUndefined();
  });

  test('revert hunk takes back one hunk and leaves the others; the revert is recorded', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const { root, cp } = setup({ 'f.txt': lines.join('\n') + '\n' });
    cp.turnStarted(1);
    const changed = [...lines];
    changed[1] = 'CHANGED 2';
    changed[25] = 'CHANGED 26';
    fs.writeFileSync(path.join(root, 'f.txt'), changed.join('\n') + '\n');
    cp.afterCall(1, [path.join(root, 'f.txt')]);
    const [file] = cp.changes();
    expect(file.hunks).toHaveLength(2);
    cp.revertHunk('f.txt', 0);
    const now = fs.readFileSync(path.join(root, 'f.txt'), 'utf8');
    expect(now).toContain('line 2\n');
    expect(now).toContain('CHANGED 26\n');
    cp.revertFile('f.txt');
    expect(fs.readFileSync(path.join(root, 'f.txt'), 'utf8')).toBe(lines.join('\n') + '\n');
    expect(cp.changes()).toEqual([]);
    expect(() => cp.revertFile('f.txt')).toThrow(/was not changed by this session since it began/);
  });

  test.skipIf(process.getuid?.() === 0)('an unreadable file is left out of the record, and the rest recorded', () => {
    const { root, cp } = setup({ 'a.txt': 'a\n' });
    cp.turnStarted(1);
    cp.beforeCall(1);
    sh(root, 'echo x > locked.txt && chmod 000 locked.txt && echo b > a.txt');
    expect(cp.afterCall(1)).toBeUndefined();
    expect(cp.rewind(1, () => {}).restored).toEqual(['a.txt']);
  });

  test.skipIf(process.getuid?.() !== 0 || process.platform !== 'linux')('a disk that fills during a snapshot: the reason comes back, and that turn rewinds without files', () => {
    const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-cp-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=600k', 'tmpfs', mount]);
    cleanups.push(() => fs.rmSync(mount, { recursive: true, force: true }), () => execFileSync('umount', [mount]));
    const { root, cp } = setup({ 'a.txt': 'a\n' }, { dataDir: mount });
    expect(cp.turnStarted(1)).toBeUndefined();
    cp.beforeCall(1);
    // Random bytes do not compress: the blob cannot fit in what is left.
    fs.writeFileSync(path.join(root, 'blob.bin'), Buffer.from(Array.from({ length: 900_000 }, () => Math.floor(Math.random() * 256))));
    const failed = cp.afterCall(1);
    expect(failed).toMatch(/space|write|fail/i);
    expect(() => cp.planRewind(1)).toThrow(/Turn 1 cannot be rewound with files: recording turn 1's files failed/);
    // What git had half-written of the blob is gone: the space is the data folder's again.
    const objects = path.join(mount, 'checkpoints', 'session-1', 'objects');
    expect(fs.readdirSync(objects, { recursive: true }).map(String).filter((f) => f.includes('tmp_obj_'))).toEqual([]);
    fs.rmSync(path.join(root, 'blob.bin'));
    expect(cp.turnStarted(2)).toBeUndefined();
    expect(cp.planRewind(2)).toEqual({ restored: [], left: [], large: [] });
  });
});
