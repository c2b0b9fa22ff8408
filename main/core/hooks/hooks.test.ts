import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempRoot } from '../../../test/toolContext.js';
import { unsandboxedRunner } from '../tools/commandRunner.js';
import { Hooks } from './hooks.js';
import { matches } from './match.js';
import { hookFailure, type HookRun } from './run.js';
import { HookSettingsError, parseHooks, type HookSet } from './settings.js';

const temps: Array<{ remove(): void }> = [];
afterEach(() => temps.splice(0).forEach((t) => t.remove()));

function hooksOf(json: unknown, root: string): Hooks {
  const set = parseHooks(json, path.join(root, '.keel/settings.json'), 'person');
  return new Hooks(() => [set], () => ({ sessionId: 7, root, runner: unsandboxedRunner('test'), mode: 'auto' }));
}

function workspace(files: Record<string, string> = {}): string {
  const t = makeTempRoot(files);
  temps.push(t);
  return t.root;
}

const one = (event: string, command: string, matcher?: string) => ({ hooks: { [event]: [{ ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: 'command', command }] }] } });

describe('hook settings', () => {
  it('reads Claude Code settings, leaving out events Keel does not run', () => {
    const set = parseHooks({
      permissions: { allow: [] },
      hooks: {
        PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx tsc --noEmit', timeout: 30 }] }],
        Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }],
      },
    }, '/w/.keel/settings.json', 'workspace');
    expect(set.events.PostToolUse).toEqual([{ matcher: 'Edit|Write', hooks: [{ command: 'npx tsc --noEmit', timeoutS: 30 }] }]);
    expect(set.events.PreToolUse).toEqual([]);
  });

  it('a file without hooks has none', () => {
    expect(parseHooks({ modelsFolder: '/m' }, '/h/settings.json', 'person').events.Stop).toEqual([]);
  });

  it.each([
    [{ hooks: { PreToolUse: [{ hooks: [{ type: 'prompt', prompt: 'x' }] }] } }, 'hooks.PreToolUse[0].hooks[0].type'],
    [{ hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: '' }] }] } }, 'hooks.PostToolUse[0].hooks[0].command'],
    [{ hooks: { PreToolUse: [{ matcher: '(', hooks: [] }] } }, 'hooks.PreToolUse[0].matcher'],
    [{ hooks: { Stop: { hooks: [] } } }, 'hooks.Stop'],
  ])('refuses a malformed entry, naming the file and the field (%#)', (json, field) => {
    expect(() => parseHooks(json, '/w/.keel/settings.json', 'workspace')).toThrow(HookSettingsError);
    expect(() => parseHooks(json, '/w/.keel/settings.json', 'workspace')).toThrow(new RegExp(`^/w/\\.keel/settings\\.json: ${field.replace(/[[\].]/g, '\\$&')}`));
  });
});

describe('matchers', () => {
  it('match the whole name, Keel\'s or Claude Code\'s', () => {
    expect(matches('Edit|Write', 'edit')).toBe(true);
    expect(matches('Edit|Write', 'multiedit')).toBe(false);
    expect(matches('MultiEdit', 'multiedit')).toBe(true);
    expect(matches('LS', 'list')).toBe(true);
    expect(matches('edit', 'multiedit')).toBe(false);
    expect(matches('.*edit', 'multiedit')).toBe(true);
    expect(matches('mcp__files__.*', 'mcp__files__read_file')).toBe(true);
    expect(matches('Bash', 'apply_patch')).toBe(false);
  });

  it('an empty matcher and * match every tool', () => {
    expect(matches('', 'apply_patch')).toBe(true);
    expect(matches('*', 'mcp__x__y')).toBe(true);
  });
});

