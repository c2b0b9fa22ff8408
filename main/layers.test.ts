import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The part of ESLint's API used here (eslint 9.9 ships no types). */
interface Linter {
  lintText(code: string, o: { filePath: string }): Promise<{ messages: { ruleId: string | null; message: string }[] }[]>;
}
const { ESLint } = createRequire(import.meta.url)('eslint') as { ESLint: new (o: { cwd: string }) => Linter };

interface Row { may?: string[]; packages?: string[]; types?: string[]; tests?: string[] }
const repoRoot = path.resolve(import.meta.dirname, '..');
const config = (await import(path.join(repoRoot, 'eslint.config.js'))) as {
  LAYERS: Record<string, Row>; LEAF_PACKAGES: string[]; TEST_PACKAGES: string[]; CORE_BELOW: Record<string, string[]>;
};

/**
 * The layer rule of eslint.config.js (keel/layers, its LAYERS table), run on probe sources as if
 * they lived in each layer: a break must fail `npm run lint`, and what a layer may import must pass.
 */
const eslint = new ESLint({ cwd: repoRoot });

/** The specifiers keel/layers refuses in `source` linted as `file` (a folder without a row: its message). */
async function broken(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(repoRoot, file) });
  return result.messages.filter((m) => m.ruleId === 'keel/layers').map((m) => (m.message.startsWith("'") ? m.message.split("'")[1] : m.message));
}

