/**
 * Crash safety of saved KV states, the second kill loop: a child (stateChild.ts) runs a session on a
 * generated model, sending messages and saving its state again and again; the parent kills it with
 * SIGKILL at seeded random moments — most of them inside a save — and checks what a kill must never do:
 *
 * - the metadata (`session-N.bin.json`) is readable and names a complete state (its size is the
 *   size recorded) whose token count is the last acknowledged save's or one begun after it; a
 *   session with an acknowledged save never loses its metadata;
 * - no stray state files pile up: beside each metadata and the state it names, only the current
 *   session may have one save's leftovers (its half-written state file and a metadata temp file);
 * - in the next (fresh) child the restore returns, neither throws nor blocks: it restores exactly
 *   the tokens the metadata names, or, where no usable state is left, discards with a reason — and
 *   the session then answers its next message.
 *
 * After the last kill a child run with --check does the same check without being killed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMeta } from '../../main/llm/stateFiles.js';
import { writeTestModel } from '../../main/llm/testModel/makeTestModel.js';
import { median } from '../measure.js';
import { Rng } from '../prng.js';
import { STATE_MODEL } from './stateScript.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const CHILD = path.join(HERE, 'stateChild.ts');

/** What one killed save may leave: its state file and the metadata's temporary file. */
const ONE_SAVE_LEFTOVERS = 2;
/** A restore (or the check's answer) that takes longer than this counts as blocked. */
const BLOCKED_MS = 120_000;

export interface StateLoopOptions {
  iterations: number;
  seed: number;
  /** The share of kills aimed inside a save (default 0.75); the rest land anywhere after the check. */
  saveKillRate?: number;
  /** A kill not aimed at a save lands this many ms after the check, at most (uniform). */
  anyMaxMs?: number;
  dir?: string;
  keep?: boolean;
  log?: (line: string) => void;
  progressEvery?: number;
}

export interface StateLoopFigures {
  iterations: number;
  /** Saves the children reported as returned (committed). */
  savesAcknowledged: number;
  /** Kills that landed while a save was under way (begun, not returned). */
  killsDuringSave: number;
  killsElsewhere: number;
  /** Fresh children that restored a saved state / discarded one with a reason / found none saved yet. */
  restored: number;
  discarded: number;
  noState: number;
  /** Restores that threw, blocked, restored other tokens than the metadata names, or discarded without a reason or a complete state: must be 0. */
  restoreFailures: number;
  /** Metadata unreadable, naming an incomplete state or an unexpected token count, or lost after a save was acknowledged: must be 0. */
  stateProblems: number;
  /** Sessions that did not answer their next message after a restore: must be 0. */
  unanswered: number;
  /** Checks that found more stray state files than one save's leftovers: must be 0. */
  strayPileUps: number;
  /** The most stray files seen beside one session's state at a check. */
  maxStray: number;
  /** Of the tokens restored, the least share the next request reused. */
  minReuse: number;
  childFailures: number;
  saveMs: number[];
  restoreMs: number[];
  maxStateBytes: number;
  /** Why states were discarded, with counts. */
  reasons: Map<string, number>;
  elapsedMs: number;
  problems: string[];
}

type Event =
  | { t: 'opening' }
  | { t: 'restored'; s: number; restored: boolean; reason?: string; tokens: number; ms: number }
  | { t: 'answered'; s: number; answer: string; expected: string; reused: number; prompt: number; cause?: string }
  | { t: 'ready' }
  | { t: 'session'; s: number }
  | { t: 'save-begin'; s: number; tokens: number }
  | { t: 'save-end'; s: number; tokens: number; ms: number };

/** What the checker found on disk for one session before the next child restores it. */
type Expect = { kind: 'complete'; tokens: number } | { kind: 'damaged' } | { kind: 'none' };

/** A kill plan: inside the j-th save after the check, `delay` ms after it began; or `delay` ms after the check. */
type Plan = { at: 'save'; save: number; delay: number } | { at: 'any'; delay: number };

