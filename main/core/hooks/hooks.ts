/**
 * A session's hooks (contract.md, Hooks): which run for an event, and what the model hears of them.
 * The texts come from loop.json; the person sees every run (HookRun), the model only what the
 * contract says: a PreToolUse exit 2 blocks the call, a PostToolUse exit 2 joins the result before
 * it is first sent, a Stop exit 2 keeps the turn going, UserPromptSubmit's stdout is a note.
 */
import { fill, hooksConfig } from '../config.js';
import { capBody } from '../hygiene/cap.js';
import type { CommandRunner } from '../tools/commandRunner.js';
import { readDecision } from '../approvalAnswers.js';
import type { Approver } from '../permissions/approval.js';
import { matches } from './match.js';
import { AS_THE_PERSON, runHook, type HookRun } from './run.js';
import type { HookEventName, HookSet } from './settings.js';

const texts = hooksConfig.texts;

export interface HookContext {
  sessionId: number;
  root: string;
  /** The session's command runner (the OS sandbox): a workspace's hooks run in it, the person's never do (placeOf). */
  runner: CommandRunner;
  mode: string;
  /** Asks the person (a workspace's hook where no sandbox can run); absent where no one can be asked. */
  approve?: Approver;
}

/** What the hooks of one event did: every run, for the person, and what the model is to hear. */
export interface HookOutcome {
  runs: HookRun[];
  /** PreToolUse: the blocking text; PostToolUse: the feedback to append; Stop: the text that continues the turn; UserPromptSubmit: the note. */
  text?: string;
}

/**
 * The hooks of a session. `sets` is asked at every event, so a workspace file that changed since
 * its approval stops running at once, and one approved while the session is open runs from then on.
 */
export class Hooks {
  constructor(private readonly sets: () => readonly HookSet[], private readonly ctx: () => HookContext) {}

  /** Whether any hook at all is configured now (a session without hooks pays nothing). */
  get empty(): boolean {
    return this.sets().every((s) => Object.values(s.events).every((groups) => groups.length === 0));
  }

  /** Runs before a call; the first hook that exits 2 blocks it, and no later hook runs for it. */
  async preToolUse(tool: string, input: unknown, signal?: AbortSignal): Promise<HookOutcome> {
    const runs: HookRun[] = [];
    for (const run of this.each('PreToolUse', tool, { tool_name: tool, tool_input: input }, signal)) {
      const r = await run();
      runs.push(r);
      if (r.exit === 2) return { runs, text: fill(texts.blocked, { stderr: trimNewline(r.stderr) }) };
    }
    return { runs };
  }

  /**
   * Runs after a call, before its result is inserted: `response` is the result as it will be
   * inserted. Each hook that exits 2 adds one blank line, its heading and its stderr (capped as a
   * body, spec §3), in order. `id` is the result's id, for the cap's recall line.
   */
  async postToolUse(tool: string, input: unknown, response: string, id: string, signal?: AbortSignal): Promise<HookOutcome> {
    const runs: HookRun[] = [];
    let text = '';
    for (const run of this.each('PostToolUse', tool, { tool_name: tool, tool_input: input, tool_response: response }, signal)) {
      const r = await run();
      runs.push(r);
      if (r.exit === 2) text += `\n\n${texts.post}\n${capBody(trimNewline(r.stderr), id)}`;
    }
    return text === '' ? { runs } : { runs, text };
  }

  /** Before a person's message is sent: what hooks that exit 0 print becomes a note on it (spec §10.3). */
  async userPromptSubmit(prompt: string, signal?: AbortSignal): Promise<HookOutcome> {
    const runs: HookRun[] = [];
    const notes: string[] = [];
    for (const run of this.each('UserPromptSubmit', undefined, { prompt }, signal)) {
      const r = await run();
      runs.push(r);
      const printed = r.stdout.trim();
      if (r.exit === 0 && printed !== '') notes.push(printed);
    }
    return notes.length === 0 ? { runs } : { runs, text: notes.join('\n') };
  }

  /**
   * When the model answers without a call: a hook that exits 2 keeps the turn going with its
   * stderr (Claude Code's Stop). `active` is true once a Stop hook has already kept this turn
   * going, as Claude Code's `stop_hook_active`, so a hook can let the model stop.
   */
  async stop(active: boolean, signal?: AbortSignal): Promise<HookOutcome> {
    const runs: HookRun[] = [];
    for (const run of this.each('Stop', undefined, { stop_hook_active: active }, signal)) {
      const r = await run();
      runs.push(r);
      if (r.exit === 2) return { runs, text: `${texts.stop}\n${trimNewline(r.stderr)}` };
    }
    return { runs };
  }

  /** The runs of an event's matching hooks, in file order (the person's first, then the workspace's). */
  private *each(event: HookEventName, tool: string | undefined, fields: object, signal?: AbortSignal): Generator<() => Promise<HookRun>> {
    for (const set of this.sets()) {
      for (const group of set.events[event]) {
        if (tool !== undefined && !matches(group.matcher, tool)) continue;
        for (const hook of group.hooks) {
          yield async () => {
            const c = this.ctx();
            const input = { session_id: String(c.sessionId), cwd: c.root, hook_event_name: event, permission_mode: c.mode, ...fields };
            const where = await placeOf(set, c, event, hook.command);
            if ('refused' in where) return { event, command: hook.command, file: set.file, exit: null, stdout: '', stderr: '', problem: where.refused, ms: 0 };
            return runHook({ event, command: hook.command, file: set.file, timeoutS: hook.timeoutS, input, root: c.root, runner: where.runner, signal });
          };
        }
      }
    }
  }
}

/**
 * Where a hook runs, decided here alone, by the settings file it was written in (issue 34): the
 * person's own hooks as they would run them themselves (AS_THE_PERSON, outside the sandbox, as
 * Claude Code runs hooks); a repository's in the session's command sandbox, as the person approved
 * them, and where no sandbox can run only as unsandboxedRefusal lets them.
 */
async function placeOf(set: HookSet, c: HookContext, event: HookEventName, command: string): Promise<{ runner: CommandRunner } | { refused: string }> {
  if (set.source === 'person') return { runner: AS_THE_PERSON };
  const refused = await unsandboxedRefusal(c, event, command, set.file);
  return refused === undefined ? { runner: c.runner } : { refused };
}

/**
 * A workspace's hook was approved to run in the sandbox. Where none can run, each run is asked of the
 * person, saying it runs unsandboxed (refused in auto, and where no one can be asked): why it did not
 * run, or undefined to run it.
 */
async function unsandboxedRefusal(c: HookContext, event: HookEventName, command: string, file: string): Promise<string | undefined> {
  const status = await c.runner.status();
  if (status.kind === 'sandboxed') return undefined;
  const why = `no sandbox can run here (${status.reason}), so this workspace hook would run with your whole account, outside any sandbox`;
  if (c.mode === 'auto' || !c.approve) return `it did not run: ${why}; auto mode and runs no one can approve refuse it`;
  const decision = await c.approve({ sessionId: c.sessionId, tool: 'hook', args: { event, file }, paths: [], command, preview: `${event} hook from ${file}:\n${command}`, reason: why });
  return readDecision(decision).answer === 'deny' ? 'it did not run: the person denied it (it would run outside any sandbox)' : undefined;
}

function trimNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
