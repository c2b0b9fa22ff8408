import fs from 'node:fs';
import path from 'node:path';
import type { Rng } from './prng.js';

/**
 * A repository-like workspace, generated from a seed: TypeScript-like sources a few folders deep
 * (20 to 800 lines, a few of 2,500+), tests, docs, a README, a package.json, a fake test script
 * and a minified bundle. Everything is LF text; the first line of every source names its path.
 */
export interface Workspace {
  /** Relative path (slash-separated) → content. */
  files: Map<string, string>;
  /** TypeScript sources and tests, in generation order. */
  sources: string[];
  /** Sources of 2,500 lines or more. */
  big: string[];
  /** Top-level names (functions, classes, interfaces) declared in each source. */
  decls: Map<string, string[]>;
  /** Folders holding sources (for list, glob and grep paths). */
  folders: string[];
}

const FOLDERS: [string, number][] = [
  ['src', 4], ['src/core', 8], ['src/core/engine', 7], ['src/core/engine/passes', 6], ['src/util', 7],
  ['src/api', 4], ['src/api/handlers', 7], ['src/ui/components', 6], ['src/store', 5],
];
const TEST_FOLDERS: [string, number][] = [['tests/unit', 8], ['tests/integration', 3]];

const NOUNS = [
  'token', 'buffer', 'session', 'cache', 'route', 'queue', 'graph', 'schema', 'journal', 'snapshot', 'layout',
  'theme', 'dialog', 'table', 'record', 'stream', 'batch', 'policy', 'limit', 'window', 'frame', 'node', 'edge',
  'cursor', 'range', 'symbol', 'scope', 'module', 'plugin', 'handler', 'request', 'reply', 'header', 'entry',
];
const VERBS = [
  'parse', 'scan', 'build', 'resolve', 'load', 'emit', 'render', 'merge', 'split', 'apply', 'compute', 'check',
  'encode', 'decode', 'collect', 'flush', 'schedule', 'retry', 'normalize', 'format', 'validate', 'index',
];
const ADJS = ['stale', 'pending', 'shared', 'local', 'remote', 'cached', 'partial', 'raw', 'sorted', 'active'];
const TYPES = ['string', 'number', 'boolean', 'string[]', 'number[]', 'Map<string, number>', 'Set<string>', 'Uint8Array'];
const SENTENCES = [
  'Keeps the order of entries as they were added.',
  'Returns the number of items it could not place.',
  'Never throws on empty input; returns an empty result instead.',
  'The caller owns the returned buffer.',
  'Runs in linear time over the input.',
  'Retries up to retryLimit times before giving up.',
  'The sessionId is only used for logging.',
  'TODO: handle the cacheKey collision case.',
  'FIXME: this allocates on every call.',
  'Shared by the scheduler and the router.',
  'Mirrors the shape the API returns.',
  'Values past the limit are clamped, not rejected.',
];

const cap = (w: string) => w[0].toUpperCase() + w.slice(1);

