/**
 * Where a hook runs (issue 34), end to end on the real parts: real settings files, the session deps
 * the app and CLI build (the OS sandbox), the real store. The person's own hooks run as they would
 * run them themselves, so a formatter's cache or a log in their home folder works; a repository's
 * approved hooks run in the command sandbox and cannot write outside the workspace.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotTree } from '../../test/outsideTree.js';
import type { HookRun } from '../core/hooks/run.js';
import { Session } from '../core/session/session.js';
import { SqliteStore } from '../db/store.js';
import { approveSettingsFile, sessionHooks } from './hookSettings.js';
import { buildSessionDeps } from './sessionDeps.js';

let tmp: string;
let data: string;
let home: string;
let root: string;
let store: SqliteStore;
const savedBus = process.env.DBUS_SESSION_BUS_ADDRESS;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-hook-place-')));
  data = path.join(tmp, 'data');
  home = path.join(tmp, 'home');
  root = path.join(tmp, 'ws');
  for (const dir of [data, path.join(home, '.claude'), path.join(root, '.claude')]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  store = new SqliteStore(path.join(data, 'keel.db'));
  // What a desktop notifier needs from the person's environment, and the command sandbox never passes on.
  process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/run/user/1000/bus';
});

afterEach(() => {
  store.close();
  if (savedBus === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
  else process.env.DBUS_SESSION_BUS_ADDRESS = savedBus;
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The formatter's cache in the person's home folder, outside the workspace. */
const cacheLog = () => path.join(home, '.cache', 'fmt', 'hook.log');
/** A PostToolUse hook on Bash that keeps a log in the home folder, with what a notifier would read. */
const settings = () => JSON.stringify({
  hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `mkdir -p ${path.dirname(cacheLog())} && echo "$(jq -r .tool_name) bus=$DBUS_SESSION_BUS_ADDRESS" >> ${cacheLog()}` }] }] },
});

/**
 * What a tree holds: each entry's kind, a file's bytes, a folder's names. Not a folder's mtime: the
 * sandbox sets up its mounts in the workspace for every command, whether or not a hook runs.
 */
const contents = (dir: string) => Object.fromEntries(Object.entries(snapshotTree(dir)).map(([p, e]) => [p, { type: e.type, sha: e.sha, names: e.names }]));

/** Runs one read-only command in a session in `at`, its hooks read from the person's files in `data` and `home`; the hook runs it got. */
async function bashIn(at: string): Promise<HookRun[]> {
  const deps = { ...buildSessionDeps({ store, dataFolder: data }), hooks: sessionHooks(data, home) };
  const session = Session.create(deps, { root: at, kind: 'agent', mode: 'auto' });
  session.userMessage('go');
  return (await session.calls.run('bash', { command: 'true' })).hooks ?? [];
}

// Each test runs a command in the OS sandbox: a busy machine needs more than the default 5 s.
describe('where a hook runs', { timeout: 60_000 }, () => {
  it("runs the person's own hooks ($KEEL_HOME/settings.json) with their permissions: the log in their home folder is written", async () => {
    fs.writeFileSync(path.join(data, 'settings.json'), settings());
    const runs = await bashIn(root);
    expect(runs).toMatchObject([{ event: 'PostToolUse', file: path.join(data, 'settings.json'), exit: 0, stderr: '' }]);
    expect(fs.readFileSync(cacheLog(), 'utf8')).toBe('bash bus=unix:path=/run/user/1000/bus\n');
  });

  it("runs the person's ~/.claude/settings.json hooks the same way, also in a workspace at the home folder (the file is theirs, listed once)", async () => {
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), settings());
    expect(await bashIn(root)).toMatchObject([{ file: path.join(home, '.claude', 'settings.json'), exit: 0 }]);
    expect(await bashIn(home)).toMatchObject([{ file: path.join(home, '.claude', 'settings.json'), exit: 0 }]);
    expect(fs.readFileSync(cacheLog(), 'utf8')).toBe('bash bus=unix:path=/run/user/1000/bus\n'.repeat(2));
  });

  it("runs a repository's approved .claude/settings.json hook in the command sandbox: the same hook cannot write outside the workspace, and changes nothing", async () => {
    const file = path.join(root, '.claude', 'settings.json');
    fs.writeFileSync(file, settings());
    approveSettingsFile(data, root, file);
    const [homeBefore, workspaceBefore] = [contents(home), contents(root)];
    const runs = await bashIn(root);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ event: 'PostToolUse', file });
    // The sandbox refused the write: the hook failed, saying so, and the person is shown why.
    expect(runs[0].exit).not.toBe(0);
    expect(runs[0].stderr).toMatch(/Read-only file system|Permission denied/);
    expect(fs.existsSync(cacheLog())).toBe(false);
    expect([contents(home), contents(root)]).toEqual([homeBefore, workspaceBefore]);
  });
});
