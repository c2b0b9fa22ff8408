/**
 * Benchmark of the renderer on a long session (`npm run bench:ui`): a stored agent session of
 * 2,000 tool results, made by the real Session and tools on a generated workspace (reads, greps,
 * lists, globs, bash outputs) with its replies recorded as the engine records them, served by the
 * real host and loopback server and opened in Chromium. It prints:
 *  - time to the first painted transcript row: from navigation, and from the click on the session;
 *  - time to scroll the transcript from top to bottom, a page per frame, until the last row shows;
 *  - the renderer's JS heap (CDP Performance.getMetrics JSHeapUsedSize, after a GC);
 *  - DOM nodes and rendered rows against the rows the transcript has (virtualization).
 *
 *   npm run bench:ui          (builds the renderer first)
 *   KEEL_BENCH_RESULTS=<n>    another number of results (default 2000)
 *   KEEL_BENCH_SEED=<int>     another workspace and call sequence
 *
 * The session is built as the app builds it (main/app/sessionDeps.ts: its commands in the OS sandbox,
 * its checkpoints in the data folder the app then opens). Figures are printed, never asserted; it
 * exits 1 when the run itself breaks or one of its checks fails (named on stderr): a command that
 * was to run without the sandbox, the page's errors, a scroll that did not reach the last row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { writeSettings } from '../main/app/settings.js';
import { Session } from '../main/core/session/session.js';
import { SqliteStore } from '../main/db/store.js';
import { stopSandbox } from '../main/sandbox/runner.js';
import { requireSandbox } from '../main/app/sessionDeps.js';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { formatCall, type CallSyntax } from '../main/llm/toolCalls.js';
import { launchBrowser, modelSyntax, RENDERER_DIR, RESULTS_DIR, startHarness } from '../e2e/harness.js';
import { appDeps } from './appDeps.js';
import { checkProblems } from './checks.js';
import { fmtInt } from './measure.js';
import { Rng } from './prng.js';
import { generateWorkspace, writeWorkspace, type Workspace } from './workspace.js';

const RESULTS = Number(process.env.KEEL_BENCH_RESULTS ?? 2000);
const SEED = Number(process.env.KEEL_BENCH_SEED ?? 0x6b65656c);
const VIEWPORT = { width: 1440, height: 900 };

interface Built {
  sessionId: number;
  turns: number;
  results: number;
  byTool: Record<string, number>;
  ms: number;
  /** Commands that were to run without the sandbox (an error result is a transcript row like any other). */
  problems: string[];
}

/** One call of the trace: mostly reads and searches, some commands, as an agent's session goes. */
function nextCall(rng: Rng, ws: Workspace): { name: string; args: Record<string, unknown> } {
  const kind = rng.weighted({ read: 40, grep: 22, bash: 20, list: 9, glob: 9 });
  switch (kind) {
    case 'read': {
      const file = rng.pick(ws.sources);
      return rng.chance(0.3) ? { name: 'read', args: { path: file, offset: rng.int(1, 40), limit: rng.int(10, 60) } } : { name: 'read', args: { path: file } };
    }
    case 'grep': {
      const names = ws.decls.get(rng.pick(ws.sources)) ?? ['export'];
      return rng.chance(0.5)
        ? { name: 'grep', args: { pattern: rng.pick(names) } }
        : { name: 'grep', args: { pattern: `function ${rng.pick(names).slice(0, 3)}`, path: rng.pick(ws.folders), include: '*.ts' } };
    }
    case 'bash': {
      const commands = [
        `wc -l ${rng.pick(ws.sources)}`,
        `seq 1 ${rng.int(5, 400)}`,
        `ls -la ${rng.pick(ws.folders)}`,
        `head -n ${rng.int(5, 40)} ${rng.pick(ws.sources)}`,
        `grep -c export ${rng.pick(ws.sources)}; echo done`,
        `for i in $(seq 1 ${rng.int(50, 3000)}); do echo "line $i of the build log"; done`,
      ];
      return { name: 'bash', args: { command: rng.pick(commands) } };
    }
    case 'list':
      return { name: 'list', args: { path: rng.pick(ws.folders) } };
    default:
      return { name: 'glob', args: { pattern: rng.pick(['**/*.ts', '*.ts', '**/*.test.ts', '**/*.md']), path: rng.pick(['.', ...ws.folders]) } };
  }
}

