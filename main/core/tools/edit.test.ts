import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../workspace/files.js';
import { editTool } from './edit.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';
import type { FileChange, ToolContext } from './types.js';

let ws: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({ 'app.ts': 'const a = 1;\nconst b = 2;\nconst c = 3;\n' });
});
afterEach(() => ws.remove());

const abs = (rel: string): string => path.join(ws.root, rel);
const bytes = (rel: string): Buffer => fs.readFileSync(abs(rel));
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

interface Args { path: string; old_string: string; new_string: string; replace_all?: boolean }

async function edit(args: Args, ctx: ToolContext = makeContext(ws.root)): Promise<FileChange> {
  const out = await editTool.run(args, ctx);
  if (out.kind !== 'change' || out.files.length !== 1) throw new Error('expected one change');
  return out.files[0]!;
}

describe('edit', () => {
  it('replaces one unique occurrence', async () => {
    const change = await edit({ path: 'app.ts', old_string: 'b = 2', new_string: 'b = 20' });
    const after = 'const a = 1;\nconst b = 20;\nconst c = 3;\n';
    expect(change).toEqual({
      pathGiven: 'app.ts', absPath: abs('app.ts'), action: 'modified',
      before: 'const a = 1;\nconst b = 2;\nconst c = 3;\n', after, hash: sha256(after),
    });
    expect(bytes('app.ts').toString()).toBe(after);
  });

  it('replaces across lines and can delete text', async () => {
    await edit({ path: 'app.ts', old_string: 'const b = 2;\n', new_string: '' });
    expect(bytes('app.ts').toString()).toBe('const a = 1;\nconst c = 3;\n');
  });

  it('refuses old_string not found, naming the path, and changes nothing', async () => {
    const before = bytes('app.ts');
    await expect(edit({ path: 'app.ts', old_string: 'const d', new_string: 'x' })).rejects.toThrow(
      `Error: old_string was not found in ${abs('app.ts')}. Nothing was changed.`,
    );
    expect(bytes('app.ts')).toEqual(before);
  });

  it('refuses a non-unique old_string, naming the count and the path', async () => {
    const before = bytes('app.ts');
    await expect(edit({ path: 'app.ts', old_string: 'const', new_string: 'let' })).rejects.toThrow(
      `Error: old_string occurs 3 times in ${abs('app.ts')}`,
    );
    expect(bytes('app.ts')).toEqual(before);
  });

  it('counts overlapping occurrences', async () => {
    fs.writeFileSync(abs('a.txt'), 'aaa\n');
    await expect(edit({ path: 'a.txt', old_string: 'aa', new_string: 'b' })).rejects.toThrow('old_string occurs 2 times');
  });

  it('replaces every occurrence with replace_all', async () => {
    const change = await edit({ path: 'app.ts', old_string: 'const', new_string: 'let', replace_all: true });
    expect(bytes('app.ts').toString()).toBe('let a = 1;\nlet b = 2;\nlet c = 3;\n');
    expect(change.action).toBe('modified');
  });

  it('refuses an empty old_string', async () => {
    await expect(edit({ path: 'app.ts', old_string: '', new_string: 'x' })).rejects.toThrow('Error: old_string is empty');
  });

  it('inserts $& and $1 literally', async () => {
    await edit({ path: 'app.ts', old_string: '1', new_string: "'$&$1$$'" });
    expect(bytes('app.ts').toString()).toBe("const a = '$&$1$$';\nconst b = 2;\nconst c = 3;\n");
    await edit({ path: 'app.ts', old_string: '2', new_string: '$`', replace_all: true });
    expect(bytes('app.ts').toString()).toBe("const a = '$&$1$$';\nconst b = $`;\nconst c = 3;\n");
  });

  it('answers unchanged when new_string equals old_string, writing nothing', async () => {
    const past = new Date('2020-01-01T00:00:00Z');
    fs.utimesSync(abs('app.ts'), past, past);
    const change = await edit({ path: 'app.ts', old_string: 'b = 2', new_string: 'b = 2' });
    expect(change.action).toBe('unchanged');
    expect(fs.statSync(abs('app.ts')).mtimeMs).toBe(past.getTime());
  });

  it('in a CRLF file, matches \\n as CRLF and keeps CRLF byte-exactly', async () => {
    fs.writeFileSync(abs('win.txt'), 'one\r\ntwo\r\nthree\r\n');
    const change = await edit({ path: 'win.txt', old_string: 'one\ntwo\n', new_string: 'one\nTWO\n2b\n' });
    expect(bytes('win.txt')).toEqual(Buffer.from('one\r\nTWO\r\n2b\r\nthree\r\n'));
    expect([change.before, change.after]).toEqual(['one\ntwo\nthree\n', 'one\nTWO\n2b\nthree\n']);
    expect(change.hash).toBe(sha256('one\r\nTWO\r\n2b\r\nthree\r\n'));
  });

  it('in a CRLF file, an old_string written with CRLF matches too', async () => {
    fs.writeFileSync(abs('win.txt'), 'one\r\ntwo\r\n');
    await edit({ path: 'win.txt', old_string: 'one\r\ntwo', new_string: 'x\r\ny' });
    expect(bytes('win.txt')).toEqual(Buffer.from('x\r\ny\r\n'));
  });

  it('keeps a BOM', async () => {
    fs.writeFileSync(abs('bom.txt'), Buffer.concat([BOM, Buffer.from('alpha\nbeta\n')]));
    const change = await edit({ path: 'bom.txt', old_string: 'alpha', new_string: 'ALPHA' });
    expect(bytes('bom.txt')).toEqual(Buffer.concat([BOM, Buffer.from('ALPHA\nbeta\n')]));
    expect(change.before).toBe('alpha\nbeta\n');
    expect(change.hash).toBe(sha256(bytes('bom.txt')));
  });

  it('keeps a BOM and CRLF together', async () => {
    fs.writeFileSync(abs('both.txt'), Buffer.concat([BOM, Buffer.from('a\r\nb\r\n')]));
    await edit({ path: 'both.txt', old_string: 'a\nb', new_string: 'a\nc' });
    expect(bytes('both.txt')).toEqual(Buffer.concat([BOM, Buffer.from('a\r\nc\r\n')]));
  });

  it('refuses a conflict, naming the path, and writes nothing', async () => {
    const before = bytes('app.ts');
    const ctx: ToolContext = { ...makeContext(ws.root), knownHash: () => sha256('an older content') };
    await expect(edit({ path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' }, ctx)).rejects.toThrow(
      `Error: ${abs('app.ts')} has changed on disk since this session last read or wrote it; read it again first.`,
    );
    expect(bytes('app.ts')).toEqual(before);
  });

  it('asks knownHash about the absolute path and edits when the hash matches', async () => {
    const asked: string[] = [];
    const ctx: ToolContext = {
      ...makeContext(ws.root),
      knownHash: (p) => (asked.push(p), sha256(fs.readFileSync(p))),
    };
    expect((await edit({ path: './app.ts', old_string: 'b = 2', new_string: 'b = 3' }, ctx)).action).toBe('modified');
    expect(asked).toEqual([abs('app.ts')]);
  });

  it('refuses a missing file, naming it', async () => {
    await expect(edit({ path: 'nope.ts', old_string: 'a', new_string: 'b' })).rejects.toThrow(`Error: ${abs('nope.ts')} does not exist.`);
    expect(fs.existsSync(abs('nope.ts'))).toBe(false);
  });

  it('refuses a binary file', async () => {
    fs.writeFileSync(abs('bin'), Buffer.from([1, 0, 2]));
    await expect(edit({ path: 'bin', old_string: 'a', new_string: 'b' })).rejects.toThrow(`Error: ${abs('bin')} is a binary file`);
  });

  it('refuses a path outside the workspace', async () => {
    await expect(edit({ path: '../x.ts', old_string: 'a', new_string: 'b' })).rejects.toThrow('is outside the workspace');
  });

  it('keeps the file mode', async () => {
    fs.chmodSync(abs('app.ts'), 0o755);
    await edit({ path: 'app.ts', old_string: 'a = 1', new_string: 'a = 9' });
    expect(fs.statSync(abs('app.ts')).mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(ws.root)).toEqual(['app.ts']);
  });
});
