/**
 * Benchmark of context hygiene (spec context 3.1.0, §1–§6): replays a deterministic agent trace of
 * 220+ tool calls on a generated repository-like workspace, through a real Session (agent, mode
 * auto) on a real SQLite file, and prints what hygiene inserted against answering every call in
 * full, and what it costs in time: the pure insertResult, the store's insert and recall.
 *
 *   npm run bench:hygiene
 *   KEEL_BENCH_SEED=<int>      another workspace and trace
 *   KEEL_BENCH_OUT=<file.json> also write one record per call (chars, tokens, kind, timing)
 *
 * Timing figures are printed, never asserted. It exits 1 when its own checks find problems (named
 * on stderr), when the replay itself breaks (an exception) or the trace is too short.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { contextConfig } from '../main/core/config.js';
import { insertResult } from '../main/core/hygiene/insert.js';
import { formatId } from '../main/core/hygiene/ids.js';
import type { Inserted, TableEntry } from '../main/core/hygiene/types.js';
import { DEFAULT_PROMPTS_DIR } from '../main/core/prompts/buildSystemPrompt.js';
import { Session } from '../main/core/session/session.js';
import type { ReplyCall, ResultRow } from '../main/core/state/types.js';
import { ToolRegistry } from '../main/core/tools/registry.js';
import { requireSandbox } from '../main/app/sessionDeps.js';
import { appDeps } from './appDeps.js';
import { checkProblems } from './checks.js';
import { stopSandbox } from '../main/sandbox/runner.js';
import type { RawOutput, Tool } from '../main/core/tools/types.js';
import { SqliteStore } from '../main/db/store.js';
import { answeredInFull, countTokens, fmtInt, fmtNs, median, nowNs, quantile } from './measure.js';
import { Rng } from './prng.js';
import { generateTrace, type Expect } from './trace.js';
import { generateWorkspace, writeWorkspace } from './workspace.js';

const SEED = Number(process.env.KEEL_BENCH_SEED ?? 0x6b65656c);
const MIN_CALLS = 230;
const HYGIENE_REPS = 25;
const RECALL_PASSES = 5;
/** KEEL_BENCH_OUT=<file.json>: also write one record per call there. */
const OUT_JSON = process.env.KEEL_BENCH_OUT;

/** The store, timing every insertResult and getResult it is asked for. */
class TimedStore extends SqliteStore {
  readonly insertNs: number[] = [];
  readonly getNs: number[] = [];

  override insertResult(row: ResultRow): void {
    const t0 = nowNs();
    super.insertResult(row);
    this.insertNs.push(nowNs() - t0);
  }

  override getResult(sessionId: number, number: number): ResultRow | undefined {
    const t0 = nowNs();
    const r = super.getResult(sessionId, number);
    this.getNs.push(nowNs() - t0);
    return r;
  }
}

/** The real tools, keeping the raw output of the last run and how long the tool itself took. */
class RecordingRegistry extends ToolRegistry {
  last: RawOutput | undefined;
  runNs = 0;

  override get(name: string): Tool | undefined {
    const tool = super.get(name);
    if (!tool) return undefined;
    return {
      ...tool,
      run: async (args, ctx) => {
        const t0 = nowNs();
        try {
          const raw = await tool.run(args, ctx);
          this.last = raw;
          return raw;
        } finally {
          this.runNs = nowNs() - t0;
        }
      },
    };
  }
}

interface Rec {
  number: number;
  tool: string;
  intent: string;
  expect?: Expect;
  args: Record<string, unknown>;
  raw: RawOutput;
  table: TableEntry[];
  ins: Inserted;
  full: string;
  capped: boolean;
  tableNs: number;
  overheadNs: number;
}

