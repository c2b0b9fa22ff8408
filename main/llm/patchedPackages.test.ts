import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// scripts/patchPackages.mjs (postinstall) patches @huggingface/jinja (semantics: jinjaSemantics.test.ts;
// speed), node-llama-cpp's lifecycle-utils and node-llama-cpp itself (speed), and sandbox-runtime's which
// (no process per lookup) and two wrap options (their sandboxes: main/sandbox/runner.test.ts). A speed
// patch must not change a result.
const script = path.resolve('scripts/patchPackages.mjs');
const require = createRequire(import.meta.url);
const jinjaDist = path.dirname(require.resolve('@huggingface/jinja'));
const splitDist = path.dirname(createRequire(require.resolve('node-llama-cpp')).resolve('lifecycle-utils'));
const llamaDist = path.dirname(require.resolve('node-llama-cpp'));
const sandboxDist = path.dirname(require.resolve('@anthropic-ai/sandbox-runtime'));
const SQUASH = 'chatWrappers/generic/utils/squashChatHistoryItems.js';
const UNIQUE_ID = 'chatWrappers/generic/utils/UniqueIdGenerator.js';

const copy = (dist: string, files: string[]) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-patched-'));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(dist, file), path.join(dir, file));
  }
  return dir;
};

interface Patch { name: string; anchor: string; replacement: string }
interface Patches { WHICH_PATCHES: Patch[]; SPLIT_TEXT_PATCHES: Patch[]; SQUASH_PATCHES: Patch[]; UNIQUE_ID_PATCHES: Patch[]; unpatched(text: string, patches: Patch[]): string }
/** A copy's source map comment, taken out (the map is not copied). */
const SOURCE_MAP = /\/\/# sourceMappingURL=.*$/m;
const patches = async () => await import(pathToFileURL(script).href) as Patches;

/**
 * A patched module as installed, and as it was before its patches: the original (the patches taken
 * back out, its relative imports made absolute) written to a temporary folder. Both imported.
 */
async function patchedAndOriginal<T>(file: string, patchesOf: (all: Patches) => Patch[]): Promise<{ patched: T; original: T }> {
  const all = await patches();
  const list = patchesOf(all);
  const text = fs.readFileSync(file, 'utf8');
  const original = all.unpatched(text, list)
    .replace(/from "(\.\.?\/[^"]+)"/g, (_whole, relative: string) => `from ${JSON.stringify(pathToFileURL(path.resolve(path.dirname(file), relative)).href)}`)
    .replace(SOURCE_MAP, '');
  for (const patch of list) expect([text.includes(patch.replacement), original.includes(patch.replacement)]).toEqual([true, false]);
  const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-original-')), path.basename(file));
  fs.writeFileSync(copy, original);
  const load = async (at: string) => await import(pathToFileURL(at).href) as T;
  return { patched: await load(file), original: await load(copy) };
}
const run = (...args: string[]) => execFileSync('node', [script, ...args], { encoding: 'utf8', stdio: 'pipe' });

