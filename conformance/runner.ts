import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../main/db/store.js';
import { DEFAULT_PROMPTS_DIR } from '../main/core/prompts/buildSystemPrompt.js';
import { Session, SessionError } from '../main/core/session/session.js';
import { MODES, type Mode, type ReplyCall } from '../main/core/state/types.js';
import { ToolRegistry } from '../main/core/tools/registry.js';
import { createSandboxRunner } from '../main/sandbox/runner.js';
import { checkpointsIn } from '../main/checkpoints/open.js';
import { approveSettingsFile, sessionHooks, settingsFiles } from '../main/app/hookSettings.js';
import { shellsFolder } from '../main/app/sessionDeps.js';
import { Shells } from '../main/core/tools/shells.js';
import { SUBAGENT_MIME } from '../main/core/tools/task.js';
import { AgentLoop, type LoopEvent } from '../main/core/turn/loop.js';
import { Subagents } from '../main/core/turn/subagents.js';
import { callLine, ScriptedEngine } from '../test/scriptedEngine.js';

/** A case file, exactly as contract.md "Conformance cases" fixes it. */
export interface CaseFile {
  spec: string;
  cases: Case[];
}

export interface Case {
  name: string;
  session?: 'agent' | 'chat';
  files?: Record<string, string>;
  steps: Step[];
}

type Expectation = { expect?: string; expect_re?: string };
/**
 * A `task` call's subagent (docs/subagents.md): its replies in order, written as the cases write
 * replies (Qwen's syntax), and what its own calls got, each a regular expression, in order.
 */
type SubagentScript = { subagent?: string[]; subagent_expect_re?: string[] };
export type Step =
  | ({ call: string; args?: unknown } & Expectation & SubagentScript)
  | { fs: { write?: Record<string, string>; delete?: string[] } }
  | { reply_end: true }
  | { undo: true }
  | ({ user: string; date?: string; mode?: string } & Expectation)
  | ({ compact: string } & Expectation)
  | { system: 'unchanged' }
  | { reopen: true }
  | { rewind: number; files?: boolean }
  | { revert_file: string }
  | { fs_expect: Record<string, string | null> };

export interface CaseOutcome {
  name: string;
  ok: boolean;
  /** Why it failed: the step, the expected and the actual text. */
  detail?: string;
}

/**
 * Runs one case against the real engine: a real temporary workspace, the real tools, the real
 * session and the real SQLite store, in the `auto` mode (no step waits for an approval).
 */
