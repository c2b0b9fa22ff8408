/**
 * The Processes tab's calls on the real service, store, engine (scripted replies), OS sandbox and
 * shells: a model's background commands are listed with their status, the person reads one's
 * output without moving the model's read position, the shown part is bounded, Stop stops it as
 * kill_shell does, and each start and end is pushed as shells-changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import { toolConfig } from '../core/config.js';
import { loadModel } from '../llm/model.js';
import { callSyntax, formatCall } from '../llm/toolCalls.js';
import { sessionWrapper } from '../llm/wrapper.js';
import type { KeelService } from './service.js';
import { closeTestService, openTestService, type TestService } from '../../test/appService.js';

let dir: string;
let service: KeelService;
let events: KeelEvent[];
const replies: string[] = [];

let t: TestService;
beforeEach(() => {
  t = openTestService('keel-shells-view-', replies);
  ({ dir, service, events } = t);
});

afterEach(() => closeTestService(t));

async function until(what: string, done: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `pid` and every process below it, from /proc. */
function tree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const e of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(e)]);
    } catch {
      // gone
    }
  }
  const out = [pid];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const TICKS = 'i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.2; done';
const LOUD = 'yes abcdefghi | head -c 200000';

describe('the Processes tab on the real service', { timeout: 180_000 }, () => {
  it("lists a session's background shells, shows one's output without consuming the model's, bounds it, and stops one as kill_shell does", async () => {
    await service.setModelsFolder(path.join(dir, 'models'));
    const [model] = await service.listModels();
    await service.loadModel(model.path);
    const { id } = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'agent', mode: 'auto' });
    const other = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'agent', mode: 'auto' });
    const loaded = await loadModel({ modelPath: model.path, threads: 1, contextSize: 4096 });
    const syntax = callSyntax(sessionWrapper(loaded.model, '2026-11-30'));
    await loaded.dispose();
    const changed = () => events.filter((e) => e.type === 'shells-changed' && e.sessionId === id).length;

    replies.push(
      formatCall(syntax, 'bash', { command: TICKS, run_in_background: true }),
      formatCall(syntax, 'bash', { command: LOUD, run_in_background: true }),
      'Both started.',
    );
    await service.send(id, 'Start the ticker and the loud one.');
    await until('bg2 to end', async () => (await service.shells(id))[1]?.state === 'exited');
    // Each start and each end is pushed, for this session only.
    await until('a start and an end pushed', () => changed() >= 3);
    expect(events.filter((e) => e.type === 'shells-changed').every((e) => e.type === 'shells-changed' && e.sessionId === id)).toBe(true);

    const [ticker, loud] = await service.shells(id);
    expect(ticker).toMatchObject({ id: 'bg1', command: TICKS, state: 'running', status: '[shell bg1 is running]' });
    expect(ticker.pid).toBeGreaterThan(0);
    expect(ticker.startedAt).toBeGreaterThan(Date.now() - 120_000);
    expect(loud).toMatchObject({ id: 'bg2', command: LOUD, state: 'exited', code: 0, status: '[shell bg2 exited with code 0]', bytes: 200_000 });
    expect(await service.shells(other.id)).toEqual([]);

    // The person reads the ticker's output, twice: everything from its start each time.
    await until('three ticks', async () => (await service.shellOutput(id, 'bg1')).text.includes('tick 3\n'));
    const seen = await service.shellOutput(id, 'bg1');
    expect(seen.text.startsWith('tick 1\ntick 2\ntick 3\n')).toBe(true);
    expect(seen).toMatchObject({ dropped: 0, shell: { id: 'bg1', state: 'running', status: '[shell bg1 is running]' } });

    // What is shown of a loud one is its newest shown_bytes, whole, and says how much came before.
    const shown = await service.shellOutput(id, 'bg2');
    const max = toolConfig.shells.shown_bytes;
    expect(Buffer.byteLength(shown.text)).toBeLessThanOrEqual(max);
    expect(Buffer.byteLength(shown.text)).toBeGreaterThan(max - 4);
    expect(shown.dropped + Buffer.byteLength(shown.text)).toBe(200_000);
    expect(shown.text.endsWith('abcdefghi\n')).toBe(true);

    // The model's next read still begins at the first tick: the person's reads moved nothing.
    replies.push(formatCall(syntax, 'bash_output', { bash_id: 'bg1' }), 'It ticks.');
    await service.send(id, 'What did the ticker print?');
    const view = await service.openSession(id);
    const read = view.turns[1].parts.find((p) => p.type === 'tool');
    expect(read?.type === 'tool' && read.tool.text).toMatch(/\ntick 1\ntick 2\ntick 3\n[\s\S]*\[shell bg1 is running\]$/);

    // Stop: kill_shell's answer; the command and all it started are gone; the end is pushed.
    const procs = tree(ticker.pid!);
    expect(procs.filter(alive).length).toBeGreaterThan(1);
    const before = changed();
    expect(await service.stopShell(id, 'bg1')).toBe('Shell bg1 was stopped.');
    expect((await service.shells(id))[0]).toMatchObject({ state: 'stopped', status: '[shell bg1 was stopped: the person stopped it]' });
    expect(procs.filter(alive)).toEqual([]);
    await until('the stop pushed', () => changed() > before);
    expect(await service.stopShell(id, 'bg1')).toBe('Shell bg1 had already ended: [shell bg1 was stopped: the person stopped it]');
    await expect(service.stopShell(id, 'bg9')).rejects.toThrow('Error: there is no background shell bg9 in this session. Shells: bg1 (stopped), bg2 (exited).');
    await expect(service.shellOutput(other.id, 'bg1')).rejects.toThrow('none was started');
  });
});