/** The stored session: turns of a message, 1-20 calls (each its own reply, as the loop records them) and an answer. */
async function buildSession(dataFolder: string, root: string, model: string, syntax: CallSyntax): Promise<Built> {
  const began = performance.now();
  const rng = new Rng(SEED);
  const ws = generateWorkspace(rng);
  writeWorkspace(root, ws.files);
  const store = new SqliteStore(path.join(dataFolder, 'keel.db'));
  const byTool: Record<string, number> = {};
  const problems: string[] = [];
  let results = 0;
  let turns = 0;
  try {
    // The person allows the commands auto mode still asks about (loops, say).
    const { deps, missing } = appDeps({ store, dataFolder, now: () => new Date(), approve: async () => 'allow' });
    await requireSandbox(deps, 'bench:ui');
    const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', title: `UI benchmark: ${fmtInt(RESULTS)} results`, model });
    while (results < RESULTS) {
      turns++;
      session.userMessage(`Step ${turns}: look at ${rng.pick(ws.sources)} and what uses it, then run the checks.`);
      const calls = Math.min(rng.int(1, 20), RESULTS - results);
      for (let i = 0; i < calls; i++) {
        const { name, args } = nextCall(rng, ws);
        const inserted = await session.calls.run(name, args);
        const text = i === 0 ? `I will start with ${name}.` : rng.chance(0.2) ? `Next, ${name}.` : '';
        session.recordReply(text, [{ name, args, number: inserted.number, raw: formatCall(syntax, name, args) }]);
        byTool[name] = (byTool[name] ?? 0) + 1;
        results++;
      }
      session.recordReply(
        `Step ${turns} done: the **${calls}** results above show what I needed.\n\n- checked the callers\n- ran \`${rng.pick(['npm test', 'tsc', 'eslint .'])}\`\n\nSee #${results.toString(16).padStart(4, '0')} for the last one.`,
        [],
      );
      session.endReply();
    }
    problems.push(...missing);
    return { sessionId: session.id, turns, results, byTool, ms: performance.now() - began, problems };
  } finally {
    store.close();
    await stopSandbox(); // its proxies would keep the process alive
  }
}

/** Timestamps the page keeps for us (performance.now(): ms since navigation started). */
const MARKS_SCRIPT = `(() => {
  const marks = { sessionList: undefined, click: undefined, firstTurn: undefined, firstTurnPaint: undefined, nodesAtFirstTurn: undefined };
  window.__keelMarks = marks;
  document.addEventListener('click', () => { if (marks.click === undefined) marks.click = performance.now(); }, true);
  const observer = new MutationObserver(() => {
    if (marks.sessionList === undefined && document.querySelector('[data-testid^="session-item-"]')) marks.sessionList = performance.now();
    if (marks.firstTurn === undefined && document.querySelector('[data-testid="transcript"] [data-testid^="turn-"]')) {
      marks.firstTurn = performance.now();
      performance.mark('keel-first-turn');
      // The frame that shows it: the next animation frame, then the paint after it.
      requestAnimationFrame(() => setTimeout(() => {
        marks.firstTurnPaint = performance.now();
        marks.nodesAtFirstTurn = document.getElementsByTagName('*').length;
      }, 0));
      observer.disconnect();
    }
  });
  observer.observe(document, { subtree: true, childList: true });
})();`;

/** Scrolls the transcript back to its top (the session opens at its bottom). */
const TOP_SCRIPT = `(async () => {
  const el = document.querySelector('[data-testid="transcript"]');
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
  el.scrollTop = 0;
  for (let i = 0; i < 60 && !document.querySelector('[data-testid="turn-1"]'); i++) await frame();
  await frame();
  return Boolean(document.querySelector('[data-testid="turn-1"]'));
})()`;

