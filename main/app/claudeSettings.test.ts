/**
 * Claude Code's settings files in a workspace, end to end on the real parts: real files, the real
 * store, the session deps the app and CLI build (the OS sandbox runs the hooks), the approvals file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from '../core/session/session.js';
import { SqliteStore } from '../db/store.js';
import { sessionRules } from './hookSettings.js';
import { approveHooksFile, hooksView } from './hooksView.js';
import { buildSessionDeps } from './sessionDeps.js';

let tmp: string;
let data: string;
let root: string;
let store: SqliteStore;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-claude-settings-')));
  data = path.join(tmp, 'data');
  root = path.join(tmp, 'ws');
  fs.mkdirSync(data);
  fs.mkdirSync(path.join(root, '.claude'), { recursive: true });
  for (const name of ['a.txt', 'b.txt', 'c.txt']) fs.writeFileSync(path.join(root, name), 'one\n');
  store = new SqliteStore(path.join(data, 'keel.db'));
});

afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const shared = () => path.join(root, '.claude', 'settings.json');
const local = () => path.join(root, '.claude', 'settings.local.json');
const log = () => path.join(root, 'hook.log');
const logged = () => (fs.existsSync(log()) ? fs.readFileSync(log(), 'utf8') : '');

/** A PostToolUse hook in the shape of Claude Code's documentation, writing the tool's name into the workspace. */
const postToolUse = (tag: string) => ({
  PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: `grep -o '"tool_name":"[a-z_]*"' | sed 's/^/${tag} /' >> "$CLAUDE_PROJECT_DIR/hook.log"` }] }],
});
/** What a team commits: hooks, rules, and keys of Claude Code's that Keel does not use. */
const settings = (extra: object = {}) => JSON.stringify({
  $schema: 'https://json.schemastore.org/claude-code-settings.json',
  env: { NODE_ENV: 'test' }, model: 'claude-sonnet', statusLine: { type: 'command', command: 'echo hi' },
  permissions: { deny: ['Bash(rm:*)', 'WebFetch(domain:example.com)'], defaultMode: 'acceptEdits' },
  hooks: postToolUse('shared'),
  ...extra,
}, null, 2);

function open(): Session {
  const session = Session.create(buildSessionDeps({ store, dataFolder: data }), { root, kind: 'agent', mode: 'auto' });
  session.userMessage('go');
  return session;
}
const edit = (session: Session, to: string) => session.calls.run('edit', { path: 'a.txt', old_string: fs.readFileSync(path.join(root, 'a.txt'), 'utf8').trim(), new_string: to });
const run = async (session: Session, command: string) => (await session.calls.run('bash', { command })).text ?? '';
const fileView = (file: string) => hooksView(data, root).files.find((f) => f.file === file)!;

