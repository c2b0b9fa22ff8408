// ESLint flat config: recommended rules (no type-aware rules, so it stays fast) plus the layering
// rule from DESIGN.md ("Layers by folder").
import path from 'node:path';
import js from '@eslint/js'; // ships with eslint 9 (its own dependency, pinned by eslint)
import tseslint from 'typescript-eslint';

const repoRoot = import.meta.dirname;

/**
 * keel/layers: forbids imports that cross a layer. Options:
 *   packages: bare specifiers forbidden with their subpaths ('electron' also bans 'electron/main');
 *             one ending in '/' is a scope prefix ('@node-llama-cpp/').
 *   dirs:     repo-relative folders or extension-less files ('main/llm', 'main/index'); relative
 *             imports are resolved against the importing file before matching.
 *   allow:    repo-relative folders or files exempt from `dirs` ('main/db/store' inside a banned 'main/db').
 *   allowTypeImports: true allows `import type`/`export type` (and `import('…').T`) of the targets.
 *   reason:   the layer's rule, shown in the message.
 * Covers static imports, re-exports, dynamic import(), require(), `import x = require()` and
 * import types.
 */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep the layers of DESIGN.md apart' },
    schema: [
      {
        type: 'object',
        properties: {
          packages: { type: 'array', items: { type: 'string' } },
          dirs: { type: 'array', items: { type: 'string' } },
          allow: { type: 'array', items: { type: 'string' } },
          allowTypeImports: { type: 'boolean' },
          reason: { type: 'string' },
        },
        additionalProperties: false,
      },
    ],
    messages: { forbidden: "'{{source}}' may not be imported here{{typeNote}}: {{reason}}" },
  },
  create(context) {
    const { packages = [], dirs = [], allow = [], allowTypeImports = false, reason = '' } = context.options[0] ?? {};
    const filename = context.filename;

    /** Whether a module specifier names a forbidden target. */
    const isForbidden = (source) => {
      if (source.startsWith('.') || source.startsWith('/')) {
        const absolute = path.resolve(path.dirname(filename), source);
        const rel = path.relative(repoRoot, absolute).split(path.sep).join('/');
        const bare = rel.replace(/\.(c|m)?[jt]sx?$/, '');
        const under = (dir) => bare === dir || rel.startsWith(`${dir}/`);
        return dirs.some(under) && !allow.some(under);
      }
      return packages.some((pkg) =>
        pkg.endsWith('/') ? source.startsWith(pkg) : source === pkg || source.startsWith(`${pkg}/`),
      );
    };

    const check = (node, sourceNode, typeOnly) => {
      if (!sourceNode || typeof sourceNode.value !== 'string') return;
      if (typeOnly && allowTypeImports) return;
      if (!isForbidden(sourceNode.value)) return;
      context.report({
        node,
        messageId: 'forbidden',
        data: {
          source: sourceNode.value,
          typeNote: allowTypeImports ? ' except as `import type`' : '',
          reason,
        },
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

/** The adapters and hosts around the core (main/mcp and main/sandbox adapt MCP servers and the OS sandbox). */
const ADAPTERS = [
  'main/db', 'main/app', 'main/cli', 'main/llm', 'main/ipc', 'main/server', 'main/mcp', 'main/sandbox',
  'main/index', 'main/appHost', 'main/openEngine', 'main/keelHome', 'main/contract', 'main/methods',
  'main/checkpoints', // the shadow git repository behind core/checkpoints/types.ts
];
/** What is not the app's code at all: the UI, benches, end-to-end and conformance harnesses, test support. */
const OUTSIDE_MAIN = ['renderer', 'preload', 'bench', 'e2e', 'conformance', 'scripts', 'test'];
const ADAPTER_PACKAGES = [
  'electron', 'node-llama-cpp', '@node-llama-cpp/', 'better-sqlite3', '@anthropic-ai/sandbox-runtime', '@modelcontextprotocol/',
];
const CORE_REASON = 'main/core is plain Node (no Electron, no engine, no store, no adapters), testable anywhere';

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
    },
  },
  {
    // Plain JS config files run in Node.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // The core is plain Node: no engine, no store, no UI, no host. It reaches adapters only through
    // the interfaces it declares (Engine, SessionStore, ExternalTools, CommandRunner).
    files: ['main/core/**'],
    ignores: ['main/core/**/*.test.ts'],
    rules: { 'keel/layers': ['error', { packages: ADAPTER_PACKAGES, dirs: [...ADAPTERS, ...OUTSIDE_MAIN], reason: CORE_REASON }] },
  },
  {
    // Core tests run against real SQLite files (DESIGN: "real temporary folders, real SQLite files"):
    // they may open the store, and use the test/ support folder; nothing else outside the core.
    files: ['main/core/**/*.test.ts'],
    rules: {
      'keel/layers': [
        'error',
        {
          packages: ADAPTER_PACKAGES,
          dirs: [...ADAPTERS, ...OUTSIDE_MAIN.filter((d) => d !== 'test')],
          allow: ['main/db/store'],
          reason: `${CORE_REASON}; its tests may open the real store (main/db/store) and use test/`,
        },
      ],
    },
  },
  {
    files: ['main/db/**'],
    rules: {
      'keel/layers': [
        'error',
        {
          packages: ['electron', 'node-llama-cpp', '@node-llama-cpp/', '@anthropic-ai/sandbox-runtime', '@modelcontextprotocol/'],
          dirs: ADAPTERS.filter((d) => d !== 'main/db'),
          reason: 'main/db is the store: it knows the core\'s rows and nothing of engines, hosts or UIs',
        },
      ],
    },
  },
  {
    files: ['main/cli/**'],
    rules: {
      'keel/layers': [
        'error',
        {
          packages: ['electron'],
          dirs: ['main/ipc', 'main/server', 'main/index', 'main/appHost', 'renderer', 'preload'],
          reason: 'the CLI is a host of its own, in plain Node: it calls the service, never another host',
        },
      ],
    },
  },
  {
    files: ['main/app/**'],
    rules: {
      'keel/layers': [
        'error',
        {
          packages: ['electron'],
          dirs: ['main/ipc', 'main/server', 'main/index', 'main/appHost', 'main/cli', 'renderer', 'preload'],
          reason: 'the service (main/app) runs in plain Node under any host, and the hosts (CLI, IPC, server) call it',
        },
      ],
    },
  },
  {
    files: ['renderer/**'],
    rules: {
      'keel/layers': [
        'error',
        {
          packages: ['electron'],
          dirs: ['main'],
          allow: ['main/contract'],
          allowTypeImports: true,
          reason: 'the renderer mirrors what main pushes and imports from main/ only the contract (main/contract.ts, main/contract/) and types',
        },
      ],
    },
  },
  {
    // The contract holds values and is bundled into the sandboxed preload script and the page:
    // adapters and Node-only code only as types (contract.test.ts walks its value imports).
    files: ['main/contract.ts', 'main/contract/**'],
    rules: {
      'keel/layers': [
        'error',
        {
          packages: ['electron', 'node-llama-cpp', '@node-llama-cpp/', 'better-sqlite3', 'ws', '@modelcontextprotocol/'],
          dirs: ['main/app', 'main/db', 'main/llm', 'main/ipc', 'main/server', 'main/cli', 'main/mcp', 'main/sandbox', 'main/index', 'main/appHost', 'main/openEngine'],
          allowTypeImports: true,
          reason: 'the contract runs in the preload script and the page: values only from leaf modules of main/core',
        },
      ],
    },
  },
);