/** From the top, scrolls the transcript to its bottom, a page per frame, until `lastSelector` is rendered. */
const SCROLL_SCRIPT = `async (lastSelector) => {
  const el = document.querySelector('[data-testid="transcript"]');
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
  const steps = [];
  let maxNodes = 0;
  let maxRows = 0;
  const began = performance.now();
  for (let i = 0; i < 200000; i++) {
    const t0 = performance.now();
    el.scrollTop = el.scrollTop + el.clientHeight;
    await frame();
    steps.push(performance.now() - t0);
    maxNodes = Math.max(maxNodes, document.getElementsByTagName('*').length);
    maxRows = Math.max(maxRows, el.querySelectorAll('.transcript-inner > .row').length);
    if (el.scrollTop + el.clientHeight >= el.scrollHeight - 2 && document.querySelector(lastSelector)) break;
  }
  const ms = performance.now() - began;
  const sorted = [...steps].sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return {
    ms, steps: steps.length, median: q(0.5), p95: q(0.95), max: sorted[sorted.length - 1],
    long: steps.filter((s) => s > 50).length, maxNodes, maxRows, scrollHeight: el.scrollHeight,
    reachedEnd: Boolean(document.querySelector(lastSelector)),
  };
}`;

interface ScrollFigures {
  ms: number; steps: number; median: number; p95: number; max: number; long: number;
  maxNodes: number; maxRows: number; scrollHeight: number; reachedEnd: boolean;
}

interface Marks {
  sessionList?: number; click?: number; firstTurn?: number; firstTurnPaint?: number; nodesAtFirstTurn?: number;
}

async function heapAndNodes(page: Page): Promise<{ heapUsed: number; heapTotal: number; nodes: number; domNodes: number }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? NaN;
    const domNodes = await page.evaluate('document.getElementsByTagName("*").length') as number;
    return { heapUsed: metric('JSHeapUsedSize'), heapTotal: metric('JSHeapTotalSize'), nodes: metric('Nodes'), domNodes };
  } finally {
    await cdp.detach();
  }
}

