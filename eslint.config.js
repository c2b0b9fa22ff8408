// ESLint flat config: recommended rules (no type-aware rules, so it stays fast) plus the layering
// rule from DESIGN.md ("Layers by folder"), driven by the one table LAYERS below.
import { builtinModules } from 'node:module';
import path from 'node:path';
import js from '@eslint/js'; // ships with eslint 9 (its own dependency, pinned by eslint)
import tseslint from 'typescript-eslint';

const repoRoot = import.meta.dirname;

/** Packages every layer of main may use: small leaves with no I/O of their own. */
export const LEAF_PACKAGES = ['zod', 'diff', 'picomatch'];
/** Packages every test file (*.test.ts, *.test.tsx) may use. */
export const TEST_PACKAGES = ['vitest', '@testing-library/react', '@testing-library/dom'];
/** Hosts: they call the service; nothing but another host's entry point imports them. */
const HOSTS = ['main/index', 'main/ipc', 'main/server', 'main/appHost', 'main/acp'];
/** Integration tests in main meet real parts from anywhere in main, and use test/. */
const MAIN_TESTS = ['main', 'test'];

/**
 * The layers: every folder of main (and each file directly in main) and the folders around it,
 * with what its files may import. One row a folder; a new folder of main is one new row here (lint
 * and main/layers.test.ts fail until it has one). A file belongs to the row with the longest key its
 * repo-relative path, less its extension and `.test`, is under. What a row may import:
 *   may:      folders ('F/*': only the files directly in F) or extension-less files (values and types);
 *             its own folder always. Relative imports are resolved against the importing file first.
 *   not:      exceptions to `may` and its own folder (a host left out of 'main', core's folders for the files directly in it).
 *   types:    folders and packages only `import type` (or `import('…').T`) may reach.
 *   packages: the npm packages it may import (with their subpaths; one ending in '/' is a scope).
 *             Every row of main also gets LEAF_PACKAGES; node: builtins are always allowed.
 *   tests:    more that its *.test.ts(x) files may import (with TEST_PACKAGES).
 *   why:      the row's rule, shown in lint's message.
 * '*' in may or packages: anything (the tools around the app, which ship nothing).
 * Who alone imports a package is read off the table: node-llama-cpp is in main/llm's row only.
 */
/**
 * The core's folders, lowest first, each with the core folders below it that it may import besides
 * the files directly in main/core (types, hashes, config): no import runs up. A new folder of
 * main/core is one entry here (main/layers.test.ts fails until it has one).
 */
export const CORE_BELOW = {
  workspace: [], engine: [], checkpoints: [], trust: [],
  hygiene: ['workspace'],
  tools: ['workspace', 'hygiene'],
  permissions: ['workspace', 'hygiene', 'tools'],
  hooks: ['workspace', 'hygiene', 'tools', 'permissions'],
  context: ['engine', 'hygiene'],
  prompts: ['tools'],
  price: ['engine'],
  // A session's state: its row, turns, kept prompt, messages and notes, file changes.
  state: ['workspace', 'engine', 'checkpoints', 'trust', 'hygiene', 'tools', 'permissions', 'hooks', 'prompts'],
  // The one call pipeline, then what changes the past, then the front that wires them.
  calls: ['workspace', 'engine', 'hygiene', 'tools', 'permissions', 'hooks', 'state'],
  history: ['checkpoints', 'hygiene', 'state', 'calls'],
  session: ['workspace', 'hygiene', 'tools', 'hooks', 'state', 'calls', 'history'],
  // The loop on top: request → reply → calls → next request, each request's cache use recorded.
  turn: ['workspace', 'engine', 'checkpoints', 'hygiene', 'tools', 'hooks', 'context', 'prompts', 'price', 'state', 'calls', 'session'],
};
const CORE_WHY = 'main/core is plain Node (no Electron, no engine, no store, no adapters), testable anywhere; its tests may open the real store (main/db/store), use test/ and any of the core';
const coreRows = Object.fromEntries(Object.entries(CORE_BELOW).map(([folder, below]) => [`main/core/${folder}`, {
  may: ['main/core/*', 'loop.json', ...below.map((b) => `main/core/${b}`)], tests: ['main/core', 'main/db/store', 'test'],
  why: `${CORE_WHY}; main/core/${folder} sits above ${below.length ? below.map((b) => `core/${b}`).join(', ') : 'only the files directly in main/core'} and imports no core folder above it`,
}]));