const probe = (...lines: string[]) => `${lines.join('\n')}\nexport {};\n`;

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
      "import { RemoteEngine } from '../remote/engine.js';",
      "import { sha256 } from './hash.js';",
      "import { z } from 'zod';",
      "import loop from '../../loop.json';",
      'export const all = [Database, getLlama, SqliteStore, main, Rng, makeContext, RemoteEngine, sha256, z, loop];',
      'export type S = Service;',
    ].join('\n');
    expect(await broken('main/core/probe.ts', source)).toEqual([
      'better-sqlite3', 'node-llama-cpp', '../db/store.js', '../app/service.js', '../cli/index.js', '../../bench/prng.js', '../../test/toolContext.js', '../remote/engine.js',
    ]);
  }, 60_000);

  it('lets core tests open the real store and use test/, and nothing else outside the core', async () => {
    const source = probe(
      "import { SqliteStore } from '../../db/store.js';",
      "import { makeContext } from '../../../test/toolContext.js';",
      "import { readSessionFile } from '../../db/sessionFile.js';",
      "import Database from 'better-sqlite3';",
      "import { Rng } from '../../../bench/prng.js';",
      "import { it } from 'vitest';",
    );
    expect(await broken('main/core/turn/probe.test.ts', source)).toEqual(['../../db/sessionFile.js', 'better-sqlite3', '../../../bench/prng.js']);
  }, 60_000);

  it('keeps each adapter to the core and its own package', async () => {
    expect(await broken('main/llm/probe.ts', probe(
      "import { Service } from '../app/service.js';",
      "import { SqliteStore } from '../db/store.js';",
      "import { getLlama } from 'node-llama-cpp';",
      "import { Template } from '@huggingface/jinja';",
      "import { MODES } from '../core/types.js';",
    ))).toEqual(['../app/service.js', '../db/store.js']);
    expect(await broken('main/remote/probe.ts', probe(
      "import { app } from 'electron';",
      "import { loadModel } from '../llm/model.js';",
      "import { createParser } from 'eventsource-parser';",
      "import type { Engine } from '../core/engine/types.js';",
    ))).toEqual(['electron', '../llm/model.js']);
    expect(await broken('main/mcp/probe.ts', probe(
      "import { SqliteStore } from '../db/store.js';",
      "import { getLlama } from 'node-llama-cpp';",
      "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
      "import { sandboxCommand } from '../sandbox/runner.js';",
    ))).toEqual(['../db/store.js', 'node-llama-cpp']);
    expect(await broken('main/sandbox/probe.ts', probe(
      "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
      "import { McpHub } from '../mcp/hub.js';",
      "import { SandboxManager } from '@anthropic-ai/sandbox-runtime';",
      "import type { CommandRunner } from '../core/tools/commandRunner.js';",
    ))).toEqual(['@modelcontextprotocol/sdk/client/index.js', '../mcp/hub.js']);
    expect(await broken('main/db/probe.ts', probe(
      "import { x } from '../llm/engine.js';",
      "import { app } from 'electron/main';",
      "import Database from 'better-sqlite3';",
      "import { y } from '../core/types.js';",
    ))).toEqual(['../llm/engine.js', 'electron/main']);
  }, 60_000);

  it('keeps Electron in main/index.ts and the preload script, and the service and CLI free of hosts', async () => {
    expect(await broken('main/app/probe.ts', probe("import { x } from '../cli/index.js';", "import { app } from 'electron';", "import { y } from '../db/store.js';", "import { z } from '../mcp/hub.js';")))
      .toEqual(['../cli/index.js', 'electron']);
    expect(await broken('main/cli/probe.ts', probe("import { app } from 'electron';", "import { bindIpc } from '../ipc/bind.js';", "import { y } from '../app/service.js';")))
      .toEqual(['electron', '../ipc/bind.js']);
    expect(await broken('main/ipc/probe.ts', probe("import { ipcMain } from 'electron';", "import type { IpcMain } from 'electron';", "import { CALL_CHANNEL } from '../contract.js';")))
      .toEqual(['electron']);
    expect(await broken('main/index.ts', probe("import { app } from 'electron';", "import { startHost } from './appHost.js';"))).toEqual([]);
  }, 60_000);

  it('lets the renderer and the preload script reach main only through the contract', async () => {
    expect(await broken('renderer/src/probe.ts', probe(
      "import type { Service } from '../../main/app/service.js';",
      "import type { Mode } from '../../main/core/types.js';",
      "import { ipcRenderer } from 'electron';",
      "import { MODES } from '../../main/contract.js';",
      "import type { SessionView } from '../../main/contract/views.js';",
      "import { create } from 'zustand';",
    ))).toEqual(['../../main/app/service.js', '../../main/core/types.js', 'electron']);
    expect(await broken('preload/probe.ts', probe(
      "import { contextBridge } from 'electron';",
      "import { CALL_CHANNEL } from '../main/contract.js';",
      "import { MODES } from '../main/core/types.js';",
      "import type { Host } from '../main/appHost.js';",
    ))).toEqual(['../main/core/types.js', '../main/appHost.js']);
  }, 60_000);

  it('refuses a folder of main without a row, and every folder of main has one', async () => {
    expect(await broken('main/plugins/probe.ts', probe("import { MODES } from '../core/types.js';")))
      .toEqual(['main/plugins has no row in the LAYERS table of eslint.config.js: add one saying what it may import']);
    const rows = Object.keys(config.LAYERS);
    const folders = fs.readdirSync(path.join(repoRoot, 'main'))
      .map((name) => `main/${name.replace(/(\.test)?\.tsx?$/, '')}`)
      .filter((folder, i, all) => all.indexOf(folder) === i);
    expect(folders.filter((folder) => !rows.includes(folder))).toEqual([]);
    expect(rows.filter((row) => /^main\/[^/]+$/.test(row) && !folders.includes(row))).toEqual([]);
  }, 60_000);

  it('keeps each folder of main/core above the ones it imports: an import up is refused in every folder', async () => {
    const folders = fs.readdirSync(path.join(repoRoot, 'main/core'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    // Every folder has its entry, and the table names no folder that is gone.
    expect(Object.keys(config.CORE_BELOW).sort()).toEqual(folders);
    for (const folder of folders) {
      // One import of every other core folder, and of a file directly in main/core: only those below it pass.
      const others = folders.filter((f) => f !== folder);
      const source = probe(...others.map((f) => `import '../${f}/probe.js';`), "import '../types.js';");
      expect(await broken(`main/core/${folder}/probe.ts`, source), folder)
        .toEqual(others.filter((f) => !config.CORE_BELOW[folder].includes(f)).map((f) => `../${f}/probe.js`));
      // A test of the folder may reach all of the core.
      expect(await broken(`main/core/${folder}/probe.test.ts`, source), folder).toEqual([]);
    }
    // The loop is the top: every other folder, and the files directly in main/core, refuse it.
    expect(Object.values(config.CORE_BELOW).filter((below) => below.includes('turn'))).toEqual([]);
    expect(await broken('main/core/probe.ts', probe("import './turn/probe.js';", "import './tools/probe.js';", "import './hash.js';")))
      .toEqual(['./turn/probe.js', './tools/probe.js']);
  }, 120_000);

  it('names each package of package.json in the table, and each adapter package in one row only', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const rows = Object.entries(config.LAYERS);
    const named = new Set([...config.LEAF_PACKAGES, ...config.TEST_PACKAGES, ...rows.flatMap(([, r]) => [...(r.packages ?? []), ...(r.types ?? [])])]);
    const unlisted = Object.keys(pkg.dependencies).filter((name) => !named.has(name) && name !== 'tsx');
    expect(unlisted).toEqual([]);
    const owners = (name: string) => rows.filter(([key, r]) => key.startsWith('main/') && r.packages?.includes(name)).map(([key]) => key);
    expect(owners('node-llama-cpp')).toEqual(['main/llm']);
    expect(owners('better-sqlite3')).toEqual(['main/db']);
    expect(owners('@modelcontextprotocol/sdk')).toEqual(['main/mcp']);
    expect(owners('@anthropic-ai/sandbox-runtime')).toEqual(['main/sandbox']);
    expect(owners('electron')).toEqual(['main/index']);
  });
});