describe('running hooks', () => {
  it('PreToolUse exit 2 blocks with its stderr; the event arrives on stdin', async () => {
    const root = workspace();
    const hooks = hooksOf(one('PreToolUse', 'cat > event.json; echo "no edits to secrets" >&2; exit 2', 'Edit'), root);
    const r = await hooks.preToolUse('edit', { path: 'a.txt' });
    expect(r.text).toBe('Blocked by a PreToolUse hook: no edits to secrets');
    expect(JSON.parse(fs.readFileSync(path.join(root, 'event.json'), 'utf8'))).toEqual({
      session_id: '7', cwd: root, hook_event_name: 'PreToolUse', permission_mode: 'auto', tool_name: 'edit', tool_input: { path: 'a.txt' },
    });
  });

  it('PreToolUse with any other exit lets the call run and tells the model nothing', async () => {
    const root = workspace();
    const hooks = hooksOf(one('PreToolUse', 'echo checked; echo warn >&2; exit 1'), root);
    const r = await hooks.preToolUse('bash', { command: 'ls' });
    expect(r.text).toBeUndefined();
    expect(r.runs).toMatchObject([{ exit: 1, stdout: 'checked\n', stderr: 'warn\n' }]);
  });

  it('a hook whose matcher does not match does not run', async () => {
    const root = workspace();
    const hooks = hooksOf(one('PreToolUse', 'touch ran; exit 2', 'Bash'), root);
    expect((await hooks.preToolUse('read', { path: 'x' })).runs).toEqual([]);
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false);
  });

  it('PostToolUse exit 2 texts follow the result in order, each after a blank line', async () => {
    const root = workspace();
    const set: HookSet = parseHooks({ hooks: { PostToolUse: [
      { matcher: 'Write', hooks: [{ type: 'command', command: 'echo "first" >&2; exit 2' }, { type: 'command', command: 'echo fine' }] },
      { hooks: [{ type: 'command', command: 'jq -r .tool_response >/dev/null 2>&1; printf "second\\n\\n" >&2; exit 2' }] },
    ] } }, path.join(root, 's.json'), 'person');
    const hooks = new Hooks(() => [set], () => ({ sessionId: 1, root, runner: unsandboxedRunner('test'), mode: 'ask' }));
    const r = await hooks.postToolUse('write', { path: 'a' }, '[#0003 a sha 1] Created, 1 lines.', '#0003');
    expect(r.text).toBe('\n\n[PostToolUse hook exited 2]\nfirst\n\n[PostToolUse hook exited 2]\nsecond\n');
    expect(r.runs.map((x) => x.exit)).toEqual([2, 0, 2]);
  });

  it('PostToolUse stderr is capped as a body is', async () => {
    const root = workspace();
    const hooks = hooksOf(one('PostToolUse', 'seq 1 500 >&2; exit 2'), root);
    const r = await hooks.postToolUse('bash', {}, '[#0009]', '#0009');
    expect(r.text).toMatch(/^\n\n\[PostToolUse hook exited 2\]\n1\n2\n/);
    expect(r.text).toContain('lines elided, full output #0009]');
    expect(r.text).toMatch(/\n500$/);
  });

  it('UserPromptSubmit stdout of a hook that exits 0 is the note', async () => {
    const root = workspace();
    const hooks = hooksOf(one('UserPromptSubmit', 'echo "Branch: main"; echo "  "'), root);
    expect((await hooks.userPromptSubmit('hi')).text).toBe('Branch: main');
  });

  it('Stop exit 2 keeps the turn going with its stderr; stop_hook_active says when it already did', async () => {
    const root = workspace();
    const hooks = hooksOf(one('Stop', 'if jq -e .stop_hook_active >/dev/null; then exit 0; fi; echo "2 tests fail" >&2; exit 2'), root);
    expect((await hooks.stop(false)).text).toBe('[Stop hook exited 2]\n2 tests fail');
    expect((await hooks.stop(true)).text).toBeUndefined();
  });

  it('a hook that hangs is stopped at its timeout and named, the model told nothing', async () => {
    const root = workspace();
    const hooks = hooksOf({ hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: 'sleep 30; exit 2', timeout: 0.5 }] }] } }, root);
    const started = Date.now();
    const r = await hooks.postToolUse('bash', {}, '[#0001]', '#0001');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.text).toBeUndefined();
    expect(r.runs[0]).toMatchObject({ exit: null, problem: 'it did not finish within 0.5 s and was stopped' });
  });

  it('a hook that prints megabytes is stopped with its output bounded', async () => {
    const root = workspace();
    const hooks = hooksOf(one('PreToolUse', 'yes x; exit 2'), root);
    const r = await hooks.preToolUse('bash', {});
    expect(r.text).toBeUndefined();
    expect(r.runs[0].problem).toBe('its stdout passed 65536 bytes and it was stopped');
    expect(r.runs[0].stdout.length).toBe(65536);
  });

  it('a hook\'s stderr is its own: bash does not read ~/.bashrc for it', async () => {
    const root = workspace();
    const home = workspace({ '.bashrc': 'echo "from bashrc" >&2\n' });
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const r = await hooksOf(one('PreToolUse', 'cat >/dev/null; echo mine >&2; exit 2'), root).preToolUse('bash', {});
      expect(r.text).toBe('Blocked by a PreToolUse hook: mine');
    } finally {
      process.env.HOME = saved;
    }
  });

  it('a hook that cannot start is named, and the call goes on', async () => {
    const root = workspace();
    const hooks = new Hooks(() => [parseHooks(one('PreToolUse', 'true'), '/s.json', 'person')], () => ({
      sessionId: 1, root: path.join(root, 'gone'), runner: unsandboxedRunner('test'), mode: 'ask',
    }));
    const r = await hooks.preToolUse('bash', {});
    expect(r.text).toBeUndefined();
    expect(r.runs[0].problem).toMatch(/^it could not start: /);
  });
});

