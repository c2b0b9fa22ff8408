import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// scripts/patchPackages.mjs (postinstall) patches @huggingface/jinja (semantics: jinjaSemantics.test.ts;
// speed) and node-llama-cpp's lifecycle-utils (speed). A speed patch must not change a result.
const script = path.resolve('scripts/patchPackages.mjs');
const require = createRequire(import.meta.url);
const jinjaDist = path.dirname(require.resolve('@huggingface/jinja'));
const splitDist = path.dirname(createRequire(require.resolve('node-llama-cpp')).resolve('lifecycle-utils'));

const copy = (dist: string, files: string[]) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-patched-'));
  for (const file of files) fs.copyFileSync(path.join(dist, file), path.join(dir, file));
  return dir;
};
const run = (...args: string[]) => execFileSync('node', [script, ...args], { encoding: 'utf8', stdio: 'pipe' });

describe('scripts/patchPackages.mjs', () => {
  it('is a no-op on the patched packages', () => {
    const dir = copy(jinjaDist, ['index.js', 'index.cjs']);
    const before = fs.readFileSync(path.join(dir, 'index.cjs'), 'utf8');
    expect(run('@huggingface/jinja', dir)).toMatch(/index\.cjs: 0 applied, \d+ already in place/);
    expect(fs.readFileSync(path.join(dir, 'index.cjs'), 'utf8')).toBe(before);
    expect(run('lifecycle-utils', copy(splitDist, ['splitText.js']))).toMatch(/splitText\.js: 0 applied, 1 already in place/);
  });

  it('fails loudly, naming the package and patch, where an anchor is missing, and writes nothing to that file', () => {
    const dir = copy(jinjaDist, ['index.js', 'index.cjs']);
    const file = path.join(dir, 'index.js');
    const changed = fs.readFileSync(file, 'utf8').replace('if (!(current instanceof ArrayValue)) {', 'if (!isIterable(current)) {');
    fs.writeFileSync(file, changed);
    let stderr = '';
    try {
      run('@huggingface/jinja', dir);
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
    }
    expect(stderr).toMatch(/patchPackages: FAILED.*\n.*\n {2}@huggingface\/jinja index\.js: patch "for-loop tuple unpacking": anchor found 0 times/);
    expect(fs.readFileSync(file, 'utf8')).toBe(changed);
  });
});

describe('lifecycle-utils splitText, patched for speed', () => {
  type Split = (text: string, separators: string[]) => (string | { separator: string })[];
  /** The installed (patched) function, and the original: the same file with the patch taken out. */
  async function both(): Promise<{ patched: Split; original: Split }> {
    const dir = copy(splitDist, ['splitText.js']);
    const file = path.join(dir, 'splitText.js');
    const patched = fs.readFileSync(file, 'utf8');
    const original = patched.replace(/ {8}if \(separatorsFindTree\.next\.has\(char\)\)\n((?: {12}.*\n){5})/, (_all, check: string) => check.replace(/^ {4}/gm, ''));
    expect(original).not.toBe(patched);
    fs.writeFileSync(path.join(dir, 'original.js'), original);
    const load = async (name: string) => ((await import(pathToFileURL(path.join(dir, name)).href)) as { splitText: Split }).splitText;
    return { patched: await load('splitText.js'), original: await load('original.js') };
  }

  it('splits every text as the original does: overlapping, nested and repeated separators included', async () => {
    const { patched, original } = await both();
    const plain = (parts: ReturnType<Split>) => parts.map((p) => (typeof p === 'string' ? p : `<${p.separator}>`));
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let round = 0; round < 400; round++) {
      const alphabet = 'abcW'.slice(0, 2 + next(3));
      const word = (max: number) => Array.from({ length: 1 + next(max) }, () => alphabet[next(alphabet.length)]).join('');
      const separators = Array.from({ length: 1 + next(5) }, () => word(4));
      const text = Array.from({ length: next(12) }, () => (next(3) === 0 ? separators[next(separators.length)] : word(6))).join('');
      expect(plain(patched(text, separators)), `${JSON.stringify(text)} by ${JSON.stringify(separators)}`).toEqual(plain(original(text, separators)));
    }
    // node-llama-cpp's own case: a prompt with its message ids.
    const ids = ['W1a2bW', 'W9zW', 'W1a2bX'];
    const prompt = '<|im_start|>system\nW1a2bW<|im_end|>\n<|im_start|>user\nW9zW<|im_end|>\nW1a2bXW1a2bW';
    expect(plain(patched(prompt, ids))).toEqual(plain(original(prompt, ids)));
    expect(plain(patched(prompt, ids))).toContain('<W9zW>');
  });
});
