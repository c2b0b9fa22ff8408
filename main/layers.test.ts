import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The part of ESLint's API used here (eslint 9.9 ships no types). */
interface Linter {
  lintText(code: string, o: { filePath: string }): Promise<{ messages: { ruleId: string | null; message: string }[] }[]>;
}
const { ESLint } = createRequire(import.meta.url)('eslint') as { ESLint: new (o: { cwd: string }) => Linter };

/**
 * The layer rule of eslint.config.js (keel/layers), run on probe sources as if they lived in each
 * layer: a break must fail `npm run lint`, and what a layer may import must pass.
 */
const repoRoot = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: repoRoot });

async function broken(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(repoRoot, file) });
  return result.messages.filter((m) => m.ruleId === 'keel/layers').map((m) => m.message.split("'")[1]);
}

describe('the layer rule', () => {
  it('keeps every adapter, host and outside folder out of main/core', async () => {
    const source = [
      "import Database from 'better-sqlite3';",
      "import { getLlama } from 'node-llama-cpp';",
      "import { SqliteStore } from '../db/store.js';",
      "import type { Service } from '../app/service.js';",
      "import { main } from '../cli/index.js';",
      "import { Rng } from '../../bench/prng.js';",
      "import { makeContext } from '../../test/toolContext.js';",
      "import { sha256 } from './hash.js';",
      "import { z } from 'zod';",
      'export const all = [Database, getLlama, SqliteStore, main, Rng, makeContext, sha256, z];',
      'export type S = Service;',
    ].join('\n');
    expect(await broken('main/core/probe.ts', source)).toEqual([
      'better-sqlite3', 'node-llama-cpp', '../db/store.js', '../app/service.js', '../cli/index.js', '../../bench/prng.js', '../../test/toolContext.js',
    ]);
  }, 60_000);

  it('lets core tests open the real store and use test/, and nothing else outside the core', async () => {
    const source = [
      "import { SqliteStore } from '../../db/store.js';",
      "import { makeContext } from '../../../test/toolContext.js';",
      "import { readSessionFile } from '../../db/sessionFile.js';",
      "import Database from 'better-sqlite3';",
      "import { Rng } from '../../../bench/prng.js';",
      'export const all = [SqliteStore, makeContext, readSessionFile, Database, Rng];',
    ].join('\n');
    expect(await broken('main/core/session/probe.test.ts', source)).toEqual(['../../db/sessionFile.js', 'better-sqlite3', '../../../bench/prng.js']);
  }, 60_000);

  it('keeps the store free of other adapters, and the service and CLI free of hosts', async () => {
    expect(await broken('main/db/probe.ts', "import { x } from '../llm/engine.js';\nimport { y } from '../core/types.js';\nexport const a = [x, y];")).toEqual(['../llm/engine.js']);
    expect(await broken('main/app/probe.ts', "import { x } from '../cli/index.js';\nimport { y } from '../db/store.js';\nexport const a = [x, y];")).toEqual(['../cli/index.js']);
    expect(await broken('main/cli/probe.ts', "import { app } from 'electron';\nimport { y } from '../app/service.js';\nexport const a = [app, y];")).toEqual(['electron']);
  }, 60_000);
});
