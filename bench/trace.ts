import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { formatId } from '../main/core/hygiene/ids.js';
import type { Rng } from './prng.js';
import type { Workspace } from './workspace.js';

/**
 * What the trace expects hygiene to do with a call, from its own model of the workspace and of
 * what the session has seen: a definite expectation is checked against the session afterwards.
 */
export type Expect = 'stub' | 'full' | 'same' | 'capped';

export type Step =
  | { type: 'call'; tool: string; args: Record<string, unknown>; intent: string; expect?: Expect }
  | { type: 'user'; words: string }
  | { type: 'reply_end' };

export interface Trace {
  steps: Step[];
  calls: number;
  turns: number;
}

const READ_WINDOW = 2000;
const TASKS = [
  'Find why the scheduler ignores retryLimit and fix it.',
  'The session cache leaks entries on reload; track it down.',
  'Add validation for the route table and cover it with a test.',
  'Rename the token buffer options consistently across the engine.',
  'The test suite fails on one case; make it pass.',
  'Document the handler API in docs/api.md.',
  'Speed up the graph passes; they allocate on every call.',
  'Clean up the FIXME comments in the store layer.',
  'Add a snapshot test for the layout component.',
  'Check that every handler validates its request.',
  'Make the journal flush on shutdown.',
  'Review the utilities for dead code.',
];
const GREP_WORDS = ['TODO', 'FIXME', 'retryLimit', 'sessionId', 'cacheKey', 'tokenCount', 'throw new RangeError', 'import type', 'logger\\.debug', 'await queue\\.push'];
const SEARCH_QUERIES = ['retry limit scheduler', 'session cache', 'token parser', 'route handler request', 'journal flush', 'layout theme'];
const SMALL_COMMANDS = [
  'ls -la src/core', 'wc -l src/core/*.ts', 'head -n 40 README.md', 'grep -rn "FIXME" src | wc -l', 'wc -c package.json tsconfig.json',
  'find . -type f | sort', 'tail -n 25 docs/api.md', 'ls tests/unit tests/integration', 'cat package.json',
];

interface FileState {
  /** Full reads whose content is still the file's (what a re-read may be a stub of). */
  reads: { start: number; end: number }[];
  /** Changed on disk since the session last saw it (the next change must read it first). */
  stale: boolean;
  /** The session has read or written it. */
  known: boolean;
}

/**
 * A deterministic agent trace over `ws`: turns of a person's request, exploration (grep, glob,
 * list, search — often repeated), reads (first, again, `./`-prefixed, partial inside and outside
 * earlier reads, after an edit), edits, writes, an apply_patch, commands with large output,
 * recalls of capped outputs, and a reply_end per turn. It keeps its own model of the files so
 * every edit's old_string is unique in the file as it is by then, and every recall names a real id.
 */