/** Builds the workspace in memory; `writeWorkspace` puts it on disk. */
export function generateWorkspace(rng: Rng): Workspace {
  const files = new Map<string, string>();
  const sources: string[] = [];
  const big: string[] = [];
  const decls = new Map<string, string[]>();
  const used = new Set<string>();

  const unique = (base: string): string => {
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}${i}`;
    used.add(name);
    return name;
  };

  const moduleNames: string[] = [];
  const plan: { rel: string; lines: number }[] = [];
  const bigSlots = new Set([5, 14, 27, 40]);
  let slot = 0;
  for (const [folder, count] of FOLDERS) {
    for (let i = 0; i < count; i++, slot++) {
      const mod = unique(`${rng.pick(NOUNS)}${cap(rng.pick(NOUNS))}`);
      moduleNames.push(mod);
      const lines = bigSlots.has(slot) ? rng.int(2500, 3200) : Math.round(20 + 780 * rng.next() ** 2);
      plan.push({ rel: `${folder}/${mod}.ts`, lines });
    }
  }

  for (const { rel, lines } of plan) {
    const { text, names } = sourceFile(rng, rel, lines, plan.map((p) => p.rel), unique);
    files.set(rel, text);
    sources.push(rel);
    decls.set(rel, names);
    if (lines >= 2500) big.push(rel);
  }

  const testable = sources.slice();
  for (const [folder, count] of TEST_FOLDERS) {
    for (let i = 0; i < count; i++) {
      const target = testable[(i * 7 + folder.length) % testable.length];
      const rel = `${folder}/${path.basename(target, '.ts')}.test.ts`;
      const lines = folder === 'tests/integration' && i === 0 ? rng.int(2500, 2700) : rng.int(40, 400);
      const { text, names } = testFile(rng, rel, target, decls.get(target) ?? [], lines, unique);
      files.set(rel, text);
      sources.push(rel);
      decls.set(rel, names);
      if (lines >= 2500) big.push(rel);
    }
  }

  files.set('README.md', readme(rng, sources));
  files.set('package.json', packageJson());
  files.set('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, outDir: 'dist' }, include: ['src', 'tests'] }, null, 2) + '\n');
  files.set('.gitignore', 'node_modules/\ndist/\ncoverage/\n');
  files.set('docs/architecture.md', prose(rng, 'Architecture', 140));
  files.set('docs/api.md', prose(rng, 'API', 220));
  files.set('scripts/test.sh', TEST_SCRIPT);
  files.set('dist/app.min.js', minified(rng, 52_000));

  const folders = [...new Set(sources.map((s) => path.posix.dirname(s)))];
  return { files, sources, big, decls, folders };
}

export function writeWorkspace(root: string, files: Map<string, string>): void {
  for (const [rel, content] of files) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
}

function importsFor(rng: Rng, rel: string, all: string[]): string[] {
  const out: string[] = [];
  const n = rng.int(1, 5);
  for (let i = 0; i < n; i++) {
    const other = rng.pick(all);
    if (other === rel) continue;
    let spec = path.posix.relative(path.posix.dirname(rel), other).replace(/\.ts$/, '.js');
    if (!spec.startsWith('.')) spec = `./${spec}`;
    const line = `import ${rng.chance(0.3) ? 'type ' : ''}{ ${rng.pick(VERBS)}${cap(rng.pick(NOUNS))} } from '${spec}';`;
    if (!out.includes(line)) out.push(line);
  }
  return out;
}

function statement(rng: Rng, depth: number): string {
  const ind = '  '.repeat(depth);
  const a = `${rng.pick(ADJS)}${cap(rng.pick(NOUNS))}`;
  const b = rng.pick(NOUNS);
  switch (rng.int(0, 11)) {
    case 0: return `${ind}const ${a} = ${b}s.filter((x) => x.${rng.pick(NOUNS)}Count > ${rng.int(0, 64)});`;
    case 1: return `${ind}let ${a} = options.${rng.pick(['retryLimit', 'cacheKey', 'sessionId', 'tokenCount'])} ?? ${rng.int(1, 512)};`;
    case 2: return `${ind}if (${b}.${rng.pick(NOUNS)}Id === undefined) return ${rng.pick(['undefined', 'null', '0', 'false', '[]'])};`;
    case 3: return `${ind}${b}Map.set(${b}.id, ${rng.pick(VERBS)}${cap(rng.pick(NOUNS))}(${b}, ${rng.int(1, 99)}));`;
    case 4: return `${ind}total += ${rng.pick(VERBS)}${cap(b)}(input, ${rng.int(0, 32)}) % limit;`;
    case 5: return `${ind}// ${rng.pick(SENTENCES)}`;
    case 6: return `${ind}logger.debug(\`${rng.pick(VERBS)} ${b}: \${${b}.id} (\${elapsed} ms)\`);`;
    case 7: return `${ind}throw new RangeError(\`${b} \${${b}.id} is out of range: \${value}\`);`;
    case 8: return `${ind}const ${a}Key = \`\${sessionId}:\${${b}.id}:${rng.int(0, 9999)}\`;`;
    case 9: return `${ind}await queue.push({ kind: '${b}', at: Date.now(), weight: ${rng.int(1, 100)} });`;
    case 10: return `${ind}result.push(...${b}s.slice(${rng.int(0, 8)}, ${rng.int(9, 64)}));`;
    default: return `${ind}${a}.${rng.pick(VERBS)}(${rng.pick(NOUNS)}, { strict: ${rng.chance(0.5)}, depth: ${rng.int(1, 8)} });`;
  }
}