export async function runStateKillLoop(o: StateLoopOptions): Promise<StateLoopFigures> {
  const started = Date.now();
  const rng = new Rng(o.seed);
  const dir = o.dir ?? fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-crash-state-')));
  const work = path.join(dir, 'session');
  const stateDir = path.join(work, 'state');
  const modelPath = path.join(dir, 'state-model.gguf');
  fs.mkdirSync(work, { recursive: true });
  writeTestModel(modelPath, STATE_MODEL);

  const f: StateLoopFigures = {
    iterations: 0, savesAcknowledged: 0, killsDuringSave: 0, killsElsewhere: 0, restored: 0, discarded: 0, noState: 0,
    restoreFailures: 0, stateProblems: 0, unanswered: 0, strayPileUps: 0, maxStray: 0, minReuse: 1, childFailures: 0,
    saveMs: [], restoreMs: [], maxStateBytes: 0, reasons: new Map(), elapsedMs: 0, problems: [],
  };
  const problem = (what: string): void => {
    if (f.problems.length < 50) f.problems.push(`iteration ${f.iterations}: ${what}`);
  };
  /** Per session: the tokens of its last acknowledged save, and of the saves begun since (a kill may have cut any short). */
  const acked = new Map<number, number>();
  const begun = new Map<number, Set<number>>();
  let current: number | undefined;
  let expects = new Map<number, Expect>();

  const checkRestore = (events: Event[]): void => {
    const r = events.find((e): e is Extract<Event, { t: 'restored' }> => e.t === 'restored');
    const a = events.find((e): e is Extract<Event, { t: 'answered' }> => e.t === 'answered');
    if (!r) return; // the child failed or blocked: counted where it was seen
    f.restoreMs.push(r.ms);
    const expect = expects.get(r.s) ?? { kind: 'none' };
    if (r.restored) {
      f.restored++;
      if (expect.kind !== 'complete' || r.tokens !== expect.tokens) {
        f.restoreFailures++;
        problem(`session ${r.s} restored ${r.tokens} tokens; the metadata named ${expect.kind === 'complete' ? `${expect.tokens} tokens` : 'no complete state'}`);
      }
    } else if (r.reason) {
      f.discarded++;
      const why = r.reason.replace(/\/\S+/g, 'FILE').replace(/^.*?: (saved state unusable: .*?)\. The next.*$/s, '$1');
      f.reasons.set(why, (f.reasons.get(why) ?? 0) + 1);
      if (expect.kind === 'complete') {
        f.restoreFailures++;
        problem(`session ${r.s}: a complete state of ${expect.tokens} tokens was discarded: ${r.reason}`);
      }
    } else {
      f.noState++;
      if (expect.kind !== 'none') {
        f.restoreFailures++;
        problem(`session ${r.s}: the restore gave no reason for not restoring a ${expect.kind} state`);
      }
    }
    if (!a) return;
    if (a.answer !== a.expected) {
      f.unanswered++;
      problem(`session ${a.s} answered ${JSON.stringify(a.answer)}, not ${JSON.stringify(a.expected)}`);
    }
    if (r.restored && r.tokens > 0) f.minReuse = Math.min(f.minReuse, a.reused / r.tokens);
  };

  const run = async (plan: Plan | undefined): Promise<Event[]> => {
    const res = await runChild(work, modelPath, plan, median(f.saveMs));
    if (res.failure) {
      f.childFailures++;
      if (res.blocked) f.restoreFailures++;
      problem(res.failure);
    }
    for (const e of res.events) {
      if (e.t === 'restored' || e.t === 'session') current = e.s;
      if (e.t === 'save-begin') begun.set(e.s, (begun.get(e.s) ?? new Set()).add(e.tokens));
      if (e.t === 'save-end') {
        acked.set(e.s, e.tokens);
        begun.delete(e.s);
        f.savesAcknowledged++;
        f.saveMs.push(e.ms);
      }
    }
    checkRestore(res.events);
    return res.events;
  };

  try {
    for (let i = 0; i < o.iterations; i++) {
      f.iterations = i + 1;
      const plan: Plan = rng.chance(o.saveKillRate ?? 0.75)
        ? { at: 'save', save: rng.int(1, 2), delay: rng.next() }
        : { at: 'any', delay: rng.int(0, o.anyMaxMs ?? 3000) };
      const events = await run(plan);
      const saves = events.filter((e) => e.t === 'save-begin' || e.t === 'save-end');
      if (saves.at(-1)?.t === 'save-begin') f.killsDuringSave++;
      else f.killsElsewhere++;
      expects = checkDisk(stateDir, acked, begun, current, f, problem);
      if (o.log && (i + 1) % (o.progressEvery ?? 5) === 0) {
        o.log(`  state ${i + 1}/${o.iterations}: ${f.savesAcknowledged} saves, ${f.killsDuringSave} kills during a save, ${f.restored} restored, ${f.discarded} discarded, ${f.restoreFailures + f.stateProblems + f.unanswered + f.strayPileUps} failures`);
      }
    }
    f.iterations = o.iterations;
    await run(undefined);
  } finally {
    f.elapsedMs = Date.now() - started;
    if (!o.keep && o.dir === undefined) fs.rmSync(dir, { recursive: true, force: true });
  }
  return f;
}

/**
 * The state folder as a kill left it: each session's metadata and the state it names, and the
 * files beside them; returns what each session's restore must do.
 */
