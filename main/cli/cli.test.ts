import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session, type SessionDeps } from '../core/session/session.js';
import type { RequestRow } from '../core/state/types.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { databasePath, keelHome, stateFile } from '../keelHome.js';
import { ReplyPrinter } from './commands/printer.js';
import { recallResult } from './commands/recall.js';
import { showRequests } from './commands/requests.js';
import { listSessions } from './commands/sessions.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { localFlags } from './index.js';
import { CliError } from './io.js';
import { cli, cliTyped, collector, tempKeelHome } from '../../test/cliRun.js';

let tmp: string;
let root: string;
let store: SqliteStore;
let deps: SessionDeps;

beforeEach((ctx) => {
  tmp = tempKeelHome(ctx, 'keel-cli-');
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.ts'), 'one\ntwo\nthree\nfour\nfive\n');
  store = new SqliteStore(databasePath());
  deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-11-30T10:00:00') };
});

afterEach(() => {
  store.close();
});

/** A session with one completed turn: a read of a.ts (#0001) and a list (#0002). */
async function sessionWithResults(): Promise<Session> {
  const s = Session.create(deps, { root, kind: 'agent', mode: 'auto', title: 'Fix the parser', model: '/models/m.gguf' });
  await s.calls.run('read', { path: 'a.ts' });
  await s.calls.run('list', {});
  s.endReply();
  return s;
}

function request(sessionId: number, fields: Partial<RequestRow> = {}): Omit<RequestRow, 'id'> {
  return {
    sessionId, kind: 'turn', model: '/models/m.gguf', promptTokens: 1200, reusedTokens: 0, newTokens: 1200, outputTokens: 37,
    cachedBefore: 0, prefillMs: 812.4, generationMs: 95.6, systemSha: 'abcdef0123456789'.repeat(4), toolsSha: 'f'.repeat(64),
    createdAt: '2026-11-30T10:00:01.000Z', ...fields,
  };
}

describe('keelHome', () => {
  it('follows KEEL_HOME and creates it', () => {
    expect(keelHome()).toBe(path.join(tmp, 'home'));
    expect(databasePath()).toBe(path.join(tmp, 'home', 'keel.db'));
    expect(stateFile(7)).toBe(path.join(tmp, 'home', 'state', 'session-7.bin'));
    expect(fs.statSync(path.join(tmp, 'home', 'state')).isDirectory()).toBe(true);
  });
});

describe('a settings.json keel cannot read', () => {
  it('stops a command with one line naming the file and the field, exit 1, the file untouched', async () => {
    const file = path.join(tmp, 'home', 'settings.json');
    const text = JSON.stringify({ sandbox: { env: 'MYSQL_PWD' } });
    fs.writeFileSync(file, text);
    const r = await cli('exec', '--workspace', root, '--mode', 'auto', '--', 'ls');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^keel: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: "sandbox.env" `));
    expect(r.err).not.toContain('unexpected error');
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('keel sessions', () => {
  it('lists each session with its kind, workspace, model, title and turns', async () => {
    const s = await sessionWithResults();
    const out = collector();
    listSessions(store, out);
    const lines = out.text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+kind\s+workspace\s+model\s+title\s+turns\s+created$/);
    expect(lines[2]).toMatch(new RegExp(`^\\s*${s.id}\\s+agent\\s+${root}\\s+/models/m\\.gguf\\s+Fix the parser\\s+1\\s+2026-11-30 \\d\\d:\\d\\d$`));
    expect((await cli('sessions')).out).toBe(out.text);
  });

  it('says so when there are none', async () => {
    const r = await cli('sessions');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^No sessions yet in .*keel\.db/);
  });
});

describe('keel recall', () => {
  it('prints the stored body with its tool, arguments, path and hash first', async () => {
    const s = await sessionWithResults();
    const out = collector();
    recallResult(store, s.id, '#0001', {}, out);
    const row = store.getResult(s.id, 1)!;
    expect(out.text).toBe([
      `result #0001 of session ${s.id} (full)`,
      'tool: read',
      'arguments: {"path":"a.ts"}',
      `path: a.ts (${path.join(root, 'a.ts')})`,
      `sha: ${row.fileHash}`,
      'file lines: 1-5 of 5',
      '[recall #0001 lines 1-5 of 5]',
      '1: one', '2: two', '3: three', '4: four', '5: five',
      '',
    ].join('\n'));
    // The same result however the id is written; the listing has no path.
    const bare = collector();
    recallResult(store, s.id, '2', {}, bare);
    expect(bare.text).toContain('tool: list\narguments: {}\n[recall #0002 lines 1-');
    expect(bare.text).not.toContain('path:');
  });

  it('pages like the recall tool', async () => {
    const s = await sessionWithResults();
    const r = await cli('recall', String(s.id), '0001', '--offset', '2', '--limit', '2');
    expect(r.code).toBe(0);
    expect(r.out).toContain('[recall #0001 lines 2-3 of 5]\n2: two\n3: three\n(2 more lines from line 4: offset 4)\n');
    const past = await cli('recall', String(s.id), '1', '--offset', '9');
    expect(past.code).toBe(1);
    expect(past.err).toContain('--offset 9 is past the end of #0001, which has 5 lines.');
  });

  it('refuses an unknown result id, and an unknown session, with exit code 1', async () => {
    const s = await sessionWithResults();
    expect(() => recallResult(store, s.id, '#0099', {}, collector())).toThrow(CliError);
    const r = await cli('recall', String(s.id), '#0099');
    expect(r).toMatchObject({ code: 1, out: '' });
    expect(r.err).toBe(`keel: There is no stored result #0099 in session ${s.id}: its results are #0001 to #0002.\n`);
    expect((await cli('recall', String(s.id), 'zz')).err).toContain('There is no stored result #zz');
    const missing = await cli('recall', '42', '1');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`There is no session 42 in ${databasePath()}`);
  });
});