describe("a workspace's hooks where no sandbox can run (issue 35)", () => {
  const wsHooks = (root: string, mode: string, approve?: () => Promise<'allow' | 'deny'>, asked: string[] = []) => {
    const set = parseHooks(one('PreToolUse', 'touch ran'), path.join(root, '.keel/settings.json'), 'workspace');
    return new Hooks(() => [set], () => ({
      sessionId: 1, root, runner: unsandboxedRunner('bubblewrap is not installed'), mode,
      approve: approve && (async (r) => { asked.push(`${r.tool}: ${r.command} (${r.reason})`); return approve(); }),
    }));
  };

  it('auto, or no one to ask: it does not run, and the run says why', async () => {
    for (const hooks of [wsHooks(workspace(), 'auto', async () => 'allow'), wsHooks(workspace(), 'ask')]) {
      const r = await hooks.preToolUse('bash', {});
      expect(r.text).toBeUndefined();
      expect(r.runs[0]).toMatchObject({ exit: null, problem: expect.stringMatching(/^it did not run: no sandbox can run here \(bubblewrap is not installed\), so this workspace hook would run with your whole account, outside any sandbox/) });
    }
  });

  it('ask: each run is asked, saying it runs unsandboxed; a denial runs nothing, an approval runs it', async () => {
    const root = workspace();
    const asked: string[] = [];
    let answer: 'allow' | 'deny' = 'deny';
    const hooks = wsHooks(root, 'ask', async () => answer, asked);
    expect((await hooks.preToolUse('bash', {})).runs[0].problem).toBe('it did not run: the person denied it (it would run outside any sandbox)');
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false);
    answer = 'allow';
    expect((await hooks.preToolUse('bash', {})).runs[0]).toMatchObject({ exit: 0 });
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(true);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatch(/^hook: touch ran \(no sandbox can run here/);
  });

  it("the person's own hooks run as their shell would (the control)", async () => {
    const root = workspace();
    const hooks = new Hooks(() => [parseHooks(one('PreToolUse', 'touch ran'), '/home/me/.keel/settings.json', 'person')], () => ({ sessionId: 1, root, runner: unsandboxedRunner('none'), mode: 'auto' }));
    expect((await hooks.preToolUse('bash', {})).runs[0]).toMatchObject({ exit: 0 });
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(true);
  });
});

describe('a failed hook in words for the person (hookFailure)', () => {
  const run = (over: Partial<HookRun>): HookRun => ({ event: 'Stop', command: 'notify', file: '/home/me/.claude/settings.json', exit: 0, stdout: '', stderr: '', ms: 3, ...over });

  it('says nothing of a run that did its job: exit 0, or a Stop hook keeping the turn going', () => {
    expect(hookFailure(run({ exit: 0, stderr: 'noise\n' }))).toBeUndefined();
    expect(hookFailure(run({ exit: 2, stderr: 'run the tests first\n' }))).toBeUndefined();
  });

  it('names the hook, its file and how it ended, with its stderr (else its stdout)', () => {
    expect(hookFailure(run({ event: 'UserPromptSubmit', exit: 2, stdout: 'out\n', stderr: 'err\n' })))
      .toBe('The UserPromptSubmit hook `notify` (/home/me/.claude/settings.json) exited 2.\nerr');
    expect(hookFailure(run({ exit: 1, stdout: 'only stdout\n' }))).toBe('The Stop hook `notify` (/home/me/.claude/settings.json) exited 1.\nonly stdout');
    expect(hookFailure(run({ exit: null, problem: 'it did not finish within 60 s and was stopped' })))
      .toBe('The Stop hook `notify` (/home/me/.claude/settings.json) did not finish: it did not finish within 60 s and was stopped.');
  });

  it('keeps the end of a long output, where a failure says what went wrong', () => {
    const stderr = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');
    const lines = hookFailure(run({ exit: 1, stderr }))!.split('\n');
    expect(lines).toHaveLength(22);
    expect(lines.slice(1, 3)).toEqual(['…', 'line 81']);
    expect(lines.at(-1)).toBe('line 100');
  });
});
