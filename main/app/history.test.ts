import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session } from '../core/session/session.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { formatCall, type CallSyntax } from '../llm/toolCalls.js';
import { generatedModelSyntax } from '../../test/generatedSyntax.js';
import { KeelService } from './service.js';

let dir: string;
let store: SqliteStore;
let service: KeelService;
let events: KeelEvent[];
let syntax: CallSyntax;
const replies: string[] = [];
const model = () => path.join(dir, 'models', 'tiny.gguf');

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-history-service-')));
  fs.mkdirSync(path.join(dir, 'ws'));
  fs.writeFileSync(path.join(dir, 'ws', 'a.txt'), 'one\ntwo\n');
  fs.mkdirSync(path.join(dir, 'models'));
  writeTestModel(model());
  store = new SqliteStore(path.join(dir, 'keel.db'));
  events = [];
  replies.length = 0;
  service = new KeelService({
    store, dataFolder: path.join(dir, 'data'), promptsDir: DEFAULT_PROMPTS_DIR, emit: (e) => events.push(e),
    threads: 1, contextSize: 8192, scriptFor: () => ({ next: () => replies.shift() }),
  });
});

beforeAll(async () => {
  // How the generated model writes a call, to script its replies.
  syntax = await generatedModelSyntax();
}, 60_000);

afterEach(async () => {
  await service.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function sessionWithTurns(...words: string[]): Promise<number> {
  await service.loadModel(model());
  const { id } = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'agent', mode: 'auto' });
  for (const w of words) {
    replies.push(formatCall(syntax, 'read', { path: 'a.txt' }), `Answer to ${w}.`);
    await service.send(id, w);
  }
  return id;
}

const words = async (id: number) => (await service.openSession(id)).turns.map((t) => t.words);

describe('history control through the service', { timeout: 90_000 }, () => {
  it('rewinds to a message: it and the later turns leave the view and the request, and the cache view shows "rewind"', async () => {
    const id = await sessionWithTurns('one', 'two', 'three');
    await service.rewind(id, 2);
    expect(await words(id)).toEqual(['one']);
    expect(events.at(-1)).toEqual({ type: 'session-changed', sessionId: id });
    replies.push('Fresh.');
    await service.send(id, 'two again');
    expect(await words(id)).toEqual(['one', 'two again']);
    expect((await service.requests(id)).filter((r) => r.cause).map((r) => r.cause)).toEqual(['rewind']);
  });

  it('edits and resends an earlier message, and refuses a turn that is not there without changing anything', async () => {
    const id = await sessionWithTurns('one', 'two');
    replies.push('Edited answer.');
    await service.editAndResend(id, 1, 'one, edited');
    const view = await service.openSession(id);
    expect(view.turns.map((t) => t.words)).toEqual(['one, edited']);
    expect(view.turns[0].parts).toEqual([{ type: 'text', text: 'Edited answer.' }]);
    expect(view.turns[0].notes.map((n) => n.kind)).toEqual(['date']);
    await expect(service.editAndResend(id, 9, 'nope')).rejects.toThrow('There is no turn 9');
    expect(await words(id)).toEqual(['one, edited']);
    expect(events.filter((e) => e.type === 'turn-ended')).toHaveLength(4);
  });

  it('deletes a turn, keeping the later ones, and says why where it cannot', async () => {
    const id = await sessionWithTurns('one', 'two', 'three');
    // Turns 2 and 3 re-read a.txt: stubs of turn 1's read.
    await expect(service.deleteTurn(id, 1)).rejects.toThrow("Turn 1 cannot be deleted: turn 2's #0002 stands for #0001 from it");
    await service.deleteTurn(id, 2);
    expect(await words(id)).toEqual(['one', 'three']);
    replies.push('Four.');
    await service.send(id, 'four');
    expect((await service.requests(id)).filter((r) => r.cause).map((r) => r.cause)).toEqual(['turn deleted']);
  });

  it('rewinds a session whose last reply was cut off by a crash', async () => {
    await service.loadModel(model());
    const { id } = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'agent', mode: 'auto' });
    const other = Session.open({ store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() }, id);
    other.userMessage('cut off');
    await other.calls.run('read', { path: 'a.txt' });
    expect(store.listTurns(id).map((t) => t.status)).toEqual(['open']);
    // Its reply was never stored, so no request carries the result; recall still shows it.
    expect(await service.recall(id, '#1')).toMatchObject({ inRequest: false, lines: ['1: one', '2: two'] });
    await service.rewind(id, 1);
    expect(store.listTurns(id).map((t) => t.status)).toEqual(['undone']);
  });

  it('deletes a session with its saved state files, and never gives its id again', async () => {
    const id = await sessionWithTurns('one');
    const state = path.join(dir, 'data', 'state');
    fs.mkdirSync(state, { recursive: true });
    for (const name of [`session-${id}.bin`, `session-${id}.bin.json`, `session-${id}.bin.tmp-77`, `session-${id}0.bin`, 'notes.txt']) {
      fs.writeFileSync(path.join(state, name), 'x');
    }
    await service.deleteSession(id);
    expect(fs.readdirSync(state).sort()).toEqual(['notes.txt', `session-${id}0.bin`]);
    expect(store.getSession(id)).toBeUndefined();
    const next = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat' });
    expect(next.id).toBe(id + 1);
  });
});