describe('keel requests', () => {
  it('prints each request with its cache figures, cause and system sha', async () => {
    const s = await sessionWithResults();
    store.insertRequest(request(s.id, { turn: 1, answers: 'person' }));
    store.insertRequest(request(s.id, { promptTokens: 1300, reusedTokens: 1237, newTokens: 63, firstDiff: 1237, cause: 'undo', cachedBefore: 1240, turn: 1, answers: 'results' }));
    store.insertRequest(request(s.id, { kind: 'compaction', turn: 1 }));
    const out = collector();
    showRequests(store, s.id, out);
    const lines = out.text.trimEnd().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual(['#', 'turn', 'kind', 'prompt', 'reused', 'new', 'output', 'prefill ms', 'gen ms', 'first diff', 'cause', 'system sha']);
    expect(lines[2].trim().split(/\s{2,}/)).toEqual(['1', '1', 'person', '1200', '0', '1200', '37', '812', '96', '-', '-', 'abcdef01']);
    expect(lines[3].trim().split(/\s{2,}/)).toEqual(['2', '1', 'tool step', '1300', '1237', '63', '37', '812', '96', '1237', 'undo', 'abcdef01']);
    expect(lines[4].trim().split(/\s{2,}/)[2]).toBe('summary');
    expect((await cli('requests', String(s.id))).out).toBe(out.text);
  });

  it('says when a session has made none', async () => {
    const s = await sessionWithResults();
    expect((await cli('requests', String(s.id))).out).toBe(`Session ${s.id} has made no requests yet.\n`);
  });
});