export function generateTrace(rng: Rng, ws: Workspace, minCalls: number): Trace {
  const files = new Map(ws.files);
  const state = new Map<string, FileState>();
  const steps: Step[] = [];
  let calls = 0;
  /** Bumped on every change to the workspace: a repeat with no change since is a definite `same`. */
  let generation = 0;
  const done = { grep: [] as Done[], glob: [] as Done[], list: [] as Done[], search: [] as Done[] };
  const capped: { id: number; lines: number; what: string }[] = [];
  let editNo = 0;
  let editAttempts = 0;

  interface Done { args: Record<string, unknown>; generation: number }

  const st = (rel: string): FileState => {
    let s = state.get(rel);
    if (!s) state.set(rel, (s = { reads: [], stale: false, known: false }));
    return s;
  };
  const lineCount = (rel: string): number => {
    const text = files.get(rel) ?? '';
    return text === '' ? 0 : text.replace(/\n$/, '').split('\n').length;
  };
  const call = (tool: string, args: Record<string, unknown>, intent: string, expect?: Expect): number => {
    steps.push({ type: 'call', tool, args, intent, expect });
    return ++calls;
  };
  const changed = (rel: string, text: string, bySession: boolean) => {
    files.set(rel, text);
    generation++;
    const s = st(rel);
    s.reads = [];
    s.stale = !bySession && s.known;
    if (bySession) s.known = true;
  };

  const read = (rel: string, opts: { offset?: number; limit?: number; dot?: boolean; intent?: string } = {}) => {
    const s = st(rel);
    const total = lineCount(rel);
    const start = opts.offset ?? 1;
    const end = Math.min(total, start - 1 + Math.min(opts.limit ?? READ_WINDOW, READ_WINDOW));
    const covered = !s.stale && s.reads.some((r) => r.start <= start && end <= r.end);
    const args: Record<string, unknown> = { path: opts.dot ? `./${rel}` : rel };
    if (opts.offset !== undefined) args.offset = opts.offset;
    if (opts.limit !== undefined) args.limit = opts.limit;
    const part = opts.offset !== undefined || opts.limit !== undefined;
    const derived = !part
      ? covered ? 'read: whole file again, unchanged' : s.reads.length ? 'read: whole file, wider than before' : 'read: first'
      : covered ? 'read: part inside an earlier read' : s.reads.length ? 'read: part outside earlier reads' : 'read: first (part)';
    const intent = opts.intent ?? derived;
    call('read', args, intent, total === 0 ? undefined : covered ? 'stub' : 'full');
    if (!covered && total > 0) s.reads.push({ start, end });
    s.stale = false;
    s.known = true;
  };

  const repeatable = (tool: keyof typeof done, args: Record<string, unknown>, intent: string) => {
    call(tool, args, intent);
    done[tool].push({ args, generation });
  };
  const repeat = (tool: keyof typeof done): boolean => {
    if (done[tool].length === 0) return false;
    const earlier = rng.pick(done[tool]);
    const reorder = Object.keys(earlier.args).length > 1 && rng.chance(0.5);
    const args = reorder ? Object.fromEntries(Object.entries(earlier.args).reverse()) : { ...earlier.args };
    // A repeat with nothing changed since must be `Same result as` (if the first one was in full).
    const unchanged = done[tool].some((d) => JSON.stringify(sorted(d.args)) === JSON.stringify(sorted(args)) && d.generation === generation);
    call(tool, args, `${tool}: repeated${reorder ? ', keys reordered' : ''}`, unchanged ? 'same' : undefined);
    return true;
  };

  const explore = (focus: string, turn: number) => {
    const kind = rng.weighted({
      grepNew: 3, grepRepeat: turn > 0 ? 3 : 0, globNew: 1, globRepeat: turn > 0 ? 1.5 : 0.5,
      listNew: 1, listRepeat: 1, searchNew: 1, searchRepeat: 0.7,
    });
    switch (kind) {
      case 'grepNew': case 'grepRepeat': {
        if (kind === 'grepRepeat' && repeat('grep')) return;
        const decl = ws.decls.get(rng.pick(ws.sources.filter((s) => s.startsWith(focus)).concat(ws.sources).slice(0, 12)));
        const pattern = rng.chance(0.6) && decl?.length ? rng.pick(decl).split(' ')[0] : rng.pick(GREP_WORDS);
        const args: Record<string, unknown> = { pattern };
        if (rng.chance(0.5)) args.path = focus;
        if (rng.chance(0.4)) args.include = '*.ts';
        return repeatable('grep', args, 'grep: new');
      }
      case 'globNew': case 'globRepeat': {
        if (kind === 'globRepeat' && repeat('glob')) return;
        const pattern = rng.pick(['**/*.ts', '**/*.test.ts', '*.md', '**/*.json', `${focus}/**/*.ts`, 'src/**/*Options*']);
        return repeatable('glob', rng.chance(0.3) ? { pattern, path: '.' } : { pattern }, 'glob: new');
      }
      case 'listNew': case 'listRepeat': {
        if (kind === 'listRepeat' && repeat('list')) return;
        return repeatable('list', rng.chance(0.3) ? {} : { path: rng.pick([focus, 'src', 'tests/unit', path.posix.dirname(focus)]) }, 'list: new');
      }
      default: {
        if (kind === 'searchRepeat' && repeat('search')) return;
        return repeatable('search', rng.chance(0.3) ? { query: rng.pick(SEARCH_QUERIES), path: 'src' } : { query: rng.pick(SEARCH_QUERIES) }, 'search: new');
      }
    }
  };

  const readSome = (focusFiles: string[]) => {
    const unread = focusFiles.filter((f) => st(f).reads.length === 0);
    const seen = [...state.entries()].filter(([f, s]) => s.reads.length > 0 && files.has(f)).map(([f]) => f);
    const kind = rng.weighted({ first: unread.length ? 5 : 0, again: seen.length ? 3 : 0, inside: seen.length ? 2 : 0, outside: seen.length ? 1.5 : 0, fallback: 0.1 });
    if (kind === 'first' || kind === 'fallback') {
      const rel = unread.length ? rng.pick(unread) : rng.pick(focusFiles);
      const total = lineCount(rel);
      if (total > 600 && rng.chance(0.4)) return read(rel, { offset: 1, limit: rng.int(150, 400) });
      return read(rel);
    }
    const rel = rng.pick(seen);
    const s = st(rel);
    const r = rng.pick(s.reads);
    const total = lineCount(rel);
    if (kind === 'again') return read(rel, { dot: rng.chance(0.35) });
    if (kind === 'inside') {
      const offset = rng.int(r.start, Math.max(r.start, r.end - 5));
      return read(rel, { offset, limit: Math.max(1, Math.min(rng.int(20, 300), r.end - offset + 1)), dot: rng.chance(0.2) });
    }
    // Outside: past the end of the earlier read, or straddling it.
    if (r.end < total) {
      const offset = rng.chance(0.5) ? r.end + 1 : Math.max(1, r.end - rng.int(5, 40));
      return read(rel, { offset, limit: rng.chance(0.5) ? rng.int(100, 400) : undefined });
    }
    if (r.start > 1) return read(rel, { offset: 1, limit: r.start + rng.int(0, 10) });
    return read(rel, { dot: true });
  };

  /** A unique two-line old_string in the file as it is now (a declaration and the line after). */
  const editSite = (rel: string): { old: string; line: string; next: string } | undefined => {
    const text = files.get(rel) ?? '';
    const lines = text.split('\n');
    const sites: number[] = [];
    lines.forEach((l, i) => {
      if ((l.startsWith('export ') || l.startsWith("  it('")) && i + 1 < lines.length && lines[i + 1] !== '') sites.push(i);
    });
    for (let tries = 0; tries < 8 && sites.length; tries++) {
      const i = rng.pick(sites);
      const old = `${lines[i]}\n${lines[i + 1]}`;
      if (text.split(old).length === 2) return { old, line: lines[i], next: lines[i + 1] };
    }
    return undefined;
  };
  const edited = (site: { line: string; next: string }): string => {
    editNo++;
    const next = /\d+/.test(site.next) && rng.chance(0.5) ? site.next.replace(/\d+/, (d) => String(Number(d) + editNo)) : site.next;
    return `${site.line}\n  // bench edit ${editNo}: ${rng.pick(['keep retryLimit', 'guard sessionId', 'clamp the limit', 'no allocation here'])}\n${next}`;
  };

  const edit = (rel: string) => {
    const s = st(rel);
    if (s.stale || !s.known) read(rel, { intent: s.stale ? 'read: after an outside change' : undefined });
    const site = editSite(rel);
    if (!site) return;
    if (++editAttempts % 9 === 4) {
      // A slip the agent then corrects: old_string as misremembered (a doubled space).
      call('edit', { path: rel, old_string: site.old.replace(' ', '  '), new_string: site.old }, 'edit: old_string not found');
    }
    const neu = edited(site);
    call('edit', { path: rel, old_string: site.old, new_string: neu }, 'edit');
    changed(rel, (files.get(rel) ?? '').replace(site.old, () => neu), true);
    if (rng.chance(0.5)) {
      const total = lineCount(rel);
      if (total > READ_WINDOW && rng.chance(0.5)) read(rel, { offset: 1, limit: 300, intent: 'read: after its edit' });
      else read(rel, { dot: rng.chance(0.3), intent: 'read: after its edit' });
    }
  };

  const bash = (focusFiles: string[], forced?: 'min') => {
    const kind = forced ?? rng.weighted({ tests: 2, testOne: 1.5, seq: 0.8, catBig: 0.8, min: 0.25, small: 3 });
    switch (kind) {
      case 'tests': {
        const id = call('bash', { command: 'bash scripts/test.sh' }, 'bash: whole test suite (1,500 lines)', 'capped');
        capped.push({ id, lines: 1495, what: 'tests' });
        return;
      }
      case 'testOne': {
        const tests = ws.sources.filter((s) => s.startsWith('tests/'));
        call('bash', { command: `bash scripts/test.sh ${rng.pick(tests)}` }, 'bash: one test file');
        return;
      }
      case 'seq': {
        const n = rng.pick([5000, 3000, 12000]);
        const id = call('bash', { command: `seq 1 ${n}` }, 'bash: seq (thousands of lines)', 'capped');
        capped.push({ id, lines: n, what: 'seq' });
        return;
      }
      case 'catBig': {
        const rel = rng.pick(ws.big.filter((b) => files.has(b)));
        const id = call('bash', { command: `cat ${rel}` }, 'bash: cat a 2,500+ line file', 'capped');
        capped.push({ id, lines: lineCount(rel), what: 'cat' });
        return;
      }
      case 'min':
        call('bash', { command: 'cat dist/app.min.js' }, 'bash: cat a 52,000-char one-line bundle', 'capped');
        return;
      default: {
        const cmd = rng.chance(0.3) && focusFiles.length ? `wc -l ${focusFiles.slice(0, 6).join(' ')}` : rng.pick(SMALL_COMMANDS);
        call('bash', { command: cmd }, 'bash: small command');
      }
    }
  };

  const recall = () => {
    if (capped.length === 0) return;
    const c = rng.pick(capped.slice(-4));
    const id = rng.chance(0.2) ? formatId(c.id).slice(1) : formatId(c.id);
    if (c.what === 'tests') return void call('recall', { id, offset: 1180, limit: 30 }, 'recall: the elided failure');
    const offset = rng.int(201, Math.max(201, c.lines - 400));
    call('recall', { id, offset, limit: rng.int(40, 250) }, 'recall: part of a capped output');
  };

  const writeNew = (turn: number) => {
    const rel = rng.chance(0.5) ? `docs/notes-${turn}.md` : `tests/unit/bench${turn}.test.ts`;
    const body = Array.from({ length: rng.int(12, 60) }, (_, i) => (rel.endsWith('.md') ? `- note ${i}: ${rng.pick(TASKS)}` : `it('case ${i}', () => expect(${i}).toBe(${i}));`)).join('\n') + '\n';
    call('write', { path: rel, content: body }, 'write: new file');
    changed(rel, body, true);
  };
  const writeOver = (focusFiles: string[]) => {
    const rel = focusFiles.find((f) => lineCount(f) < 300 && !st(f).stale);
    if (!rel) return;
    const lines = (files.get(rel) ?? '').split('\n');
    const at = rng.int(1, Math.max(1, lines.length - 12));
    lines.splice(at, 6, '// bench: rewritten block', ...lines.slice(at, at + 6).map((l) => l.replace(/\b(\d+)\b/, '$1_0')));
    const content = lines.join('\n');
    call('write', { path: rel, content }, 'write: over an existing file');
    changed(rel, content, true);
  };
  const applyPatch = (focusFiles: string[], turn: number) => {
    const targets = focusFiles.filter((f) => st(f).known && !st(f).stale).slice(0, 2);
    if (targets.length === 0) return;
    let patch = '';
    const after = new Map<string, string>();
    for (const rel of targets) {
      const site = editSite(rel);
      if (!site) continue;
      const before = files.get(rel) ?? '';
      const text = before.replace(site.old, () => edited(site));
      after.set(rel, text);
      patch += createTwoFilesPatch(`a/${rel}`, `b/${rel}`, before, text, undefined, undefined, { context: 3 });
    }
    const created = `docs/patch-${turn}.md`;
    const createdText = `# Patch notes ${turn}\n\n${rng.pick(TASKS)}\n`;
    patch += createTwoFilesPatch('/dev/null', `b/${created}`, '', createdText, undefined, undefined, { context: 3 });
    call('apply_patch', { patch }, `apply_patch: changes ${after.size} file${after.size === 1 ? '' : 's'}, creates 1`);
    for (const [rel, text] of after) changed(rel, text, true);
    changed(created, createdText, true);
  };
  const outsideChange = (focusFiles: string[]) => {
    const rel = focusFiles.find((f) => (files.get(f) ?? '').split('\n', 1)[0].includes('generated fixture'));
    if (!rel) return;
    call('bash', { command: `sed -i '1s/generated fixture/formatted fixture/' ${rel}` }, 'bash: a formatter changes a file');
    const text = files.get(rel) ?? '';
    changed(rel, text.replace('generated fixture', 'formatted fixture'), false);
  };

  let turn = 0;
  while (calls < minCalls) {
    steps.push({ type: 'user', words: TASKS[turn % TASKS.length] });
    const focus = rng.pick(ws.folders);
    const focusFiles = ws.sources.filter((s) => path.posix.dirname(s) === focus && files.has(s));
    if (turn === 0) {
      repeatable('list', {}, 'list: new');
      repeatable('glob', { pattern: '**/*.ts' }, 'glob: new');
      read('README.md');
      read('package.json');
    }
    for (let i = rng.int(2, 4); i > 0; i--) explore(focus, turn);
    for (let i = rng.int(4, 7); i > 0; i--) readSome(focusFiles);
    if (turn % 5 === 4) outsideChange(focusFiles);
    for (let i = rng.int(1, 3); i > 0; i--) edit(rng.pick(focusFiles));
    if (rng.chance(0.4)) explore(focus, turn);
    if (turn % 4 === 2) writeNew(turn);
    if (turn % 6 === 3) writeOver(focusFiles);
    if (turn % 5 === 1) applyPatch(focusFiles, turn);
    for (let i = rng.int(1, 3); i > 0; i--) bash(focusFiles);
    if (turn === 7) bash(focusFiles, 'min');
    if (rng.chance(0.55)) recall();
    if (rng.chance(0.5)) readSome(focusFiles);
    steps.push({ type: 'reply_end' });
    turn++;
  }
  return { steps, calls, turns: turn };
}

function sorted(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]]));
}
