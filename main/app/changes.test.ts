import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkpointsDir } from '../checkpoints/open.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { SqliteStore } from '../db/store.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { formatCall, type CallSyntax } from '../llm/toolCalls.js';
import { generatedModelSyntax } from '../../test/generatedSyntax.js';
import { KeelService } from './service.js';

let dir: string;
let ws: string;
let store: SqliteStore;
let service: KeelService;
let syntax: CallSyntax;
const replies: string[] = [];
const model = () => path.join(dir, 'models', 'tiny.gguf');
const lines = (edit: Record<number, string> = {}) => Array.from({ length: 20 }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
const read = (rel: string) => fs.readFileSync(path.join(ws, rel), 'utf8');

function open(): KeelService {
  return new KeelService({
    store, dataFolder: path.join(dir, 'data'), promptsDir: DEFAULT_PROMPTS_DIR, emit: () => undefined,
    threads: 1, contextSize: 8192, scriptFor: () => ({ next: () => replies.shift() }),
  });
}

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-changes-service-')));
  ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'a.txt'), lines());
  fs.mkdirSync(path.join(dir, 'models'));
  writeTestModel(model());
  store = new SqliteStore(path.join(dir, 'keel.db'));
  replies.length = 0;
  service = open();
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

/** Turn 1 changes a.txt in two places far apart (two hunks); turn 2 creates b.txt. */
async function sessionWithChanges(): Promise<number> {
  await service.loadModel(model());
  const { id } = await service.createSession({ workspace: ws, kind: 'agent', mode: 'auto' });
  replies.push(formatCall(syntax, 'write', { path: 'a.txt', content: lines({ 2: 'TWO', 19: 'NINETEEN' }) }), 'Changed.');
  await service.send(id, 'change a');
  replies.push(formatCall(syntax, 'write', { path: 'b.txt', content: 'bee\n' }), 'Created.');
  await service.send(id, 'make b');
  return id;
}

describe('the Changes tab and rewinds with files, through the service', { timeout: 120_000 }, () => {
  it('lists the changes since the start or a turn; Revert hunk leaves the other hunk, refuses a stale one; a rewind after still puts files back', async () => {
    const id = await sessionWithChanges();
    const all = await service.changes(id);
    expect(all.turns.map((t) => [t.seq, t.words])).toEqual([[1, 'change a'], [2, 'make b']]);
    expect(all.files.map((f) => [f.path, f.kind, f.hunks.length])).toEqual([['a.txt', 'modified', 2], ['b.txt', 'created', 1]]);
    expect(all.files[0].hunks[0]).toBe('@@ -1,5 +1,5 @@\n line 1\n-line 2\n+TWO\n line 3\n line 4\n line 5');
    expect((await service.changes(id, 2)).files.map((f) => f.path)).toEqual(['b.txt']);

    // The file changes under the view: the hunk shown is no longer the one there.
    fs.writeFileSync(path.join(ws, 'a.txt'), lines({ 2: 'TWO!', 19: 'NINETEEN' }));
    await expect(service.revertHunk(id, 'a.txt', 0, all.files[0].hunks[0])).rejects.toThrow(`${path.join(ws, 'a.txt')} changed since its diff was shown (hunk 1 reads otherwise now); nothing was taken back.`);
    expect(read('a.txt')).toBe(lines({ 2: 'TWO!', 19: 'NINETEEN' }));
    fs.writeFileSync(path.join(ws, 'a.txt'), lines({ 2: 'TWO', 19: 'NINETEEN' }));

    const after = await service.revertHunk(id, 'a.txt', 0, all.files[0].hunks[0]);
    expect(read('a.txt')).toBe(lines({ 19: 'NINETEEN' }));
    expect(after.files.map((f) => [f.path, f.hunks.length])).toEqual([['a.txt', 1], ['b.txt', 1]]);
    await expect(service.revertHunk(id, 'a.txt', 1, all.files[0].hunks[1])).rejects.toThrow('(it has 1 hunk now)');

    // The revert was the session's change: a rewind to turn 1 with files still knows a.txt as the session left it.
    const plan = await service.rewindPlan(id, 1);
    expect(plan).toEqual({ seq: 1, canRewindFiles: true, putBack: [{ path: 'a.txt', how: 'restored' }, { path: 'b.txt', how: 'removed' }], left: [], large: [] });
    expect(await service.rewind(id, 1, true)).toEqual({ restored: ['a.txt', 'b.txt'], left: [], large: [] });
    expect(read('a.txt')).toBe(lines());
    expect(fs.existsSync(path.join(ws, 'b.txt'))).toBe(false);
    expect((await service.openSession(id)).turns).toEqual([]);
  });

  it('Undo with files names a file changed from outside since and leaves it; Revert file puts one file back', async () => {
    const id = await sessionWithChanges();
    expect(await service.rewindPlan(id)).toMatchObject({ seq: 2, canRewindFiles: true, putBack: [{ path: 'b.txt', how: 'removed' }] });
    fs.writeFileSync(path.join(ws, 'b.txt'), 'bee, edited by hand\n');
    expect(await service.rewindPlan(id)).toMatchObject({ seq: 2, putBack: [], left: ['b.txt'] });
    expect(await service.undo(id, true)).toEqual({ restored: [], left: ['b.txt'], large: [] });
    expect(read('b.txt')).toBe('bee, edited by hand\n');
    const view = await service.revertFile(id, 'a.txt');
    expect(read('a.txt')).toBe(lines());
    expect(view.files.map((f) => f.path)).toEqual(['b.txt']);
    await expect(service.revertFile(id, '../outside.txt')).rejects.toThrow('was not changed by this session');
    // Without files, undo leaves the disk alone.
    expect(await service.undo(id)).toBeUndefined();
    expect(read('b.txt')).toBe('bee, edited by hand\n');
  });

  it('a session from before checkpoints: the view and the rewind dialog say its rewinds are conversation only', async () => {
    const id = await sessionWithChanges();
    await service.close();
    // As a session made before Keel recorded files: no shadow repository.
    fs.rmSync(checkpointsDir(path.join(dir, 'data'), id), { recursive: true, force: true });
    service = open();
    const view = await service.changes(id);
    expect(view.files).toEqual([]);
    expect(view.turns).toEqual([]);
    expect(view.unavailable).toMatch(/its files were not recorded .*Rewind the conversation only\./);
    const plan = await service.rewindPlan(id, 1);
    expect(plan).toMatchObject({ seq: 1, canRewindFiles: false, putBack: [] });
    expect(plan.unavailable).toMatch(/^Turn 1 cannot be rewound with files: its files were not recorded/);
    await expect(service.rewind(id, 1, true)).rejects.toThrow('Turn 1 cannot be rewound with files');
    expect(read('b.txt')).toBe('bee\n');
    expect((await service.openSession(id)).turns.map((t) => t.seq)).toEqual([1, 2]);
  });
});