describe('bad input', { timeout: 30_000 }, () => {
  it('reports a corrupt database with its path and leaves it untouched', async () => {
    store.close();
    const file = databasePath();
    for (const extra of ['-wal', '-shm']) fs.rmSync(file + extra, { force: true });
    fs.writeFileSync(file, 'this is not a database, but it is somebody\'s file '.repeat(200));
    const before = fs.readFileSync(file);
    const r = await cli('sessions');
    expect(r.code).toBe(1);
    expect(r.err).toContain(`keel: Keel cannot use the database ${file}`);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    store = new SqliteStore(path.join(tmp, 'other.db')); // for afterEach
  });

  it('keel acp names a missing model file, or a wrong mode, in one line before it speaks ACP', async () => {
    const missing = await cli('acp', '--model', 'no/such/model.gguf');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`keel: The model file ${path.resolve('no/such/model.gguf')} does not exist.`);
    expect(missing.err).not.toContain('unexpected error');
    const mode = await cli('acp', '--mode', 'bogus');
    expect(mode.code).toBe(1);
    expect(mode.err).toBe('keel: --mode must be one of ask, accept-edits, plan, auto, not "bogus".\n');
  });

  it('names a missing model file by its absolute path and creates no session', async () => {
    const r = await cli('new', '--workspace', root, '--model', 'no/such/model.gguf');
    expect(r.code).toBe(1);
    expect(r.err).toBe(`keel: The model file ${path.resolve('no/such/model.gguf')} does not exist.\n`);
    expect(store.listSessions()).toEqual([]);
    expect((await cli('new', '--workspace', path.join(tmp, 'nope'), '--model', 'm.gguf')).err)
      .toBe(`keel: The workspace ${path.join(tmp, 'nope')} does not exist.\n`);
  });

  it('says "Loaded" only for a model that loaded: a README refused as no GGUF, a broken GGUF named, a good one with its progress', async () => {
    const readme = path.join(tmp, 'README.md');
    fs.writeFileSync(readme, '# Not a model\n');
    const r = await cli('new', '--workspace', root, '--model', readme);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`keel: The file ${readme} is not a GGUF model (it does not start with "GGUF").\n`);
    // A GGUF header and nothing after it: node-llama-cpp fails, and the bar never says "Loaded".
    const broken = path.join(tmp, 'broken.gguf');
    const header = Buffer.alloc(24);
    header.write('GGUF', 0, 'latin1');
    header.writeUInt32LE(3, 4); // version 3, no tensors, one metadata entry that is not there
    header.writeBigUInt64LE(1n, 16);
    fs.writeFileSync(broken, header);
    const b = await cli('new', '--workspace', root, '--model', broken);
    expect(b.code).toBe(1);
    expect(b.err).not.toContain('Loaded');
    expect(b.err).toMatch(new RegExp(`^Loading broken\\.gguf…\nkeel: Keel could not load the model ${broken.replace(/[.]/g, '\\.')}: `));
    expect(store.listSessions()).toEqual([]);
    const good = path.join(tmp, 'good.gguf');
    writeTestModel(good, { embedding: 256, layers: 8, heads: 4, ff: 512 });
    // `keel new` then reads messages: an input that ends at once ends the conversation.
    const g = await cliTyped([], 'new', '--workspace', root, '--model', good, '--threads', '1');
    expect(g.code).toBe(0);
    // Off a terminal: a line at the start, at each quarter node-llama-cpp reports, and "Loaded" at the end.
    const lines = g.err.split('\n').filter((l) => l.startsWith('Load'));
    expect(lines[0]).toBe('Loading good.gguf…');
    expect(lines).toContain('Loading good.gguf: 50%');
    expect(lines.at(-1)).toBe('Loaded good.gguf.');
  }, 120_000);

  it('refuses unknown commands, options, ids and values', async () => {
    expect(await cli('frobnicate')).toMatchObject({ code: 1, err: expect.stringContaining('Unknown command "frobnicate"') });
    expect(await cli('sessions', '--bogus')).toMatchObject({ code: 1, err: expect.stringContaining("Unknown option '--bogus'") });
    expect(await cli('requests', 'abc')).toMatchObject({ code: 1, err: expect.stringContaining('"abc" is not a session id') });
    expect(await cli('requests')).toMatchObject({ code: 1, err: expect.stringContaining('keel requests takes 1 argument') });
    expect(await cli('chat', '1', '--threads', '0')).toMatchObject({ code: 1, err: 'keel: --threads must be auto or a whole number from 1 to 1,024, not "0". See `keel --help`.\n' });
    expect(await cli('say', '1', 'hi', '--context', '32k')).toMatchObject({ code: 1, err: expect.stringContaining('--context must be auto or a whole number from 1 to 1,073,741,824, not "32k".') });
    expect(await cli('new', '--workspace', root, '--model', 'm.gguf', '--backend', 'cuda'))
      .toMatchObject({ code: 1, err: expect.stringContaining('--backend must be one of auto, cpu, not "cuda".') });
    expect(await cli('chat', '1', '--gpu-layers', 'many')).toMatchObject({ code: 1, err: expect.stringContaining('--gpu-layers must be auto or a whole number from 0 to 100,000, not "many".') });
    expect(await cli('doctor', '--kv-type', 'q5_1')).toMatchObject({ code: 1, err: expect.stringContaining('--kv-type must be one of auto, f16, q8_0, q4_0, not "q5_1".') });
    expect(await cli('doctor', 'a.gguf', 'b.gguf')).toMatchObject({ code: 1, err: expect.stringContaining('keel doctor takes 0 to 1 arguments, not "a.gguf" "b.gguf"') });
    expect(await cli('new', '--workspace', root, '--model', 'm.gguf', '--mode', 'yolo'))
      .toMatchObject({ code: 1, err: expect.stringContaining('--mode must be one of ask, accept-edits, plan, auto') });
    expect(await cli('chat', '9', '--model', 'm.gguf')).toMatchObject({ code: 1, err: expect.stringContaining('There is no session 9') });
  });

  it('prints the usage for --help', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('keel recall ID RESULT');
    expect((await cli('recall', '--help')).code).toBe(0);
    expect((await cli()).code).toBe(1);
  });
});