export const LAYERS = {
  // The files directly in main/core: below all of its folders.
  'main/core': { may: ['loop.json'], not: Object.keys(CORE_BELOW).map((f) => `main/core/${f}`), tests: ['main/core', 'main/db/store', 'test'], why: CORE_WHY },
  ...coreRows,
  'main/llm': {
    may: ['main/core'], packages: ['node-llama-cpp', '@node-llama-cpp/', '@huggingface/jinja'], tests: MAIN_TESTS,
    why: 'main/llm is the in-process engine: the core and node-llama-cpp, nothing of other adapters or hosts',
  },
  'main/remote': {
    may: ['main/core'], packages: ['eventsource-parser'], tests: MAIN_TESTS,
    why: 'main/remote is the engine on a model server: the core and plain HTTP, nothing of other adapters or hosts',
  },
  'main/mcp': {
    // sandboxed.ts launches stdio servers inside the command sandbox; hub.ts types the contract's views.
    may: ['main/core', 'main/sandbox', 'package.json'], types: ['main/contract'], packages: ['@modelcontextprotocol/sdk'], tests: MAIN_TESTS,
    why: 'main/mcp is the MCP client: the core, the MCP SDK and the sandbox its servers run in',
  },
  'main/sandbox': {
    may: ['main/core'], packages: ['@anthropic-ai/sandbox-runtime'], tests: MAIN_TESTS,
    why: 'main/sandbox is the command runner: the core and sandbox-runtime, nothing of other adapters or hosts',
  },
  'main/checkpoints': {
    may: ['main/core'], tests: MAIN_TESTS,
    why: 'main/checkpoints is the shadow git repository behind core/checkpoints/types.ts: the core and git, nothing of other adapters or hosts',
  },
  'main/db': {
    may: ['main/core'], packages: ['better-sqlite3'], tests: [...MAIN_TESTS, 'bench/crash'],
    why: 'main/db is the store: it knows the core\'s rows and nothing of engines, hosts or UIs',
  },
  'main/contract': {
    may: ['main/core'], types: ['main/llm'], tests: MAIN_TESTS,
    why: 'the contract runs in the preload script and the page: values only from leaf modules of main/core (contract.test.ts walks them), types from main/llm',
  },
  'main/app': {
    may: ['main'], not: [...HOSTS, 'main/cli'], tests: MAIN_TESTS,
    why: 'the service (main/app) runs in plain Node under any host, and the hosts (CLI, IPC, server) call it',
  },
  'main/cli': {
    may: ['main'], not: HOSTS.filter((h) => h !== 'main/acp'), tests: MAIN_TESTS,
    why: 'the CLI is a host of its own, in plain Node: it calls the service, never another host (`keel acp` starts the ACP host: its entry point)',
  },
  'main/serverCache': {
    may: ['main/core', 'main/llm', 'main/remote'], tests: MAIN_TESTS,
    why: 'serverCache reads a llama-server\'s model (remote) with the local engine\'s GGUF insights (llm): the core and the engines',
  },
  'main/openEngine': {
    may: ['main/core', 'main/llm', 'main/remote'], tests: MAIN_TESTS,
    why: 'openEngine opens an engine (local or server) and an agent loop on it: the core and the engines',
  },
  'main/subagentHost': {
    may: ['main/core', 'main/openEngine'], tests: MAIN_TESTS,
    why: 'subagentHost runs the task tool\'s children on agent loops (openEngine) for the app, the CLI and the benches: the core and the engines\' one door',
  },
  'main/engineFixture': {
    may: ['main'], not: [...HOSTS, 'main/cli', 'main/app'], tests: MAIN_TESTS,
    why: 'the engine fixture wires a real engine, store and session for tests and keel check-model, below the service',
  },
  'main/keelHome': {
    may: ['main/llm', 'main/checkpoints'], tests: MAIN_TESTS,
    why: 'keelHome says where Keel\'s data lives (the store, the engine\'s saved states, the checkpoints)',
  },
  'main/appHost': {
    may: ['main'], not: ['main/index', 'main/ipc', 'main/server', 'main/cli'], tests: MAIN_TESTS,
    why: 'the app host is the one service and its event fan-out, which the transports bind',
  },
  'main/ipc': {
    may: ['main/contract'], types: ['main/appHost', 'electron'], tests: [...MAIN_TESTS, 'preload'],
    why: 'the IPC transport binds the contract to the host; Electron\'s ipcMain is handed in by main/index.ts',
  },
  'main/server': {
    may: ['main/contract', 'main/appHost', 'main/keelHome'], packages: ['ws'], tests: MAIN_TESTS,
    why: 'the browser-mode server binds the contract to the host over loopback HTTP/WebSocket',
  },
  'main/acp': {
    may: ['main/contract', 'main/appHost', 'main/core', 'package.json'], packages: ['@agentclientprotocol/sdk'], tests: MAIN_TESTS,
    why: 'the ACP agent binds the contract to an editor over JSON-RPC on stdio: the host and the SDK',
  },
  'main/index': {
    may: ['main'], packages: ['electron'],
    why: 'main/index.ts is the Electron app: the one place in main that imports Electron',
  },
  'main/layers': { why: 'the layer rule\'s own test' },
  renderer: {
    may: ['main/contract'], packages: ['react', 'react-dom', 'zustand', 'marked', 'dompurify', 'highlight.js', '@tanstack/react-virtual'],
    why: 'the renderer mirrors what main pushes and imports from main/ only the contract (main/contract.ts, main/contract/)',
  },
  preload: {
    may: ['main/contract'], packages: ['electron'],
    why: 'the preload script exposes the typed contract over contextBridge, nothing more',
  },
  test: { may: ['main'], packages: ['*'], why: 'helpers for tests' },
  bench: { may: ['*'], packages: ['*'], why: 'benchmarks' },
  e2e: { may: ['*'], packages: ['*'], why: 'browser tests' },
  conformance: { may: ['*'], packages: ['*'], why: 'conformance cases and their runner' },
  scripts: { may: ['*'], packages: ['*'], why: 'build and setup scripts' },
};