// Each test runs several hooks and commands in the OS sandbox: a busy machine needs more than the default 5 s.
describe("Claude Code's .claude/settings.json in a workspace", { timeout: 60_000 }, () => {
  it('runs its hooks and holds its rules only once the file is approved as it is now; any change stops them until approved again', async () => {
    fs.writeFileSync(shared(), settings());
    const session = open();

    // Before approval: the hook does not run, and the deny rule holds nothing back.
    await edit(session, 'two');
    expect(logged()).toBe('');
    await run(session, 'rm b.txt');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
    const waiting = fileView(shared());
    expect(waiting).toMatchObject({ source: 'workspace', approved: false, needsApproval: true, hooks: [{ event: 'PostToolUse', matcher: 'Edit|Write' }] });
    expect(waiting.rules).toEqual([
      { action: 'deny', written: 'Bash(rm:*)', keel: ['deny bash rm'] },
      { action: 'deny', written: 'WebFetch(domain:example.com)', keel: [], ignored: "Keel has no tool that Claude Code's WebFetch stands for" },
    ]);

    // Approved as shown: the hook runs in the sandbox, the deny rule refuses a matching call.
    approveHooksFile(data, shared(), waiting.hash);
    await edit(session, 'three');
    expect(logged()).toBe('shared "tool_name":"edit"\n');
    const refused = await run(session, 'rm c.txt');
    expect(refused).toContain('denied: the command "rm c.txt": rule: deny bash rm');
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(true);

    // A change to the file (here a hook that would write elsewhere) stops both until approved again.
    fs.writeFileSync(shared(), settings({ hooks: postToolUse('changed') }));
    expect(fileView(shared())).toMatchObject({ approved: false, needsApproval: true });
    await edit(session, 'four');
    expect(logged()).toBe('shared "tool_name":"edit"\n');
    expect(sessionRules(data)(root)).toEqual([]);
    await run(session, 'rm c.txt');
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
  });

  it('approves .claude/settings.local.json on its own: approving one file runs nothing of the other', async () => {
    fs.writeFileSync(shared(), settings());
    fs.writeFileSync(local(), JSON.stringify({ hooks: postToolUse('local'), permissions: { allow: ['Bash(npm run test:*)'] } }));
    expect(hooksView(data, root).files.map((f) => [f.file, f.needsApproval])).toEqual([[shared(), true], [local(), true]]);

    approveHooksFile(data, local(), fileView(local()).hash);
    expect(hooksView(data, root).files.map((f) => [f.file, f.approved])).toEqual([[shared(), false], [local(), true]]);
    const session = open();
    await edit(session, 'two');
    expect(logged()).toBe('local "tool_name":"edit"\n');
    expect(sessionRules(data)(root)).toEqual([{ action: 'allow', tool: 'bash', pattern: 'npm run test' }]);

    approveHooksFile(data, shared(), fileView(shared()).hash);
    await edit(session, 'three');
    // Keel's file first, then Claude Code's project file, then its local one: the order hooks run in.
    expect(logged()).toBe('local "tool_name":"edit"\nshared "tool_name":"edit"\nlocal "tool_name":"edit"\n');
  });

  it('refuses a malformed file whole, naming the file and the field: none of its hooks runs, none of its rules holds, it cannot be approved', async () => {
    fs.writeFileSync(shared(), settings({ permissions: { deny: 'Bash(rm:*)' } }));
    const view = fileView(shared());
    expect(view).toMatchObject({ approved: false, needsApproval: false, hooks: [], rules: [] });
    expect(view.problem).toMatch(new RegExp(`^${shared().replace(/[.]/g, '\\.')}: permissions\\.deny: .*; nothing in it was loaded\\.$`));
    expect(() => approveHooksFile(data, shared(), view.hash)).toThrow(view.problem);

    const session = open();
    await edit(session, 'two');
    expect(logged()).toBe('');
    expect(sessionRules(data)(root)).toEqual([]);

    fs.writeFileSync(shared(), JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command' }] }] }, permissions: { deny: ['Bash(rm:*)'] } }));
    expect(fileView(shared()).problem).toMatch(new RegExp(`^${shared().replace(/[.]/g, '\\.')}: hooks\\.PostToolUse\\[0\\]\\.hooks\\[0\\]\\.command: `));
  });

  it("keeps a file an approved Read deny names from read, and from the tools that walk folders (Claude Code's best effort)", async () => {
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=SECRET-123\n');
    fs.writeFileSync(path.join(root, 'notes.txt'), 'no TOKEN here\n');
    fs.writeFileSync(shared(), JSON.stringify({ permissions: { deny: ['Read(./.env)'] } }));
    const session = open();
    expect((await session.calls.run('grep', { pattern: 'TOKEN' })).text).toContain('SECRET-123');
    approveHooksFile(data, shared(), fileView(shared()).hash);
    const grep = (await session.calls.run('grep', { pattern: 'TOKEN' })).text ?? '';
    expect(grep).toContain('notes.txt');
    expect(grep).not.toContain('SECRET-123');
    expect((await session.calls.run('read', { path: '.env' })).text).toContain('rule: deny read .env');
  });

  it("uses the person's ~/.claude/settings.json as theirs, without approval", () => {
    const home = path.join(tmp, 'home');
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { ask: ['Edit(~/notes/**)'] }, hooks: postToolUse('mine') }));
    const [mine] = hooksView(data, root, home).files;
    expect(mine).toMatchObject({ source: 'person', file: path.join(home, '.claude', 'settings.json'), approved: true, needsApproval: false });
    expect(sessionRules(data, home)(root)).toContainEqual({ action: 'ask', tool: 'edit', pattern: path.join(home, 'notes/**') });
    expect(hooksView(data, root, home).places).toEqual([path.join(data, 'settings.json'), path.join(home, '.claude', 'settings.json'), path.join(root, '.keel', 'settings.json'), shared(), local()]);
  });
});