describe('local engine flags', () => {
  it('turns each flag into its setting, auto included', () => {
    expect(localFlags({ backend: 'cpu', 'gpu-layers': '0', context: 'auto', threads: '2', 'kv-type': 'q8_0' }))
      .toEqual({ backend: 'cpu', gpuLayers: 0, contextSize: 'auto', threads: 2, kvCacheType: 'q8_0' });
    expect(localFlags({ context: '4096' })).toEqual({ contextSize: 4096 });
    expect(localFlags({ 'flash-attention': 'off' })).toEqual({ flashAttention: 'off' });
    expect(localFlags({})).toEqual({});
  });
});

describe('keel doctor', { timeout: 60_000 }, () => {
  it('reports the machine and, for a model, the plan with its reasons, as text and as JSON', async () => {
    const model = path.join(tmp, 'tiny.gguf');
    writeTestModel(model, { contextLength: 4096 });
    const text = await cli('doctor', model, '--backend', 'cpu', '--threads', '1');
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^Machine\n {2}backend +CPU\n +The backend is set to CPU\.\n {2}devices +none\n/);
    expect(text.out).toContain(`\nModel ${model}\n`);
    expect(text.out).toMatch(/\n {2}context size +4,096 tokens per session, 4 sessions\n +The model's trained context \(4,096 tokens\) fits/);
    expect(text.out).toMatch(/\n {2}threads +1\n +Set to 1\.\n/);
    // Flash attention is llama.cpp's choice ('auto'), so speculation's 'auto' stays off, and says why.
    expect(text.out).toMatch(/\n {2}speculation +off\n +auto: off with flash attention, whose results depend on the batch size/);
    expect(text.out).toMatch(/\nCommands\n {2}sandbox +bubblewrap\n +Commands run in a bubblewrap sandbox\.\n$/);
    expect(text.out).toContain(`\nData ${path.join(tmp, 'home')}\n  checkpoints      0 B for 0 sessions\n`);

    const json = await cli('doctor', model, '--json', '--backend', 'cpu', '--context', '8192');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out);
    expect(report.settings).toMatchObject({ backend: 'cpu', contextSize: 8192 });
    expect(report.sandbox).toEqual({ kind: 'sandboxed', how: 'bubblewrap' });
    expect(report.data).toEqual({ folder: path.join(tmp, 'home'), checkpoints: { bytes: 0, sessions: 0 }, states: { bytes: 0 } });
    expect(report.machine).toMatchObject({ setting: 'cpu', backend: 'CPU', devices: [] });
    expect(report.model).toMatchObject({ path: model, trainContextSize: 4096, contextSize: { value: 4096 }, gpuLayers: { value: 0 } });
    expect(report.model.problem).toBe('A 8,192-token context is more than this model was trained for; it takes up to 4,096.');
    expect(json.err).toBe(`keel: ${report.model.problem}\n`);
  });

  it('with --measure, times the model here first, keeps the figures in the data folder, and plans threads from them', async () => {
    const model = path.join(tmp, 'measured.gguf');
    writeTestModel(model, { layers: 2, seed: 5 });
    const r = await cli('doctor', model, '--backend', 'cpu', '--measure');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(new RegExp(`^Measuring ${model}: decoding and prefill at each thread count, then batch sizes…\n {2}round 1 of 2, 1 thread: decoding [\\d.]+ ms a token, prefill [\\d,]+ tokens/s\n`));
    expect(r.err).toContain(`Kept in ${path.join(tmp, 'home', 'speed')}${path.sep}`);
    expect(r.out).toMatch(/\n {2}threads +\d+\n +Measured(: | for decoding: )decoding [\d.]+ ms a token/);
    expect(r.out).toMatch(/\n {2}batch size +[\d,]+ tokens\n/);
    expect((await cli('doctor', '--measure')).err).toContain('--measure needs a model file');
  });

  it("lists the workspace's project files with their state, where a waiting one is approved, and why a broken one is not used", async () => {
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    write('CLAUDE.md', 'Run npm test.\n');
    write('.claude/settings.json', JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write' }] }] } }));
    write('.claude/commands/broken.md', '---\ndescription: never closed\n');
    fs.mkdirSync(path.join(root, '.claude', 'skills', 'empty'), { recursive: true });

    const text = await cli('doctor', '--workspace', root, '--backend', 'cpu');
    expect(text.code).toBe(0);
    const section = text.out.slice(text.out.indexOf('\nProject files '), text.out.indexOf('\nCommands\n'));
    expect(section).toContain(`\nProject files ${root}\n  instructions     CLAUDE.md: read\n`);
    expect(section).toContain('  settings         .claude/settings.json: waiting for approval\n'
      + `                   nothing of it is used until you approve it: keel hooks approve --workspace ${path.join(root, '.claude', 'settings.json')}\n`);
    expect(section).toContain('  command          .claude/commands/broken.md: not used\n                   its front matter (--- on line 1) has no closing --- line\n');
    expect(section).toContain(`  skill            .claude/skills/empty: not used\n                   ${path.join(root, '.claude', 'skills', 'empty')}: it has no SKILL.md\n`);

    const json = JSON.parse((await cli('doctor', '--workspace', root, '--json', '--backend', 'cpu')).out);
    expect(json.projectFiles.workspace).toBe(root);
    expect(json.projectFiles.files.filter((f: { source: string }) => f.source === 'workspace').map((f: { kind: string; state: string }) => `${f.kind} ${f.state}`))
      .toEqual(['instructions read', 'settings waiting', 'command problem', 'skill problem']);
  });

  it('refuses a --workspace that is not a folder, naming it, and prints no report', async () => {
    const r = await cli('doctor', '--workspace', path.join(root, 'a.ts'));
    expect(r).toMatchObject({ code: 1, out: '', err: `keel: The workspace ${path.join(root, 'a.ts')} is not a folder.\n` });
  });

  it('names a model file that is missing', async () => {
    const r = await cli('doctor', 'no/such.gguf');
    expect(r).toMatchObject({ code: 1, err: `keel: The model file ${path.resolve('no/such.gguf')} does not exist.\n` });
  });
});