export async function runCase(c: Case): Promise<CaseOutcome> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-conf-')));
  const root = path.join(tmp, 'workspace');
  fs.mkdirSync(root);
  const store = new SqliteStore(path.join(tmp, 'keel.db'));
  const shells = Shells.open(shellsFolder(path.join(tmp, 'data')));
  try {
    for (const [rel, content] of Object.entries(c.files ?? {})) writeFile(root, rel, content);
    // Every tool allowed inside the workspace, as contract.md says: whatever the gate asks is approved,
    // and the workspace's own settings files count as approved (their hooks run).
    const data = path.join(tmp, 'data');
    for (const f of settingsFiles(data, root)) if (f.source === 'workspace') approveSettingsFile(data, root, f.file);
    const deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date(), permissions: { approve: async () => 'allow' as const },
      commands: createSandboxRunner({ dataFolder: data }), hooks: sessionHooks(data), checkpoints: checkpointsIn(data), shells };
    const scripts: string[][] = [];
    const subagents = new Subagents(deps, { open: async (child, o) => scriptedChild(child, store, o, scripts.shift()) });
    const run: Run = {
      session: Session.create({ ...deps, subagents: (row) => subagents.forParent(row) }, { root, kind: c.session ?? 'agent', mode: 'auto', title: c.name }),
      calls: [], reopen: (id) => Session.open(deps, id), scripts, store,
    };
    for (const [i, step] of c.steps.entries()) {
      const problem = await runStep(run, root, step);
      if (problem) return { name: c.name, ok: false, detail: `step ${i + 1}: ${problem}` };
    }
    return { name: c.name, ok: true };
  } catch (err) {
    return { name: c.name, ok: false, detail: `error: ${(err as Error).message}` };
  } finally {
    await shells.endAll();
    store.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The session a case drives, and the model's reply being made: the calls since the last reply
 * end. As in the engine, a reply is stored with its calls when it ends (reply_end, the person's
 * next message, a compaction); a reopen before that is a quit or crash mid-reply.
 */
interface Run {
  session: Session;
  calls: ReplyCall[];
  reopen(id: number): Session;
  /** The replies of the subagents the next `task` calls start, in order. */
  scripts: string[][];
  store: SqliteStore;
}

/** A subagent's loop on a scripted engine: its replies as the case gives them, in the engine's own call syntax. */
function scriptedChild(child: Session, store: SqliteStore, o: { maxSteps: number; onEvent: (e: LoopEvent) => void }, replies: string[] = []) {
  const engine = new ScriptedEngine();
  engine.replies.push(...replies.map(asCallLines));
  const loop = new AgentLoop({ session: child, store, engine, promptsDir: DEFAULT_PROMPTS_DIR, maxSteps: o.maxSteps, onEvent: o.onEvent });
  return { loop, close: () => engine.dispose() };
}

/** Qwen's `<tool_call>{"name", "arguments"}</tool_call>` blocks as the scripted engine's `CALL name {args}` lines. */
function asCallLines(reply: string): string {
  return reply.replace(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g, (_, json: string) => {
    const call = JSON.parse(json) as { name: string; arguments?: unknown };
    return callLine(call.name, call.arguments ?? {});
  });
}

function storeReply(run: Run): void {
  if (run.calls.length > 0) run.session.recordReply('', run.calls);
  run.calls = [];
}

/** Runs a step; returns what went wrong, or undefined. */
async function runStep(run: Run, root: string, step: Step): Promise<string | undefined> {
  const session = run.session;
  if ('call' in step) {
    const args = withRoot(step.args ?? {}, root);
    if (step.subagent) run.scripts.push(step.subagent.map((r) => r.replaceAll('{{root}}', root)));
    const inserted = await session.calls.run(step.call, args);
    run.calls.push({ name: step.call, args, number: inserted.number, raw: '' });
    return compare(step, inserted.text, root) ?? (step.subagent_expect_re && compareChild(run, inserted.number, step.subagent_expect_re, root));
  }
  if ('reopen' in step) {
    // Keel quits or crashes here: the results are stored, a reply not yet ended is not.
    run.calls = [];
    run.session = run.reopen(session.id);
    return undefined;
  }
  if ('fs' in step) {
    for (const [rel, content] of Object.entries(step.fs.write ?? {})) writeFile(root, rel, content);
    for (const rel of step.fs.delete ?? []) fs.rmSync(path.join(root, rel), { recursive: true, force: true });
    return undefined;
  }
  if ('reply_end' in step) {
    storeReply(run);
    session.endReply();
    return undefined;
  }
  if ('undo' in step) {
    session.history.undo();
    return undefined;
  }
  if ('user' in step) {
    if (step.mode !== undefined && !MODES.includes(step.mode as Mode)) return `unknown mode "${step.mode}"`;
    storeReply(run);
    const { sent } = await session.hookedMessage(step.user, { date: step.date, mode: step.mode as Mode | undefined });
    return compare(step, sent, root);
  }
  if ('compact' in step) {
    let text: string;
    storeReply(run);
    try {
      text = session.history.compact(wordsOf(step.compact));
    } catch (err) {
      if (!(err instanceof SessionError)) throw err;
      text = `Error: ${err.message.replace(/^./, (c) => c.toLowerCase())}`;
    }
    return compare(step, text, root);
  }
  if ('rewind' in step) {
    // The person rewinds once the reply has stopped: a reply still being made ends first.
    storeReply(run);
    session.endReply();
    const messages = session.turns().filter((t) => t.words !== undefined);
    const turn = messages[step.rewind - 1];
    if (!turn) return `there is no turn ${step.rewind}: the history lists ${messages.length} messages of the person`;
    if (step.files === true) session.history.rewindWithFiles(turn.seq);
    else session.history.rewindTo(turn.seq);
    return undefined;
  }
  if ('revert_file' in step) {
    // The person's Revert file in the app's Changes view, once the reply has stopped.
    storeReply(run);
    session.endReply();
    session.history.revertFile(step.revert_file);
    return undefined;
  }
  if ('fs_expect' in step) {
    for (const [rel, expected] of Object.entries(step.fs_expect)) {
      const abs = path.join(root, rel);
      const actual = fs.lstatSync(abs, { throwIfNoEntry: false }) ? fs.readFileSync(abs, 'utf8') : null;
      if (actual !== expected) return `${rel}: expected ${expected === null ? 'no file' : `content:\n${indent(expected)}`}\nactual: ${actual === null ? 'no file' : `\n${indent(actual)}`}`;
    }
    return undefined;
  }
  if ('system' in step) {
    return session.systemPromptUnchanged() ? undefined : 'the system prompt changed since the first request';
  }
  return `unknown step ${JSON.stringify(step)}`;
}

/** The results the subagent of the parent's result `number` got, each matched by its regular expression. */
function compareChild(run: Run, number: number, patterns: string[], root: string): string | undefined {
  const link = run.store.listAttachments(run.session.id, number).find((a) => a.mimeType === SUBAGENT_MIME);
  if (!link) return 'the result names no subagent session';
  const { sessionId } = JSON.parse(link.data.toString()) as { sessionId: number };
  const results = run.store.listResults(sessionId).map((r) => r.inserted);
  if (results.length !== patterns.length) return `the subagent's calls got ${results.length} results, expected ${patterns.length}:\n${indent(results.join('\n---\n'))}`;
  for (const [i, pattern] of patterns.entries()) {
    const problem = compare({ expect_re: pattern }, results[i], root);
    if (problem) return `the subagent's result ${i + 1}: ${problem}`;
  }
  return undefined;
}

function compare(step: Expectation, actual: string, root: string): string | undefined {
  if (step.expect !== undefined) {
    const expected = step.expect.replaceAll('{{root}}', root);
    return actual === expected ? undefined : `expected:\n${indent(expected)}\nactual:\n${indent(actual)}`;
  }
  if (step.expect_re !== undefined) {
    const source = step.expect_re.replaceAll('{{root}}', root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(source).test(actual) ? undefined : `expected to match /${source}/:\nactual:\n${indent(actual)}`;
  }
  return undefined;
}

/** `{{root}}` in every string of a call's arguments. */
function withRoot(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.replaceAll('{{root}}', root);
  if (Array.isArray(value)) return value.map((v) => withRoot(v, root));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRoot(v, root)]));
  }
  return value;
}

function writeFile(root: string, rel: string, content: string): void {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
}

function indent(text: string): string {
  return text.split('\n').map((line) => `    | ${line}`).join('\n');
}

/**
 * A scripted reply's words: the cases write replies in Qwen's syntax, and the engine, not the
 * session, cuts a reply at its first call (in the model family's own format).
 */
function wordsOf(reply: string): string {
  const call = reply.indexOf('<tool_call>');
  return call >= 0 ? reply.slice(0, call) : reply;
}
