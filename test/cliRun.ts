/** Runs `keel` in this process (runCli) and keeps what it wrote: the CLI tests' one way to call it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { TestContext } from 'vitest';
import { runCli } from '../main/cli/index.js';

/** A writer that keeps what it is given. */
export function collector() {
  const chunks: string[] = [];
  return { write: (text: string) => chunks.push(text), get text() { return chunks.join(''); } };
}

/** `keel ARGV`: its exit code and what it wrote to stdout and stderr. */
export async function cli(...argv: string[]) {
  return run(argv);
}

/** `keel ARGV` with `typed` lines at its prompt, then the end of its input (none typed: it ends at once). */
export async function cliTyped(typed: readonly string[], ...argv: string[]) {
  return run(argv, Readable.from(typed.map((line) => `${line}\n`)));
}

async function run(argv: string[], input?: Readable) {
  const out = collector();
  const err = collector();
  const code = await runCli(argv, { out, err, ...(input && { input }) });
  return { code, out: out.text, err: err.text };
}

/**
 * A fresh folder for one test (its real path), with KEEL_HOME at `home` inside it: call it from
 * `beforeEach((ctx) => …)`. KEEL_HOME is put back and the folder removed when the test ends, after its afterEach hooks.
 */
export function tempKeelHome(ctx: TestContext, prefix: string): string {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const saved = process.env.KEEL_HOME;
  process.env.KEEL_HOME = path.join(tmp, 'home');
  ctx.onTestFinished(() => {
    if (saved === undefined) delete process.env.KEEL_HOME;
    else process.env.KEEL_HOME = saved;
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  return tmp;
}