const ms = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? 'n/a' : `${fmtInt(Math.round(value))} ms`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<number> {
  const problems: string[] = [];
  if (!fs.existsSync(path.join(RENDERER_DIR, 'index.html'))) throw new Error(`${RENDERER_DIR}/index.html is missing: run \`npx electron-vite build\` first.`);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-ui-')));
  const browser = await launchBrowser();
  try {
    const dataFolder = path.join(root, 'data');
    const workspace = path.join(root, 'ws');
    fs.mkdirSync(dataFolder);
    fs.mkdirSync(workspace);
    const model = path.join(root, 'models', 'tiny.gguf');
    fs.mkdirSync(path.dirname(model));
    writeTestModel(model);
    const syntax = await modelSyntax(model);
    // The app remembers a model, so it opens on the session list rather than the first-run screen.
    writeSettings(dataFolder, { modelsFolder: path.dirname(model), lastModel: model });

    console.log(`Building a stored session of ${fmtInt(RESULTS)} results (seed ${SEED})…`);
    const built = await buildSession(dataFolder, workspace, model, syntax);
    problems.push(...built.problems);
    const dbBytes = fs.statSync(path.join(dataFolder, 'keel.db')).size;

    const h = await startHarness({ browser, models: [], dataFolder, viewport: VIEWPORT });
    try {
      const view = await h.host.api.openSession(built.sessionId);
      const viewBytes = Buffer.byteLength(JSON.stringify(view));
      const rowCount = view.turns.reduce((sum, t) => sum + 1 + t.parts.length, 0);
      const lastTurn = view.turns.at(-1)!;
      const lastSelector = `[data-testid="turn-${lastTurn.seq}-part-${lastTurn.parts.length - 1}"]`;

      const page = h.page;
      await page.addInitScript(MARKS_SCRIPT);
      await page.goto(h.server.url);
      await page.getByTestId(`session-item-${built.sessionId}`).click();
      await page.waitForFunction('window.__keelMarks && window.__keelMarks.firstTurnPaint !== undefined', undefined, { timeout: 120_000 });
      const marks = (await page.evaluate('window.__keelMarks')) as Marks;
      const afterOpen = await heapAndNodes(page);
      const shownAtOpen = (await page.evaluate('document.querySelectorAll(".transcript-inner > .row").length')) as number;
      fs.mkdirSync(RESULTS_DIR, { recursive: true });
      await page.mouse.move(0, 0);
      await page.screenshot({ path: path.join(RESULTS_DIR, 'bench-ui-bottom.png') });

      if (!(await page.evaluate(TOP_SCRIPT))) throw new Error('The transcript did not show turn 1 after scrolling to its top.');
      await page.screenshot({ path: path.join(RESULTS_DIR, 'bench-ui-top.png') });
      const scroll = (await page.evaluate(`(${SCROLL_SCRIPT})(${JSON.stringify(lastSelector)})`)) as ScrollFigures;
      const afterScroll = await heapAndNodes(page);
      problems.push(...h.pageErrors.map((e) => `the page reported: ${e}`));
      if (!scroll.reachedEnd) problems.push(`the scroll did not reach the last row (${lastSelector}) in ${scroll.steps} steps`);

      const line = (label: string, value: string) => console.log(`  ${label.padEnd(50)} ${value}`);
      console.log(`\nKeel UI benchmark (Chromium ${browser.version()}, viewport ${VIEWPORT.width}x${VIEWPORT.height})`);
      console.log('\nStored session');
      line('results', `${fmtInt(built.results)} (${Object.entries(built.byTool).map(([k, v]) => `${k} ${fmtInt(v)}`).join(', ')})`);
      line('turns / transcript rows', `${fmtInt(built.turns)} / ${fmtInt(rowCount)}`);
      line('built in', ms(built.ms));
      line('store file', mb(dbBytes));
      line('openSession payload (JSON)', mb(viewBytes));
      console.log('\nFirst paint of the transcript');
      line('navigation → session list shown', ms(marks.sessionList));
      line('click on the session → first turn row painted', ms(marks.firstTurnPaint! - marks.click!));
      line('navigation → first turn row painted', ms(marks.firstTurnPaint));
      console.log('\nScroll from top to bottom (one page per frame)');
      line('total', `${ms(scroll.ms)} in ${fmtInt(scroll.steps)} steps${scroll.reachedEnd ? '' : ' (DID NOT REACH THE LAST ROW)'}`);
      line('per step: median / p95 / max', `${scroll.median.toFixed(1)} / ${scroll.p95.toFixed(1)} / ${scroll.max.toFixed(1)} ms`);
      line('steps over 50 ms', fmtInt(scroll.long));
      line('scroll height', `${fmtInt(Math.round(scroll.scrollHeight))} px`);
      console.log('\nRenderer memory (after a GC)');
      line('JS heap used, session open', `${mb(afterOpen.heapUsed)} (of ${mb(afterOpen.heapTotal)})`);
      line('JS heap used, after scrolling to the end', `${mb(afterScroll.heapUsed)} (of ${mb(afterScroll.heapTotal)})`);
      console.log('\nDOM (virtualization)');
      line('transcript rows in the DOM, session open', `${fmtInt(shownAtOpen)} of ${fmtInt(rowCount)}`);
      line('transcript rows in the DOM, most while scrolling', `${fmtInt(scroll.maxRows)} of ${fmtInt(rowCount)}`);
      line('DOM elements at first paint', fmtInt(marks.nodesAtFirstTurn ?? NaN));
      line('DOM elements, session open / after scroll', `${fmtInt(afterOpen.domNodes)} / ${fmtInt(afterScroll.domNodes)}`);
      line('DOM elements, most while scrolling', fmtInt(scroll.maxNodes));
      line('CDP Nodes (incl. text, detached)', `${fmtInt(afterOpen.nodes)} / ${fmtInt(afterScroll.nodes)}`);
      console.log(`\nScreenshots: ${path.join(RESULTS_DIR, 'bench-ui-bottom.png')}, ${path.join(RESULTS_DIR, 'bench-ui-top.png')}`);
    } finally {
      await h.close();
    }
  } finally {
    await browser.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return checkProblems('bench:ui', problems);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