function functionBlock(rng: Rng, name: string, lines: number): string[] {
  const out = ['/**', ` * ${rng.pick(SENTENCES)}`, ` * ${rng.pick(SENTENCES)}`, ' */'];
  out.push(`export ${rng.chance(0.3) ? 'async ' : ''}function ${name}(input: string, options: ${cap(rng.pick(NOUNS))}Options = {}): ${rng.pick(TYPES)} {`);
  out.push('  const limit = options.limit ?? 128;', '  let total = 0;');
  let body = Math.max(2, lines - 9);
  while (body > 0) {
    if (body > 5 && rng.chance(0.25)) {
      out.push(`  for (const ${rng.pick(NOUNS)} of ${rng.pick(NOUNS)}s) {`, statement(rng, 2), statement(rng, 2), '  }');
      body -= 4;
    } else if (body > 4 && rng.chance(0.2)) {
      out.push(`  if (total > limit) {`, statement(rng, 2), '  }');
      body -= 3;
    } else {
      out.push(statement(rng, 1));
      body--;
    }
  }
  out.push('  return total as never;', '}', '');
  return out;
}

function interfaceBlock(rng: Rng, name: string): string[] {
  const out = [`/** ${rng.pick(SENTENCES)} */`, `export interface ${name} {`];
  for (let i = rng.int(2, 9); i > 0; i--) out.push(`  ${rng.pick(ADJS)}${cap(rng.pick(NOUNS))}${rng.chance(0.3) ? '?' : ''}: ${rng.pick(TYPES)};`);
  out.push('}', '');
  return out;
}

function classBlock(rng: Rng, name: string, lines: number, unique: (b: string) => string): { out: string[]; methods: string[] } {
  const out = [`/** ${rng.pick(SENTENCES)} */`, `export class ${name} {`, `  private readonly ${rng.pick(NOUNS)}s = new Map<string, number>();`, ''];
  const methods: string[] = [];
  while (out.length < lines - 2) {
    const m = unique(`${rng.pick(VERBS)}${cap(rng.pick(NOUNS))}`);
    methods.push(m);
    out.push(`  ${m}(${rng.pick(NOUNS)}: ${rng.pick(TYPES)}): void {`);
    for (let i = rng.int(2, 10); i > 0; i--) out.push(statement(rng, 2));
    out.push('  }', '');
  }
  out.push('}', '');
  return { out, methods };
}

function tableBlock(rng: Rng, name: string, rows: number): string[] {
  const out = [`/** Generated table: ${rng.pick(SENTENCES)} */`, `export const ${name}: [number, number, string][] = [`];
  let at = rng.int(0, 0xffff);
  for (let i = 0; i < rows; i++) {
    const end = at + rng.int(1, 300);
    out.push(`  [0x${at.toString(16)}, 0x${end.toString(16)}, '${rng.pick(ADJS)}-${rng.pick(NOUNS)}'],`);
    at = end + rng.int(1, 40);
  }
  out.push('];', '');
  return out;
}

function sourceFile(rng: Rng, rel: string, target: number, all: string[], unique: (b: string) => string): { text: string; names: string[] } {
  const out = [`// ${rel} — generated fixture for the Keel hygiene benchmark`, ...importsFor(rng, rel, all), ''];
  const names: string[] = [];
  const generated = target >= 2500;
  while (out.length < target) {
    const left = target - out.length;
    const r = rng.next();
    if (generated && r < 0.35) {
      const name = unique(`${rng.pick(ADJS).toUpperCase()}_${rng.pick(NOUNS).toUpperCase()}_TABLE`);
      names.push(name);
      out.push(...tableBlock(rng, name, Math.min(left, rng.int(40, 160))));
    } else if (r < 0.2) {
      const name = unique(`${cap(rng.pick(ADJS))}${cap(rng.pick(NOUNS))}`);
      names.push(name);
      out.push(...interfaceBlock(rng, name));
    } else if (r < 0.35 && left > 20) {
      const name = unique(`${cap(rng.pick(NOUNS))}${cap(rng.pick(NOUNS))}`);
      names.push(name);
      const block = classBlock(rng, name, Math.min(left, rng.int(20, 90)), unique);
      out.push(...block.out);
    } else {
      const name = unique(`${rng.pick(VERBS)}${cap(rng.pick(NOUNS))}${cap(rng.pick(NOUNS))}`);
      names.push(name);
      out.push(...functionBlock(rng, name, Math.min(Math.max(left, 10), rng.int(10, 45))));
    }
  }
  return { text: out.join('\n') + '\n', names };
}

