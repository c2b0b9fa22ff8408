import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session } from '../core/session/session.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { databasePath } from '../keelHome.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { cliTyped, tempKeelHome } from '../../test/cliRun.js';

let tmp: string;
let root: string;
let model: string;

beforeEach((ctx) => {
  tmp = tempKeelHome(ctx, 'keel-chat-');
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  model = path.join(tmp, 'tiny.gguf');
  writeTestModel(model);
});

/** `keel new` on the generated model with these lines typed at its prompt. */
async function converse(lines: string[]) {
  return cliTyped(lines, 'new', '--workspace', root, '--model', model, '--mode', 'auto', '--threads', '1', '--context', '8192', '--max-tokens', '4');
}

describe('history and plan commands in `keel chat`', { timeout: 120_000 }, () => {
  it('/history, /rewind N, /edit N TEXT, /delete N and /plan act on the real session', async () => {
    const r = await converse([
      'Alpha message', 'Bravo message', 'Charlie message',
      '/history', '/rewind 2', '/history',
      '/edit 1 Alpha edited',
      '/delete 9', '/rewind two',
      '/plan add Write tests', '/plan add Ship', '/plan done 1', '/plan remove 2', '/plan edit 1 Write the tests', '/plan',
      '/plan done 5',
      'Delta message',
      '/edit 4',
      '/quit',
    ]);
    expect(r.err).not.toContain('unexpected error');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ {3}1 {2}Alpha message\n {3}2 {2}Bravo message\n {3}3 {2}Charlie message\n/);
    expect(r.out).toContain('Took back turns 2, 3 (0 results left the request; files on disk stay as they are).\nTurn 2 said: Bravo message\n   1  Alpha message\n');
    expect(r.out).toContain('Took back turn 1 (0 results left the request; files on disk stay as they are).\n');
    expect(r.err).toContain('There is no turn 9 in the history since the session began or was last compacted (they are 4).');
    expect(r.err).toContain('/rewind needs a turn number as /history lists them, not "two".');
    expect(r.out).toContain('Plan (the model hears of your change with your next message):\n1. [x] Write the tests\n');
    expect(r.err).toContain('/plan done needs a step number from 1 to 1, not "5".');
    // Without new text, /edit changes nothing and shows the line to send.
    expect(r.err).toContain('/edit needs the new text: /edit 4 Alpha edited');

    const store = new SqliteStore(databasePath());
    try {
      const s = Session.open({ store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() }, 1);
      expect(s.turns().map((t) => [t.seq, t.words])).toEqual([[4, 'Alpha edited'], [5, 'Delta message']]);
      expect(s.turns()[1].notes).toEqual([{ kind: 'plan', body: '1. [x] Write the tests' }]);
      expect(s.planNotePending).toBe(false);
      expect(store.listRequests(1).filter((q) => q.cause).map((q) => q.cause)).toEqual(['rewind']);
    } finally {
      store.close();
    }
  });

  it('says what a cache break costs before it is paid, and asks above the limit in settings.json', async () => {
    fs.mkdirSync(process.env.KEEL_HOME!, { recursive: true });
    fs.writeFileSync(path.join(process.env.KEEL_HOME!, 'settings.json'), JSON.stringify({ askAboveSeconds: 0 }));
    const r = await converse([
      'Alpha message', 'Bravo message', 'Charlie message',
      '/delete 1', 'n',
      '/undo',
      '/rewind 1', 'y',
      '/quit',
    ]);
    expect(r.err).not.toContain('unexpected error');
    // Deleting the first turn re-reads the one after it: priced, asked, refused, nothing changed.
    expect(r.out).toMatch(/\/delete re-reads [1-9]\d* tokens, about \d+(\.\d)? s on this machine\.\nThat is more than your limit of 0 s \(settings\.json askAboveSeconds\)\. Go on\? \[y\/N\] Nothing changed\.\n/);
    // Undo keeps every cached token before the last turn: nothing to re-read, nothing to ask.
    expect(r.out).toMatch(/\/undo re-reads 0 tokens, about 0\.0 s on this machine\.\nTook back the last turn\.\n/);
    expect(r.out).toMatch(/\/rewind re-reads \d+ tokens[^\n]*\n(That is more[^\n]*)?Took back turns? 1/);
    const store = new SqliteStore(databasePath());
    try {
      const s = Session.open({ store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() }, 1);
      expect(s.turns()).toEqual([]);
    } finally {
      store.close();
    }
  });
});

describe('custom slash commands in `keel chat`', { timeout: 120_000 }, () => {
  it('sends a command\'s prompt with its arguments, lists the commands in /help, refuses an unknown one, sends a path as typed', async () => {
    const home = path.join(tmp, 'person');
    const write = (file: string, text: string) => (fs.mkdirSync(path.dirname(file), { recursive: true }), fs.writeFileSync(file, text));
    write(path.join(root, '.claude/commands/review.md'), '---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS closely; start with $1.\n');
    write(path.join(root, '.claude/commands/undo.md'), 'Not Keel\'s undo.\n');
    write(path.join(root, '.claude/commands/bad.md'), '---\ndescription: never closed\n');
    write(path.join(home, '.claude/commands/mine.md'), '---\ndescription: My own\n---\nDo mine.\n');
    const savedHome = process.env.HOME;
    process.env.HOME = home;
    let r: Awaited<ReturnType<typeof converse>>;
    try {
      r = await converse(['/help', '/review src/a.ts', '/nope x', '/usr/bin/env is missing', '/mine', '/quit']);
    } finally {
      process.env.HOME = savedHome;
    }
    expect(r.err).not.toContain('unexpected error');
    expect(r.code).toBe(0);
    expect(r.out).toContain('  /review FILE         Review a file (project)\n');
    expect(r.out).toContain('  /mine                My own (personal)\n');
    expect(r.out).toContain(`  /undo                does not run: Keel's own /undo comes first (${path.join(root, '.claude/commands/undo.md')})\n`);
    expect(r.out).toContain(`  /bad                 does not run: ${path.join(root, '.claude/commands/bad.md')}: its front matter (--- on line 1) has no closing --- line\n`);
    expect(r.err).toContain('There is no command /nope. Commands here: /review, /undo, /mine. Nothing was sent. Keel\'s own commands: /help.');

    const store = new SqliteStore(databasePath());
    try {
      const s = Session.open({ store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() }, 1);
      expect(s.turns().map((t) => t.words)).toEqual(['Review src/a.ts closely; start with src/a.ts.', '/usr/bin/env is missing', 'Do mine.']);
    } finally {
      store.close();
    }
  });
});
