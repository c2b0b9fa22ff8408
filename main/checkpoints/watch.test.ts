import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchWorkspace, type WorkspaceWatch } from './watch.js';

let root: string;
let watch: WorkspaceWatch | undefined;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-watch-test-')));
  execFileSync('git', ['init', '-q'], { cwd: root });
  fs.writeFileSync(path.join(root, '.gitignore'), '*.log\n');
  fs.mkdirSync(path.join(root, 'src'));
});

afterEach(() => {
  watch?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Drains until the kernel's events for what was just done are in (a drain is a barrier, so once is enough). */
const drained = () => watch!.drain();

describe.skipIf(process.platform !== 'linux')('the workspace watcher (its worker thread)', () => {
  it('says what changed since the last drain: files by path, a new folder as `path/`, and nothing when nothing did', () => {
    watch = watchWorkspace(root, [], { file: 'git', args: [], env: process.env, cwd: root })!;
    expect(drained()).toEqual({ everything: 'the watch is new' });
    expect(drained()).toEqual({ paths: [] });
    fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'x');
    fs.mkdirSync(path.join(root, 'lib'));
    fs.writeFileSync(path.join(root, 'lib', 'b.ts'), 'y');
    const d = drained();
    // The new folder is `lib/` (a walk of it finds what was made in it before its own watch began, so lib/b.ts may come too).
    const paths = 'paths' in d ? [...d.paths].sort() : d;
    expect(paths).toEqual(expect.arrayContaining(['lib/', 'src/a.ts']));
    expect(paths).toEqual(expect.not.arrayContaining(['.gitignore', 'src/']));
    expect(paths).toHaveLength((paths as string[]).includes('lib/b.ts') ? 3 : 2);
    // Once seen, the folder is watched: a change in it comes by its path.
    fs.writeFileSync(path.join(root, 'lib', 'b.ts'), 'changed');
    expect(drained()).toEqual({ paths: ['lib/b.ts'] });
  });

  it('answers what git ignores from its check-ignore, and a changed .gitignore asks for a rescan', () => {
    watch = watchWorkspace(root, [], { file: 'git', args: [], env: process.env, cwd: root })!;
    drained();
    expect(watch.ignored(['x.log', 'src/y.ts', 'deep/z.log'])).toEqual([true, false, true]);
    fs.writeFileSync(path.join(root, '.gitignore'), '*.tmp\n');
    expect(drained()).toEqual({ everything: 'a .gitignore changed', rescan: true });
    expect(watch.ignored(['x.log', 'y.tmp'])).toEqual([false, true]);
  });
});