/** Repo-relative path without extension and `.test` ('main/app/settings.test.ts' → 'main/app/settings'). */
const bareOf = (rel) => rel.replace(/(\.test)?\.(c|m)?[jt]sx?$/, '');
/** Whether a path is under a row's folder; 'F/*': the files directly in F only. */
const under = (bare, dir) => dir === '*'
  || (dir.endsWith('/*') ? path.posix.dirname(bare) === dir.slice(0, -2) : bare === dir || bare.startsWith(`${dir}/`));
const packageMatches = (source, pkg) =>
  pkg === '*' || (pkg.endsWith('/') ? source.startsWith(pkg) : source === pkg || source.startsWith(`${pkg}/`));

/** The row a repo-relative file belongs to: the longest key it is under, or undefined. */
export function layerOf(rel) {
  const bare = bareOf(rel);
  return Object.keys(LAYERS).filter((key) => under(bare, key)).sort((a, b) => b.length - a.length)[0];
}

/**
 * keel/layers: every import must be one the importing file's LAYERS row allows. Covers static
 * imports, re-exports, dynamic import(), require(), `import x = require()` and import types. A file
 * in main/ outside every row is itself an error.
 */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep the layers of DESIGN.md apart (the LAYERS table of eslint.config.js)' },
    schema: [],
    messages: {
      forbidden: "'{{source}}' may not be imported here ({{layer}}{{typeNote}}): {{why}}",
      noRow: '{{folder}} has no row in the LAYERS table of eslint.config.js: add one saying what it may import',
    },
  },
  create(context) {
    const rel = path.relative(repoRoot, context.filename).split(path.sep).join('/');
    const key = layerOf(rel);
    if (!key) {
      if (rel.startsWith('main/')) {
        return {
          Program(node) {
            context.report({ node, messageId: 'noRow', data: { folder: rel.split('/').slice(0, 2).join('/').replace(/(\.test)?\.[jt]sx?$/, '') } });
          },
        };
      }
      return {}; // config files at the root and other tools' files are not layered
    }
    const row = LAYERS[key];
    const isTest = /\.test\.[jt]sx?$/.test(rel);
    const may = [key, ...(row.may ?? []), ...(isTest ? row.tests ?? [] : [])];
    const not = row.not ?? [];
    const types = row.types ?? [];
    const packages = [...(row.packages ?? []), ...(key.startsWith('main/') ? LEAF_PACKAGES : []), ...(isTest ? TEST_PACKAGES : [])];

    /** Whether an import is allowed; typeOnly: it brings types only. */
    const allowed = (source, typeOnly) => {
      if (source.startsWith('.') || source.startsWith('/')) {
        const target = path.relative(repoRoot, path.resolve(path.dirname(context.filename), source)).split(path.sep).join('/');
        const bare = target.replace(/\.(c|m)?[jt]sx?$/, '');
        const reaches = (dir) => under(bare, dir) || under(target, dir);
        if ((reaches(key) || may.some(reaches)) && !not.some(reaches)) return true;
        return typeOnly && types.some(reaches);
      }
      if (source.startsWith('node:') || builtinModules.includes(source)) return true;
      if (packages.some((pkg) => packageMatches(source, pkg))) return true;
      return typeOnly && types.some((pkg) => packageMatches(source, pkg));
    };

    const check = (node, sourceNode, typeOnly) => {
      if (!sourceNode || typeof sourceNode.value !== 'string') return;
      if (allowed(sourceNode.value, typeOnly)) return;
      context.report({
        node,
        messageId: 'forbidden',
        data: { source: sourceNode.value, layer: key, typeNote: typeOnly ? ', as a type' : '', why: row.why },
      });
    };

    const allTypeSpecifiers = (specifiers, kindKey) =>
      specifiers.length > 0 && specifiers.every((s) => s[kindKey] === 'type');

    return {
      ImportDeclaration(node) {
        check(node, node.source, node.importKind === 'type' || allTypeSpecifiers(node.specifiers, 'importKind'));
      },
      ExportNamedDeclaration(node) {
        if (node.source) {
          check(node, node.source, node.exportKind === 'type' || allTypeSpecifiers(node.specifiers, 'exportKind'));
        }
      },
      ExportAllDeclaration(node) {
        check(node, node.source, node.exportKind === 'type');
      },
      ImportExpression(node) {
        if (node.source.type === 'Literal') check(node, node.source, false);
      },
      CallExpression(node) {
        const [arg] = node.arguments;
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && arg?.type === 'Literal') {
          check(node, arg, false);
        }
      },
      TSImportEqualsDeclaration(node) {
        if (node.moduleReference.type === 'TSExternalModuleReference') {
          check(node, node.moduleReference.expression, node.importKind === 'type');
        }
      },
      TSImportType(node) {
        const arg = node.argument;
        check(node, arg?.type === 'TSLiteralType' ? arg.literal : arg, true);
      },
    };
  },
};

const keelPlugin = { rules: { layers: layersRule } };

export default tseslint.config(
  { ignores: ['out/', 'dist/', 'node_modules/', 'test-results/', 'bench/.work/', '.keel-test/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: true },
    plugins: { keel: keelPlugin },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      'keel/layers': 'error',
    },
  },
  {
    // Plain JS config files run in Node.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
