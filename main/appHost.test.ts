import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHost } from './appHost.js';
import { DEFAULT_PROMPTS_DIR } from './core/prompts/buildSystemPrompt.js';
import { CONTRACT, METHODS, type KeelEvent } from './contract.js';
import { KeelService } from './app/service.js';

let tmp: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-host-')));
});

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('startHost', () => {
  it('the service has a function for every method of the contract, and the contract no other name', () => {
    expect([...METHODS].sort()).toEqual(Object.keys(CONTRACT).sort());
    const service = KeelService.prototype as unknown as Record<string, unknown>;
    expect(METHODS.filter((m) => typeof service[m] !== 'function')).toEqual([]);
  });

  it('opens <dataFolder>/keel.db, checks calls and fans events out', async () => {
    const host = startHost({ dataFolder: tmp, promptsDir: DEFAULT_PROMPTS_DIR });
    expect(host.problem).toBeUndefined();
    expect(fs.existsSync(path.join(tmp, 'keel.db'))).toBe(true);
    const ws = path.join(tmp, 'ws');
    fs.mkdirSync(ws);
    const a: KeelEvent[] = [];
    const b: KeelEvent[] = [];
    const stopA = host.subscribe((e) => a.push(e));
    host.subscribe(() => {
      throw new Error('a broken listener');
    });
    host.subscribe((e) => b.push(e));
    const created = await host.call('createSession', [{ workspace: ws, kind: 'agent' }]);
    expect(created.ok).toBe(true);
    const id = (created as { value: { id: number } }).value.id;
    expect(await host.call('setMode', [id, 'plan'])).toEqual({ ok: true, value: undefined });
    stopA();
    await host.call('setMode', [id, 'auto']);
    expect(a).toEqual([{ type: 'session-changed', sessionId: id }]);
    expect(b).toHaveLength(2);
    expect(await host.call('openSession', ['1'])).toEqual({ ok: false, error: expect.stringMatching(/integer/) });
    expect(await host.call('hasOwnProperty', [])).toEqual({ ok: false, error: expect.stringMatching(/Unknown method/) });
    expect(await host.call('listSessions', 'not an array')).toMatchObject({ ok: false });
    // A left-out trailing argument sent over the socket (JSON null) reaches the service as undefined.
    expect(await host.call('mcpServers', [ws, null])).toMatchObject({ ok: true });
    await host.close();
    await host.close();
  });

  it('still starts on a settings.json it cannot read, naming the file and the field, and leaves it alone', async () => {
    const file = path.join(tmp, 'settings.json');
    const text = JSON.stringify({ rules: [{ action: 'maybe', tool: 'bash' }] });
    fs.writeFileSync(file, text);
    const host = startHost({ dataFolder: tmp, promptsDir: DEFAULT_PROMPTS_DIR });
    expect(host.problem).toContain(file);
    expect(host.problem).toContain('"rules[0].action"');
    expect((await host.api.getState()).problem).toBe(host.problem);
    await expect(host.api.listSessions()).rejects.toThrow(host.problem!);
    await host.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.existsSync(path.join(tmp, 'keel.db'))).toBe(false);
  });

  it('still starts on a corrupt database, reports it, refuses every other call and leaves the file alone', async () => {
    const file = path.join(tmp, 'keel.db');
    const garbage = Buffer.from('this is not a SQLite database, but somebody’s data all the same\n'.repeat(100));
    fs.writeFileSync(file, garbage);
    const host = startHost({ dataFolder: tmp, promptsDir: DEFAULT_PROMPTS_DIR });
    expect(host.problem).toContain(file);
    const state = await host.api.getState();
    expect(state.problem).toBe(host.problem);
    expect(state.dataFolder).toBe(tmp);
    await expect(host.api.listSessions()).rejects.toThrow(host.problem!);
    expect(await host.call('openSession', [1])).toEqual({ ok: false, error: host.problem });
    expect(await host.call('getState', [])).toMatchObject({ ok: true, value: { problem: host.problem } });
    for (const method of METHODS.filter((m) => m !== 'getState')) {
      await expect((host.api[method] as () => Promise<unknown>)()).rejects.toThrow(host.problem!);
    }
    await host.close();
    expect(fs.readFileSync(file).equals(garbage)).toBe(true);
  });
});