async function main(): Promise<void> {
  const started = Date.now();
  const rng = new Rng(SEED);
  const ws = generateWorkspace(rng);
  const trace = generateTrace(rng, ws, MIN_CALLS);
  if (trace.calls < 220) throw new Error(`the trace has only ${trace.calls} calls`);

  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-')));
  const root = path.join(tmp, 'workspace');
  fs.mkdirSync(root);
  const store = new TimedStore(path.join(tmp, 'keel.db'));
  try {
    writeWorkspace(root, ws.files);
    const wsLines = [...ws.files.values()].reduce((n, t) => n + t.split('\n').length - 1, 0);
    const tools = new RecordingRegistry();
    // The session as the app builds it (the OS sandbox runs its commands); a command that would run
    // without it fails the bench instead of measuring something else.
    const { deps, missing } = appDeps({ store, dataFolder: path.join(tmp, 'data'), tools, promptsDir: DEFAULT_PROMPTS_DIR });
    await requireSandbox(deps, 'bench:hygiene');
    const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', title: 'hygiene bench' });

    // ---- Replay --------------------------------------------------------------------------
    const recs: Rec[] = [];
    let turns = 0;
    // As the engine does: a reply is stored with its calls, and only then do its results join the dedupe table.
    let calls: ReplyCall[] = [];
    const storeReply = () => {
      if (calls.length > 0) session.recordReply('', calls);
      calls = [];
    };
    for (const step of trace.steps) {
      if (step.type === 'user') {
        storeReply();
        session.userMessage(step.words, { date: '2026-11-05' });
        turns++;
        continue;
      }
      if (step.type === 'reply_end') {
        storeReply();
        session.endReply();
        continue;
      }
      let t0 = nowNs();
      const table = session.table();
      const tableNs = nowNs() - t0;
      tools.last = undefined;
      tools.runNs = 0;
      t0 = nowNs();
      const ins = await session.calls.run(step.tool, step.args);
      const callNs = nowNs() - t0;
      calls.push({ name: step.tool, args: step.args, number: ins.number, raw: '' });
      const raw: RawOutput = tools.last ?? { kind: 'error', message: ins.body };
      const full = answeredInFull(ins);
      recs.push({
        number: ins.number, tool: step.tool, intent: step.intent, expect: step.expect, args: step.args, raw, table, ins, full,
        capped: ins.kind !== 'stub' && ins.kind !== 'same' && ins.text !== full,
        tableNs, overheadNs: callNs - tools.runNs,
      });
    }
    const storeInsertNs = store.insertNs.slice();

    // ---- Checks: the trace's own expectations, and invariants of what was inserted --------
    const problems = [...missing, ...checks(recs, store, session.id)];

    // ---- Hygiene alone: the pure insertResult on each recorded raw output ----------------
    for (const r of recs) hygieneOnce(r); // warm-up (JIT)
    const hygieneNs = recs.map((r) => {
      const runs: number[] = [];
      for (let i = 0; i < HYGIENE_REPS; i++) runs.push(hygieneOnce(r));
      return median(runs);
    });

    // ---- Store recall: getResult of every stored result, several passes ------------------
    store.getNs.length = 0;
    for (let pass = 0; pass < RECALL_PASSES; pass++) {
      for (let i = 0; i < recs.length; i++) store.getResult(session.id, recs[(i * 37 + pass * 11) % recs.length].number);
    }
    const recallNs = store.getNs.slice();

    if (OUT_JSON) writeRecords(OUT_JSON, recs, hygieneNs);
    report({ root, recs, turns, wsFiles: ws.files.size, wsLines, hygieneNs, storeInsertNs, recallNs, problems, elapsedMs: Date.now() - started });
    if (checkProblems('bench:hygiene', problems) !== 0) process.exitCode = 1;
  } finally {
    store.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function writeRecords(file: string, recs: Rec[], hygieneNs: number[]): void {
  const rows = recs.map((r, i) => ({
    id: formatId(r.number), tool: r.tool, intent: r.intent, kind: r.ins.kind, capped: r.capped,
    charsInserted: r.ins.text.length, charsInFull: r.full.length,
    tokensInserted: countTokens(r.ins.text), tokensInFull: countTokens(r.full),
    hygieneUs: hygieneNs[i] / 1e3, overheadUs: r.overheadNs / 1e3, firstLine: firstLine(r.ins.text),
  }));
  fs.writeFileSync(file, JSON.stringify(rows, null, 1) + '\n');
}

function hygieneOnce(r: Rec): number {
  const t0 = nowNs();
  insertResult({ number: r.number, tool: r.tool, args: r.args, raw: r.raw, table: r.table });
  return nowNs() - t0;
}

/** What did not go as the trace's model of the workspace said, or breaks spec §1–§6 on its face. */
function checks(recs: Rec[], store: SqliteStore, sessionId: number): string[] {
  const problems: string[] = [];
  const byNumber = new Map(recs.map((r) => [r.number, r]));
  for (const [i, r] of recs.entries()) {
    const id = formatId(r.number);
    const where = `${id} ${r.tool} (${r.intent})`;
    if (r.number !== i + 1) problems.push(`${where}: call ${i + 1} was given ${id}`);
    if (!r.ins.text.startsWith(`[${id}`)) problems.push(`${where}: the text does not start with [${id}`);
    if (r.expect) {
      const got = r.capped ? 'capped' : r.ins.kind;
      if (got !== r.expect) problems.push(`${where}: expected ${r.expect}, got ${got}: ${firstLine(r.ins.text)}`);
    }
    if (r.ins.kind === 'stub' || r.ins.kind === 'same') {
      const m = /(?:Unchanged since|Same result as) #([0-9a-f]+)/.exec(r.ins.text);
      const target = m ? byNumber.get(parseInt(m[1], 16)) : undefined;
      if (!target || target.ins.kind !== 'full' || target.tool !== r.tool) problems.push(`${where}: points at ${m?.[0] ?? '?'}, not a full ${r.tool} result`);
      if (target && r.ins.kind === 'stub' && target.ins.body.length < r.ins.body.length) problems.push(`${where}: stub's target shows less than it stands for`);
    }
    if (r.capped && !r.ins.text.includes(`, full output ${id}]`)) problems.push(`${where}: capped without the elided line naming ${id}`);
    if (!r.capped && r.ins.kind !== 'stub' && r.ins.kind !== 'same' && r.ins.text !== r.full) problems.push(`${where}: text differs from its full answer`);
    const row = store.getResult(sessionId, r.number);
    if (!row) problems.push(`${where}: not stored`);
    else if (row.body !== r.ins.body || row.inserted !== r.ins.text) problems.push(`${where}: stored body or text differs from what was inserted`);
    if (r.tool === 'edit' && r.ins.kind === 'error' && !r.intent.includes('not found')) problems.push(`${where}: ${firstLine(r.ins.body)}`);
  }
  return problems;
}

function firstLine(text: string): string {
  return clip(text.split('\n', 1)[0], 120);
}

function clip(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

interface Report {
  root: string;
  recs: Rec[];
  turns: number;
  wsFiles: number;
  wsLines: number;
  hygieneNs: number[];
  storeInsertNs: number[];
  recallNs: number[];
  problems: string[];
  elapsedMs: number;
}

interface Sums { calls: number; full: number; stub: number; same: number; capped: number; change: number; recall: number; error: number; ins: number; fullChars: number }

function sums(recs: Rec[]): Sums {
  const s: Sums = { calls: 0, full: 0, stub: 0, same: 0, capped: 0, change: 0, recall: 0, error: 0, ins: 0, fullChars: 0 };
  for (const r of recs) {
    s.calls++;
    if (r.capped) s.capped++;
    else s[r.ins.kind]++;
    s.ins += r.ins.text.length;
    s.fullChars += r.full.length;
  }
  return s;
}

const CATEGORIES = ['reads (full and stubs)', 'listings and searches', 'commands', 'changes (the diff)', 'recalls'] as const;

function category(tool: string): (typeof CATEGORIES)[number] {
  switch (tool) {
    case 'read': return 'reads (full and stubs)';
    case 'list': case 'glob': case 'grep': case 'search': return 'listings and searches';
    case 'edit': case 'multiedit': case 'write': case 'apply_patch': return 'changes (the diff)';
    case 'recall': return 'recalls';
    default: return 'commands';
  }
}

function ratio(a: number, b: number): string {
  return b === 0 ? '–' : `${(a / b).toFixed(2)}×`;
}

function table(header: string[], rows: string[][], leftCols = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < leftCols ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function report(r: Report): void {
  const { recs } = r;
  const out: string[] = [];
  const total = sums(recs);
  out.push(
    `Keel context hygiene benchmark (spec ${contextConfig.spec}) — seed ${SEED}`,
    `Workspace: ${r.wsFiles} files, ${fmtInt(r.wsLines)} lines (generated). Trace: ${recs.length} tool calls in ${r.turns} turns,`,
    'replayed through a real Session (agent, mode auto) with the real tools on a real SQLite file.',
    '',
    'Calls by tool (capped = over 400 lines or 40,000 chars, head and tail kept; "in full" = the bracket and the whole body)',
  );
  const byTool = new Map<string, Rec[]>();
  for (const rec of recs) byTool.set(rec.tool, [...(byTool.get(rec.tool) ?? []), rec]);
  const row = (name: string, s: Sums) => [
    name, String(s.calls), String(s.full), String(s.stub), String(s.same), String(s.capped), String(s.change), String(s.recall), String(s.error),
    fmtInt(s.ins), fmtInt(s.fullChars), ratio(s.ins, s.fullChars),
  ];
  const toolRows = [...byTool.entries()].sort((a, b) => b[1].length - a[1].length).map(([name, list]) => row(name, sums(list)));
  out.push(table(
    ['tool', 'calls', 'full', 'stub', 'same', 'capped', 'change', 'recall', 'error', 'chars inserted', 'chars in full', 'ratio'],
    [...toolRows, row('total', total)],
  ));

  out.push('', 'Calls by what the agent was doing (how hygiene answered them)');
  const byIntent = new Map<string, Rec[]>();
  for (const rec of recs) byIntent.set(rec.intent, [...(byIntent.get(rec.intent) ?? []), rec]);
  const intentRows = [...byIntent.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([intent, list]) => {
    const s = sums(list);
    const answered = (['full', 'stub', 'same', 'capped', 'change', 'recall', 'error'] as const).filter((k) => s[k] > 0).map((k) => `${k} ${s[k]}`).join(', ');
    return [intent, String(s.calls), answered, fmtInt(s.ins), fmtInt(s.fullChars), ratio(s.ins, s.fullChars)];
  });
  out.push(table(['intent', 'calls', 'answered', 'chars inserted', 'chars in full', 'ratio'], intentRows, 3));

  const dotReads = recs.filter((x) => x.tool === 'read' && String(x.args.path).startsWith('./')).length;
  const reordered = recs.filter((x) => x.intent.includes('keys reordered'));
  const tokIns = recs.reduce((n, x) => n + countTokens(x.ins.text), 0);
  const tokFull = recs.reduce((n, x) => n + countTokens(x.full), 0);
  out.push(
    '',
    'Totals',
    `  unchanged re-reads answered as stubs:   ${total.stub} (${dotReads} reads gave the path with ./)`,
    `  "Same result as" for repeated listings: ${total.same} (${reordered.filter((x) => x.ins.kind === 'same').length} of ${reordered.length} repeats with keys in another order)`,
    `  capped outputs (head + tail kept):      ${total.capped}`,
    `  characters inserted:  ${fmtInt(total.ins).padStart(10)} with hygiene   vs ${fmtInt(total.fullChars).padStart(10)} in full   → ${ratio(total.ins, total.fullChars)}`,
    `  tokens (regex split): ${fmtInt(tokIns).padStart(10)} with hygiene   vs ${fmtInt(tokFull).padStart(10)} in full   → ${ratio(tokIns, tokFull)}`,
    `  tokens (chars / 4):   ${fmtInt(total.ins / 4).padStart(10)} with hygiene   vs ${fmtInt(total.fullChars / 4).padStart(10)} in full`,
    '  (regex split: each run of [A-Za-z0-9_] is one token, each other non-space character one; an approximation, no model tokenizer)',
    `  hygiene inserts ${ratio(total.ins, total.fullChars)} the characters of answering in full (${fmtInt(total.fullChars - total.ins)} characters saved).`,
  );

  const timed = r.recs.map((x, i) => ({ x, ns: r.hygieneNs[i] }));
  const isLarge = (x: Rec) => x.capped || x.full.length > contextConfig.cap.max_chars;
  const ordinary = timed.filter(({ x }) => !isLarge(x));
  const ordNs = ordinary.map((o) => o.ns);
  const noDiffNs = ordinary.filter(({ x }) => category(x.tool) !== 'changes (the diff)').map((o) => o.ns);
  const stat = (label: string, ns: number[]) => ns.length === 0 ? `  ${label.padEnd(50)} n=   0` :
    `  ${label.padEnd(50)} n=${String(ns.length).padStart(4)}   median ${fmtNs(median(ns)).padStart(9)}   p99 ${fmtNs(quantile(ns, 0.99)).padStart(9)}   max ${fmtNs(Math.max(...ns)).padStart(9)}`;
  const met = quantile(ordNs, 0.99) < 1e6;
  const slowest = timed.slice().sort((a, b) => b.ns - a.ns)[0];
  out.push(
    '',
    `Timing (${os.cpus().length} CPUs, Node ${process.version}; hygiene: median of ${HYGIENE_REPS} runs per result, then across results)`,
    stat('hygiene, insertResult (pure), all results', r.hygieneNs),
    stat('  ordinary results (not capped, ≤ 40,000 chars)', ordNs),
    ...CATEGORIES.map((c) => stat(`    ${c}`, ordinary.filter(({ x }) => category(x.tool) === c).map((o) => o.ns))),
    stat('  large or capped results', timed.filter(({ x }) => isLarge(x)).map((o) => o.ns)),
    stat('dedupe table, session.table(), per call', r.recs.map((x) => x.tableNs)),
    stat('store insertResult (SQLite WAL), in the replay', r.storeInsertNs),
    stat(`store getResult (recall), every result ×${RECALL_PASSES}`, r.recallNs),
    stat('session overhead per call (callTool − tool run)', r.recs.map((x) => x.overheadNs)),
    `  slowest hygiene: ${formatId(slowest.x.number)} ${slowest.x.tool} (${slowest.x.intent}), ${fmtInt(slowest.x.full.length)} chars: ${fmtNs(slowest.ns)}`,
    `  hygiene per ordinary result: p99 ${fmtNs(quantile(ordNs, 0.99))} (without the diffs of changes: p99 ${fmtNs(quantile(noDiffNs, 0.99))})` +
      ` — well under 1 ms: ${met ? 'yes (met)' : 'NO (not met)'}`,
  );

  out.push('', 'Examples (first lines as inserted; the workspace root shown as {{root}})');
  const example = (label: string, pick: (x: Rec) => boolean, lines: (x: Rec) => string[]) => {
    const x = recs.find(pick);
    if (x) out.push(`  ${label.padEnd(14)} ${lines(x).map((l) => clip(l.replaceAll(r.root, '{{root}}'), 100)).join('\n'.padEnd(18))}`);
  };
  const shown = (x: Rec) => x.ins.text.split('\n');
  example('stub', (x) => x.ins.kind === 'stub' && String(x.args.path).startsWith('./'), (x) => shown(x).slice(0, 2));
  example('stub (part)', (x) => x.ins.kind === 'stub' && x.args.offset !== undefined, (x) => shown(x).slice(0, 2));
  example('same result', (x) => x.ins.kind === 'same' && x.tool === 'grep', (x) => shown(x).slice(0, 1));
  example('capped', (x) => x.capped && x.tool === 'bash', (x) => [shown(x)[0], `(${shown(x).length - 1} lines, head…tail) ${shown(x).find((l) => l.includes('lines elided')) ?? ''}`]);
  example('cut line', (x) => x.capped && x.intent.includes('one-line'), (x) => [`${shown(x)[0]} ${clip(shown(x)[1], 40)} (${fmtInt(shown(x)[1].length)} chars)`, ...shown(x).slice(2)]);
  example('recall', (x) => x.ins.kind === 'recall', (x) => shown(x).slice(0, 2));
  example('edit', (x) => x.tool === 'edit' && x.ins.kind === 'change', (x) => shown(x).slice(0, 2));
  example('edit error', (x) => x.tool === 'edit' && x.ins.kind === 'error', (x) => shown(x).slice(0, 2));
  example('apply_patch', (x) => x.tool === 'apply_patch' && x.ins.kind === 'change', (x) => shown(x).filter((l) => l.startsWith('[')));

  out.push('', r.problems.length === 0
    ? 'Checks: every expectation of the trace held (stubs, same results, caps), ids in order, every result stored as inserted.'
    : `Checks: ${r.problems.length} problem(s):\n${r.problems.slice(0, 20).map((p) => `  - ${p}`).join('\n')}`);

  out.push(
    '',
    `SUMMARY: ${recs.length} calls, ${r.turns} turns — hygiene inserted ${ratio(total.ins, total.fullChars)} the characters of answering in full ` +
      `(${fmtInt(total.ins)} vs ${fmtInt(total.fullChars)}); ${total.stub} stubs, ${total.same} same-result, ${total.capped} capped; ` +
      `hygiene median ${fmtNs(median(r.hygieneNs))}, p99 ${fmtNs(quantile(ordNs, 0.99))} per ordinary result (< 1 ms: ${met ? 'met' : 'not met'}); ` +
      `store insert median ${fmtNs(median(r.storeInsertNs))}, recall median ${fmtNs(median(r.recallNs))}; ` +
      `${r.problems.length} check problem(s); ${(r.elapsedMs / 1000).toFixed(1)} s.`,
  );
  console.log(out.join('\n'));
}

main().catch((err: unknown) => {
  console.error(`bench:hygiene failed: ${(err as Error)?.stack ?? String(err)}`);
  process.exitCode = 1;
}).finally(() => stopSandbox()); // its proxies would keep the process alive
