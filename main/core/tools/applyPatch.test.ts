import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../workspace/files.js';
import { applyPatchTool } from './applyPatch.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';
import type { FileChange, ToolContext } from './types.js';

let ws: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({
    'src/a.ts': 'one\ntwo\nthree\n',
    'src/b.ts': 'alpha\nbeta\n',
    'old.md': 'gone\nsoon\n',
  });
});
afterEach(() => ws.remove());

const abs = (rel: string): string => path.join(ws.root, rel);
const text = (rel: string): string => fs.readFileSync(abs(rel), 'utf8');

async function patch(p: string, ctx: ToolContext = makeContext(ws.root)): Promise<FileChange[]> {
  const out = await applyPatchTool.run({ patch: p }, ctx);
  if (out.kind !== 'change') throw new Error('expected a change');
  return out.files;
}

/** Every file's bytes, to show that a refused patch changed nothing. */
function snapshot(): Record<string, string> {
  const all: Record<string, string> = {};
  const visit = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else all[path.relative(ws.root, p)] = fs.readFileSync(p, 'latin1');
    }
  };
  visit(ws.root);
  return all;
}

const modifyA = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n';

describe('apply_patch', () => {
  it('modifies one file, stripping a/ and b/', async () => {
    const files = await patch(modifyA);
    expect(files).toEqual([{
      pathGiven: 'src/a.ts', absPath: abs('src/a.ts'), action: 'modified',
      before: 'one\ntwo\nthree\n', after: 'one\nTWO\nthree\n', hash: sha256('one\nTWO\nthree\n'),
    }]);
    expect(text('src/a.ts')).toBe('one\nTWO\nthree\n');
  });

  it('accepts paths without prefixes and git headers', async () => {
    await patch('diff --git a/src/b.ts b/src/b.ts\nindex 1234567..89abcde 100644\n--- src/b.ts\n+++ src/b.ts\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n beta\n');
    expect(text('src/b.ts')).toBe('ALPHA\nbeta\n');
  });

  it('creates a file from --- /dev/null, with its folders', async () => {
    const files = await patch('--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,2 @@\n+# New\n+text\n');
    expect(files).toEqual([{
      pathGiven: 'docs/new.md', absPath: abs('docs/new.md'), action: 'created',
      before: '', after: '# New\ntext\n', hash: sha256('# New\ntext\n'),
    }]);
    expect(text('docs/new.md')).toBe('# New\ntext\n');
  });

  it('deletes a file with +++ /dev/null', async () => {
    const files = await patch('--- a/old.md\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-gone\n-soon\n');
    expect(files).toEqual([{ pathGiven: 'old.md', absPath: abs('old.md'), action: 'deleted', before: 'gone\nsoon\n', after: '', hash: '' }]);
    expect(fs.existsSync(abs('old.md'))).toBe(false);
  });

  it('refuses a delete that leaves lines behind', async () => {
    const before = snapshot();
    await expect(patch('--- a/old.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-gone\n')).rejects.toThrow(
      `Error: the patch deletes ${abs('old.md')} but does not remove all of its lines.`,
    );
    expect(snapshot()).toEqual(before);
  });

  it('applies several files in patch order', async () => {
    const files = await patch(
      '--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n' +
      modifyA +
      '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n' +
      '--- a/old.md\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-gone\n-soon\n',
    );
    expect(files.map((f) => [f.pathGiven, f.action])).toEqual([
      ['src/b.ts', 'modified'], ['src/a.ts', 'modified'], ['new.txt', 'created'], ['old.md', 'deleted'],
    ]);
    expect([text('src/b.ts'), text('src/a.ts'), text('new.txt'), fs.existsSync(abs('old.md'))]).toEqual([
      'alpha\nBETA\n', 'one\nTWO\nthree\n', 'fresh\n', false,
    ]);
  });

  it('changes nothing when the second file does not apply', async () => {
    const before = snapshot();
    await expect(
      patch(modifyA + '--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1,2 +1,2 @@\n alpha\n-BETA\n+gamma\n'),
    ).rejects.toThrow(`Error: the patch does not apply to ${abs('src/b.ts')}`);
    expect(snapshot()).toEqual(before);
  });

  it('changes nothing when a later file is missing, or would be created twice', async () => {
    const before = snapshot();
    await expect(patch(modifyA + '--- a/missing.ts\n+++ b/missing.ts\n@@ -1 +1 @@\n-x\n+y\n')).rejects.toThrow(
      `Error: ${abs('missing.ts')} does not exist.`,
    );
    await expect(patch('--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+1\n' + modifyA + modifyA)).rejects.toThrow(
      `Error: the patch changes ${abs('src/a.ts')} twice.`,
    );
    expect(snapshot()).toEqual(before);
  });

  it('puts back files already written when a later write fails', async () => {
    const before = snapshot();
    // old.md is a file, so old.md/x.txt passes every check but cannot be written.
    await expect(
      patch(modifyA + '--- a/old.md\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-gone\n-soon\n' + '--- /dev/null\n+++ b/src/b.ts/x.txt\n@@ -0,0 +1 @@\n+x\n'),
    ).rejects.toThrow(`Error: a part of ${abs('src/b.ts/x.txt')} is a file, not a directory.`);
    expect(snapshot()).toEqual(before);
  });

  it('refuses to create a file that exists', async () => {
    const before = snapshot();
    await expect(patch('--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1 @@\n+new\n')).rejects.toThrow(
      `Error: the patch creates ${abs('src/a.ts')}, which already exists.`,
    );
    expect(snapshot()).toEqual(before);
  });

  it('refuses garbage, and a patch with no file names', async () => {
    const before = snapshot();
    await expect(patch('this is not a patch')).rejects.toThrow('Error: the patch holds no file changes.');
    await expect(patch('')).rejects.toThrow('Error: the patch holds no file changes.');
    await expect(patch('@@ -1 +1 @@\n-one\n+ONE\n')).rejects.toThrow('names no path');
    await expect(patch('--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n one\n?two\n')).rejects.toThrow(/^Error: the patch could not be parsed/);
    expect(snapshot()).toEqual(before);
  });

  it('refuses a rename and a path outside the workspace', async () => {
    await expect(patch('--- a/src/a.ts\n+++ b/src/c.ts\n@@ -1 +1 @@\n-one\n+ONE\n')).rejects.toThrow('renames are not supported');
    await expect(patch('--- /dev/null\n+++ b/../evil.txt\n@@ -0,0 +1 @@\n+x\n')).rejects.toThrow('is outside the workspace');
    expect(fs.existsSync(path.join(path.dirname(ws.root), 'evil.txt'))).toBe(false);
  });

  it('keeps CRLF in a CRLF file when the patch uses \\n', async () => {
    fs.writeFileSync(abs('win.txt'), 'one\r\ntwo\r\nthree\r\n');
    const [change] = await patch('--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n');
    expect(fs.readFileSync(abs('win.txt'), 'latin1')).toBe('one\r\nTWO\r\nthree\r\n');
    expect(change!.hash).toBe(sha256('one\r\nTWO\r\nthree\r\n'));
  });

  it('keeps a BOM', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    fs.writeFileSync(abs('bom.txt'), Buffer.concat([bom, Buffer.from('x\ny\n')]));
    await patch('--- a/bom.txt\n+++ b/bom.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n');
    expect(fs.readFileSync(abs('bom.txt'))).toEqual(Buffer.concat([bom, Buffer.from('x\nz\n')]));
  });

  it('handles a file without a final newline', async () => {
    fs.writeFileSync(abs('nonl.txt'), 'a\nb');
    await patch('--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n');
    expect(text('nonl.txt')).toBe('a\nc');
  });

  it('refuses a conflict on any file, changing nothing', async () => {
    const before = snapshot();
    const ctx: ToolContext = {
      ...makeContext(ws.root),
      knownHash: (p) => (p === abs('src/b.ts') ? sha256('stale') : undefined),
    };
    await expect(patch(modifyA + '--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1,2 +1,2 @@\n-alpha\n+A\n beta\n', ctx)).rejects.toThrow(
      `Error: ${abs('src/b.ts')} has changed on disk`,
    );
    expect(snapshot()).toEqual(before);
  });
});