describe('the reply as shown', () => {
  it('streams text, shows each tool call with its result text exactly, then the cache figures', async () => {
    const s = await sessionWithResults();
    const result = await s.calls.run('read', { path: 'a.ts', limit: 1 });
    const out = collector();
    const printer = new ReplyPrinter(out, out);
    printer.event({ type: 'text', delta: 'Let me ' });
    printer.event({ type: 'text', delta: 'look.' });
    printer.event({ type: 'tool', name: 'read', args: { path: 'a.ts', limit: 1 }, result });
    printer.event({ type: 'request', request: { ...request(s.id), id: 1 } });
    printer.event({ type: 'request', request: { ...request(s.id, { reusedTokens: 1190, newTokens: 10, cause: 'undo' }), id: 2 } });
    printer.event({ type: 'text', delta: 'Done.' });
    printer.endReply();
    expect(out.text).toBe([
      'Let me look.',
      '── read {"path":"a.ts","limit":1}',
      result.text,
      'Done.',
      '[cache] turn: prompt 1200 tokens, reused 0, new 1200, prefill 812 ms',
      '[cache] turn: prompt 1200 tokens, reused 1190, new 10, prefill 812 ms (cause: undo)',
      '',
    ].join('\n'));
    expect(result.text).toMatch(/^\[#0003 a\.ts lines 1-1 of 5 sha [0-9a-f]{8}\]/);
  });
});