describe('scripts/patchPackages.mjs', () => {
  it('is a no-op on the patched packages', () => {
    const dir = copy(jinjaDist, ['index.js', 'index.cjs']);
    const before = fs.readFileSync(path.join(dir, 'index.cjs'), 'utf8');
    expect(run('@huggingface/jinja', dir)).toMatch(/index\.cjs: 0 applied, \d+ already in place/);
    expect(fs.readFileSync(path.join(dir, 'index.cjs'), 'utf8')).toBe(before);
    expect(run('lifecycle-utils', copy(splitDist, ['splitText.js']))).toMatch(/splitText\.js: 0 applied, \d+ already in place/);
    expect(run('node-llama-cpp', copy(llamaDist, ['evaluator/LlamaContext/LlamaContext.js', SQUASH, UNIQUE_ID]))).toMatch(/LlamaContext\.js: 0 applied, 1 already in place\n.*squashChatHistoryItems\.js: 0 applied, 2 already in place\n.*UniqueIdGenerator\.js: 0 applied, 2 already in place/);
    const sandboxFiles = ['utils/which.js', 'sandbox/sandbox-manager.js', 'sandbox/sandbox-manager.d.ts', 'sandbox/linux-sandbox-utils.js'];
    expect(run('@anthropic-ai/sandbox-runtime', copy(sandboxDist, sandboxFiles)))
      .toMatch(/which\.js: 0 applied, 2 already in place\n.*sandbox-manager\.js: 0 applied, 2 already in place\n.*sandbox-manager\.d\.ts: 0 applied, 1 already in place\n.*linux-sandbox-utils\.js: 0 applied, 1 already in place/);
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
  async function both(): Promise<{ patched: Split; original: Split }> {
    const { patched, original } = await patchedAndOriginal<{ splitText: Split }>(path.join(splitDist, 'splitText.js'), (all) => all.SPLIT_TEXT_PATCHES);
    return { patched: patched.splitText, original: original.splitText };
  }

  it('splits every text as the original does: overlapping, nested and repeated separators included', async () => {
    const { patched, original } = await both();
    const plain = (parts: ReturnType<Split>) => parts.map((p) => (typeof p === 'string' ? p : `<${p.separator}>`));
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let round = 0; round < 2000; round++) {
      // Plain letters, what a regular expression's character class treats specially, and both halves of a surrogate pair.
      const chars = ['a', 'b', 'W', 'c', ']', '^', '-', '\\', 'é', '\uD83D', '\uDE42'];
      const alphabet = chars.slice(0, 2 + next(chars.length - 1));
      const word = (max: number) => Array.from({ length: 1 + next(max) }, () => alphabet[next(alphabet.length)]).join('');
      const separators = Array.from({ length: 1 + next(5) }, () => word(4));
      const text = Array.from({ length: next(12) }, () => (next(3) === 0 ? separators[next(separators.length)] : word(6))).join('');
      expect(plain(patched(text, separators)), `${JSON.stringify(text)} by ${JSON.stringify(separators)}`).toEqual(plain(original(text, separators)));
    }
    // Texts as node-llama-cpp splits them: message ids ("W…W" and digits), some a prefix of another or
    // run into each other, in text with digits and W's of its own, and one-character separators.
    for (let round = 0; round < 1000; round++) {
      const id = () => (next(2) === 0 ? `W${next(2 ** 20).toString(36)}W` : String(1 + next(999_999)));
      const separators = Array.from({ length: 1 + next(8) }, id);
      if (next(6) === 0) separators.push(separators[0].slice(0, 1 + next(separators[0].length)));
      if (next(8) === 0) separators.push(['W', '7', 'x'][next(3)]);
      const filler = () => ['<|im_start|>user\n', 'module12 ', 'Wait ', '\n</tool_call>', ''][next(5)];
      const text = Array.from({ length: next(14) }, () => (next(2) === 0 ? separators[next(separators.length)] : filler())).join('');
      expect(plain(patched(text, separators)), `${JSON.stringify(text)} by ${JSON.stringify(separators)}`).toEqual(plain(original(text, separators)));
    }
    // node-llama-cpp's own case: a prompt with its message ids.
    const ids = ['W1a2bW', 'W9zW', 'W1a2bX'];
    const prompt = '<|im_start|>system\nW1a2bW<|im_end|>\n<|im_start|>user\nW9zW<|im_end|>\nW1a2bXW1a2bW';
    expect(plain(patched(prompt, ids))).toEqual(plain(original(prompt, ids)));
    expect(plain(patched(prompt, ids))).toContain('<W9zW>');
  });
});

describe('node-llama-cpp squashChatHistoryItems, patched for speed', () => {
  type Squash = (history: unknown[]) => unknown[];
  async function both(): Promise<{ patched: Squash; original: Squash }> {
    const { patched, original } = await patchedAndOriginal<{ squashChatHistoryItems: Squash }>(path.join(llamaDist, SQUASH), (all) => all.SQUASH_PATCHES);
    return { patched: patched.squashChatHistoryItems, original: original.squashChatHistoryItems };
  }

  it('squashes every history as the original does, and leaves the history it was given as it was', async () => {
    const { patched, original } = await both();
    let seed = 11;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const response = () => next(3) === 0
      ? { type: 'functionCall', name: 'read', params: { path: `f${next(9)}` }, result: `r${next(9)}` }
      : ['a', 'b\n', ''][next(3)];
    const item = () => {
      const type = ['system', 'user', 'model'][next(3)];
      return type === 'model' ? { type, response: Array.from({ length: next(4) }, response) } : { type, text: `${type} ${next(99)}` };
    };
    for (let round = 0; round < 500; round++) {
      const history = Array.from({ length: next(9) }, item);
      const before = structuredClone(history);
      const squashed = patched(history);
      expect(squashed).toEqual(original(structuredClone(before)));
      expect(history).toEqual(before);
    }
  });
});

describe('node-llama-cpp UniqueIdGenerator, patched for speed', () => {
  interface Generator { generateId(numbersOnly?: boolean): string }
  type Make = new (antiText: string) => Generator;

  it('draws the ids the original draws, skipping each that appears in the text', async () => {
    const both = await patchedAndOriginal<{ UniqueIdGenerator: Make }>(path.join(llamaDist, UNIQUE_ID), (all) => all.UNIQUE_ID_PATCHES);
    const [Patched, Original] = [both.patched.UniqueIdGenerator, both.original.UniqueIdGenerator];
    const random = Math.random;
    let seed = 5;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    try {
      for (let round = 0; round < 300; round++) {
        // The text holds some of the ids the next draws make (the same draws feed both generators).
        const start = seed;
        const coming = Array.from({ length: 6 }, () => next());
        const pieces = coming.map((r, i) => (i % 2 === 0 ? `W${r.toString(36).slice(2)}W` : r.toString(10).slice(2, 17)));
        const antiText = pieces.filter((_p, i) => (round >> i) & 1).join(' digits 1234 and W ');
        const run = (Make: Make) => {
          seed = start;
          Math.random = next;
          const generator = new Make(antiText);
          return Array.from({ length: 4 }, (_x, i) => generator.generateId(i % 2 === 1));
        };
        const ids = run(Patched);
        expect(ids).toEqual(run(Original));
        for (const id of ids) expect(antiText.includes(id)).toBe(false);
      }
    } finally {
      Math.random = random;
    }
  });
});

describe('sandbox-runtime whichSync, patched to search PATH in the process', () => {
  type Which = { whichSync(bin: string): string | null };
  it('finds what `which` finds: the first regular file the user may run, an empty entry as ., a slash as the path itself', async () => {
    const { patched, original } = await patchedAndOriginal<Which>(path.join(sandboxDist, 'utils/which.js'), (all) => all.WHICH_PATCHES);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-which-'));
    const at = (...parts: string[]) => path.join(dir, ...parts);
    for (const d of ['plain', 'folder/prog', 'runs', 'later']) fs.mkdirSync(at(d), { recursive: true });
    fs.writeFileSync(at('plain', 'prog'), 'not executable');
    fs.writeFileSync(at('runs', 'prog'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(at('later', 'prog'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(at('runs', 'here'), '#!/bin/sh\n', { mode: 0o755 });
    const saved = { path: process.env.PATH, cwd: process.cwd() };
    const seen: unknown[] = [];
    try {
      process.chdir(at('runs'));
      // Each PATH ends in the folder of `which` itself, which the original starts through PATH.
      const which = path.dirname(execFileSync('sh', ['-c', 'command -v which'], { encoding: 'utf8' }).trim());
      for (const PATH of [`${at('plain')}:${at('folder')}:${at('runs')}:${at('later')}:${which}`, `${at('later')}:${at('runs')}:${which}`, `${at('plain')}::${which}:/bin`, `:${which}`, saved.path!]) {
        process.env.PATH = PATH;
        for (const bin of ['prog', 'here', 'bash', 'bwrap', 'no-such-program-x', at('runs', 'prog'), at('plain', 'prog'), './here', at('folder', 'prog')]) {
          const want = original.whichSync(bin);
          seen.push(want);
          expect([PATH, bin, patched.whichSync(bin)]).toEqual([PATH, bin, want]);
        }
      }
    } finally {
      process.env.PATH = saved.path;
      process.chdir(saved.cwd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // The comparison covered finds and misses alike.
    expect(seen).toContain(at('runs', 'prog'));
    expect(seen).toContain(null);
  });
});