function checkDisk(
  stateDir: string, acked: Map<number, number>, begun: Map<number, Set<number>>, current: number | undefined,
  f: StateLoopFigures, problem: (what: string) => void,
): Map<number, Expect> {
  const expects = new Map<number, Expect>();
  const names = fs.existsSync(stateDir) ? fs.readdirSync(stateDir) : [];
  const sessions = new Set<number>([...acked.keys(), ...begun.keys()]);
  for (const name of names) {
    const m = /^session-(\d+)\.bin\./.exec(name);
    if (m) sessions.add(Number(m[1]));
    else problem(`a file that is no session's state: ${name}`);
  }
  for (const s of sessions) {
    const base = `session-${s}.bin`;
    const file = path.join(stateDir, base);
    const read = readMeta(file);
    const allowed = new Set([`${base}.json`]);
    if (read.ok) {
      const { meta } = read;
      allowed.add(meta.state);
      const stateFile = path.join(stateDir, meta.state);
      const size = fs.existsSync(stateFile) ? fs.statSync(stateFile).size : -1;
      f.maxStateBytes = Math.max(f.maxStateBytes, size);
      const expected = [acked.get(s), ...(begun.get(s) ?? [])];
      if (size !== meta.bytes) {
        f.stateProblems++;
        problem(`session ${s}: the metadata names ${meta.state} of ${meta.bytes} bytes; it is ${size < 0 ? 'missing' : `${size} bytes`}`);
        expects.set(s, { kind: 'damaged' });
      } else if (!expected.includes(meta.tokens)) {
        f.stateProblems++;
        problem(`session ${s}: the metadata names a state of ${meta.tokens} tokens; acknowledged ${acked.get(s)}, begun since ${[...(begun.get(s) ?? [])].join(', ') || 'none'}`);
        expects.set(s, { kind: 'complete', tokens: meta.tokens });
      } else {
        expects.set(s, { kind: 'complete', tokens: meta.tokens });
      }
    } else if (read.reason) {
      f.stateProblems++;
      problem(`session ${s}: ${read.reason}`);
      expects.set(s, { kind: 'damaged' });
    } else if (acked.has(s)) {
      f.stateProblems++;
      problem(`session ${s}: its metadata is gone, though a save of ${acked.get(s)} tokens was acknowledged`);
    }
    const stray = names.filter((n) => (n === base || n.startsWith(`${base}.`)) && !allowed.has(n));
    f.maxStray = Math.max(f.maxStray, stray.length);
    if (stray.length > (s === current ? ONE_SAVE_LEFTOVERS : 0)) {
      f.strayPileUps++;
      problem(`session ${s}${s === current ? '' : ' (not the current one)'} has ${stray.length} stray state files: ${stray.join(', ')}`);
    }
  }
  return expects;
}

interface ChildRun { events: Event[]; failure?: string; blocked?: boolean }

/**
 * Spawns the child (with --check when there is no plan), kills it as planned, and collects what it
 * said. A save-aimed kill lands inside the planned save: `delay` (0..1) of the typical save's length
 * after it began, so the kills spread over the whole write.
 */
function runChild(work: string, modelPath: string, plan: Plan | undefined, typicalSaveMs: number): Promise<ChildRun> {
  return new Promise((resolve) => {
    const args = ['--import', 'tsx', CHILD, work, modelPath, ...(plan ? [] : ['--check'])];
    const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    const events: Event[] = [];
    let out = '';
    let err = '';
    let killed = false;
    let blocked = false;
    let saves = 0;
    let timer: NodeJS.Timeout | undefined;
    const kill = (): void => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    const arm = (ms: number): void => {
      if (timer === undefined && !killed) timer = setTimeout(kill, ms);
    };
    // A child that never reaches its check's end is blocked; one that never reaches its planned save is killed anyway.
    let guard = setTimeout(() => {
      blocked = true;
      kill();
    }, BLOCKED_MS);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        let e: Event;
        try {
          e = JSON.parse(line) as Event;
        } catch {
          continue;
        }
        events.push(e);
        if (e.t === 'ready') {
          clearTimeout(guard);
          guard = setTimeout(kill, BLOCKED_MS);
          if (plan?.at === 'any') arm(plan.delay);
        }
        if (e.t === 'save-begin' && plan?.at === 'save' && ++saves === plan.save) {
          arm(Math.round(plan.delay * 1.2 * (Number.isNaN(typicalSaveMs) ? 300 : typicalSaveMs)));
        }
      }
    });
    child.stderr.on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      const ready = events.some((e) => e.t === 'ready');
      const failure = blocked
        ? `the child did not restore and answer within ${BLOCKED_MS / 1000} s (restore ${events.some((e) => e.t === 'restored') ? 'returned' : 'never returned'})`
        : !killed && !(plan === undefined && code === 0 && ready)
          ? `the child exited by itself (code ${code}, signal ${signal}): ${err.trim().slice(-2000)}`
          : undefined;
      resolve({ events, failure, blocked });
    });
  });
}