function testFile(rng: Rng, rel: string, target: string, targetNames: string[], lines: number, unique: (b: string) => string): { text: string; names: string[] } {
  let spec = path.posix.relative(path.posix.dirname(rel), target).replace(/\.ts$/, '.js');
  if (!spec.startsWith('.')) spec = `./${spec}`;
  const fns = targetNames.slice(0, 4);
  const out = [
    `// ${rel} — generated fixture for the Keel hygiene benchmark`,
    "import { describe, expect, it } from 'vitest';",
    `import { ${fns.join(', ') || 'noop'} } from '${spec}';`,
    '',
    `describe('${path.basename(target, '.ts')}', () => {`,
  ];
  const names: string[] = [];
  while (out.length < lines - 2) {
    const fn = fns.length ? rng.pick(fns) : 'noop';
    const name = unique(`${fn} case ${rng.pick(ADJS)} ${rng.pick(NOUNS)}`);
    names.push(name);
    out.push(`  it('${name}', () => {`);
    for (let i = rng.int(1, 5); i > 0; i--) out.push(`    expect(${fn}('${rng.pick(NOUNS)}', { limit: ${rng.int(1, 64)} })).toBe(${rng.int(0, 99)});`);
    out.push('  });', '');
  }
  out.push('});');
  return { text: out.join('\n') + '\n', names };
}

function prose(rng: Rng, title: string, lines: number): string {
  const out = [`# ${title}`, ''];
  while (out.length < lines) {
    if (rng.chance(0.15)) out.push('', `## ${cap(rng.pick(VERBS))} the ${rng.pick(NOUNS)} ${rng.pick(NOUNS)}`, '');
    else out.push(`${rng.pick(SENTENCES)} ${rng.pick(SENTENCES)} See \`${rng.pick(VERBS)}${cap(rng.pick(NOUNS))}\`.`);
  }
  return out.join('\n') + '\n';
}

function readme(rng: Rng, sources: string[]): string {
  const out = [
    '# fixture-engine', '',
    'A mid-sized TypeScript service used as the workspace of the Keel hygiene benchmark.', '',
    '## Layout', '',
    ...sources.filter((_, i) => i % 3 === 0).map((s) => `- \`${s}\``), '',
    '## Running', '', '```sh', 'npm install', 'npm test', 'npm run build', '```', '',
  ];
  return out.join('\n') + '\n' + prose(rng, 'Notes', 60);
}

function packageJson(): string {
  return JSON.stringify({
    name: 'fixture-engine', version: '1.4.2', private: true, type: 'module',
    scripts: { build: 'tsc -p tsconfig.json', test: 'bash scripts/test.sh', lint: 'eslint src tests' },
    dependencies: { zod: '3.23.8', picomatch: '4.0.2' },
    devDependencies: { typescript: '5.6.3', vitest: '2.1.4', eslint: '9.14.0' },
  }, null, 2) + '\n';
}

function minified(rng: Rng, chars: number): string {
  let s = '"use strict";';
  while (s.length < chars) s += `function ${rng.pick(NOUNS)[0]}${rng.int(0, 999)}(a,b){return a.${rng.pick(NOUNS)}+b*${rng.int(1, 99)}}`;
  return s + '\n';
}

/** A fake test run: 1,500 lines for the whole suite (one failure in the middle), a few for one file. */
const TEST_SCRIPT = `#!/usr/bin/env bash
# Fake test runner for the Keel hygiene benchmark: a long, deterministic report.
echo "> fixture-engine@1.4.2 test"
echo "> vitest run \${1:-}"
echo
if [ -n "\${1:-}" ]; then
  for i in $(seq 1 24); do printf ' ✓ %s > case %d (%dms)\\n' "$1" "$i" "$(( i % 7 ))"; done
  echo
  echo " Test Files  1 passed (1)"
  echo "      Tests  24 passed (24)"
  exit 0
fi
for i in $(seq 1 1488); do
  if [ "$i" -eq 1187 ]; then
    printf ' ✗ tests/unit/suite%02d.test.ts > case %d retries up to retryLimit (%dms)\\n' "$(( i % 37 ))" "$i" 12
    printf '   AssertionError: expected 3 to be 4\\n'
    continue
  fi
  printf ' ✓ tests/unit/suite%02d.test.ts > case %d handles input %d (%dms)\\n' "$(( i % 37 ))" "$i" "$(( i * 7 % 101 ))" "$(( i % 13 ))"
done
echo
echo " Test Files  1 failed | 36 passed (37)"
echo "      Tests  1 failed | 1487 passed (1488)"
echo "   Duration  4.21s"
exit 1
`;
