/**
 * Trust, 1: a sealed workspace. Every way out that a model could name — `../`, absolute paths, a
 * sibling whose name starts with the workspace's, symlinks (file, folder, dangling, chained,
 * relative, an ancestor of a path being created) — is refused through the real tools and through a
 * Session.calls.run, naming the absolute path, with nothing outside touched. Then 10,000 seeded
 * random paths go through resolveInWorkspace, read and write (and a Session for a share of them),
 * and the tree outside the workspace is compared byte for byte, mtime for mtime, before and after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Rng } from '../../../test/prng.js';
import { SqliteStore } from '../../db/store.js';
import type { ApprovalRequest } from '../permissions/approval.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { Session, type SessionDeps } from '../session/session.js';
import { applyPatchTool } from '../tools/applyPatch.js';
import { editTool } from '../tools/edit.js';
import { globTool } from '../tools/glob.js';
import { grepTool } from '../tools/grep.js';
import { listTool } from '../tools/list.js';
import { multieditTool } from '../tools/multiedit.js';
import { readTool } from '../tools/read.js';
import { ToolRegistry } from '../tools/registry.js';
import { makeContext } from '../../../test/toolContext.js';
import { ToolError, type Tool } from '../tools/types.js';
import { writeTool } from '../tools/write.js';
import { isInside, resolveInWorkspace } from '../workspace/paths.js';
import { snapshotTree, type TreeEntry } from '../../../test/outsideTree.js';

/** In every file outside the workspace; never in a tool's answer. */
const SENTINEL = 'KEEL-SENTINEL-7f3a9c';

/** The places: `base` holds the workspace `root` (base/proj), its sibling `sib` (base/proj-evil) and `out`. */
interface Env { base: string; root: string; sib: string; out: string; data: string }
let E: Env;
let storeDir: string;
let store: SqliteStore;

const TOOLS: Record<string, Tool> = {
  read: readTool as unknown as Tool, write: writeTool as unknown as Tool, edit: editTool as unknown as Tool,
  multiedit: multieditTool as unknown as Tool, apply_patch: applyPatchTool as unknown as Tool,
  list: listTool as unknown as Tool, glob: globTool as unknown as Tool, grep: grepTool as unknown as Tool,
};

function put(abs: string, content: string): void {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
}

/** The links inside the workspace, relative to it, and their targets (as stored). */
function links(e: Env): Record<string, string> {
  return {
    linkfile: path.join(e.out, 'secret.txt'),
    linkdir: e.out,
    dangling: path.join(e.out, 'missing.txt'),
    danglingdir: path.join(e.out, 'newdir'),
    rellink: '../outside/secret.txt',
    reldir: '../outside',
    siblink: '../proj-evil',
    chain: 'chain2',
    chain2: path.join(e.out, 'secret.txt'),
    'sub/deep': '../../outside/dir',
    loop: 'loop',
    inlink: 'sub',
    inlinkfile: 'sub/a.txt',
    viaout: '../outside/back',
    gitlink: '.git',
    datalink: '.keel-data',
  };
}

function buildTree(): Env {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-sealed-')));
  const e: Env = {
    base, root: path.join(base, 'proj'), sib: path.join(base, 'proj-evil'), out: path.join(base, 'outside'),
    data: path.join(base, 'proj', '.keel-data'),
  };
  put(path.join(e.out, 'secret.txt'), `${SENTINEL} outside secret\n`);
  put(path.join(e.out, 'dir', 'inner.txt'), `${SENTINEL} outside inner\n`);
  put(path.join(e.sib, 'secret.txt'), `${SENTINEL} sibling secret\n`);
  put(path.join(e.sib, 'sub', 'x.txt'), `${SENTINEL} sibling x\n`);
  put(path.join(e.root, 'inside.txt'), 'inside\n');
  put(path.join(e.root, 'sub', 'a.txt'), 'a\n');
  put(path.join(e.root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  put(path.join(e.root, '.git', 'config'), '[core]\n\tbare = false\n');
  put(path.join(e.data, 'keel.db'), 'not really a database\n');
  // A link from outside back in: following it lands inside, which is allowed.
  fs.symlinkSync(path.join(e.root, 'sub'), path.join(e.out, 'back'));
  for (const [rel, target] of Object.entries(links(e))) fs.symlinkSync(target, path.join(e.root, rel));
  return e;
}

/** The tree outside the workspace: everything under base but the workspace itself. */
const outsideNow = (): Record<string, TreeEntry> => snapshotTree(E.base, [E.root]);

function deps(permissions: SessionDeps['permissions'] = undefined): SessionDeps {
  return { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-11-30T10:00:00'), permissions };
}

/** A Session in auto mode with no one to approve: the gate lets ordinary writes through. */
const autoSession = (): Session => Session.create(deps(), { root: E.root, kind: 'agent', mode: 'auto' });

beforeAll(() => {
  storeDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-sealed-db-')));
  store = new SqliteStore(path.join(storeDir, 'keel.db'));
});
afterAll(() => {
  store.close();
  fs.rmSync(storeDir, { recursive: true, force: true });
});

interface Escape {
  name: string;
  tool: keyof typeof TOOLS;
  args: (e: Env) => Record<string, unknown>;
  /** The absolute path the refusal must name. */
  names: (e: Env) => string;
}

const patch = (oldName: string, newName: string, hunk: string): string => `--- ${oldName}\n+++ ${newName}\n${hunk}`;
const MODIFY_SECRET = `@@ -1 +1 @@\n-${SENTINEL} outside secret\n+pwned\n`;
const CREATE = '@@ -0,0 +1 @@\n+pwned\n';

const ESCAPES: Escape[] = [
  // ../ and absolute paths
  { name: 'read ../', tool: 'read', args: () => ({ path: '../outside/secret.txt' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'read ../ after a detour inside', tool: 'read', args: () => ({ path: 'sub/../../outside/secret.txt' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'read an absolute path', tool: 'read', args: (e) => ({ path: `${e.out}/secret.txt` }), names: (e) => `${e.out}/secret.txt` },
  { name: 'read an absolute path that starts at the root and climbs', tool: 'read', args: (e) => ({ path: `${e.root}/../outside/secret.txt` }), names: (e) => `${e.out}/secret.txt` },
  { name: 'read /etc/passwd', tool: 'read', args: () => ({ path: '/etc/passwd' }), names: () => fs.realpathSync('/etc/passwd') },
  { name: 'write ../', tool: 'write', args: () => ({ path: '../outside/new.txt', content: 'pwned\n' }), names: (e) => `${e.out}/new.txt` },
  { name: 'write an absolute path', tool: 'write', args: (e) => ({ path: `${e.out}/new.txt`, content: 'pwned\n' }), names: (e) => `${e.out}/new.txt` },
  { name: 'write far above the root', tool: 'write', args: () => ({ path: '../../../../../../../../keel-sealed-escape.txt', content: 'pwned\n' }), names: () => '/keel-sealed-escape.txt' },
  { name: 'edit ../', tool: 'edit', args: () => ({ path: '../outside/secret.txt', old_string: 'secret', new_string: 'pwned' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'multiedit an absolute path', tool: 'multiedit', args: (e) => ({ path: `${e.out}/secret.txt`, edits: [{ old_string: 'secret', new_string: 'pwned' }] }), names: (e) => `${e.out}/secret.txt` },
  { name: 'list ..', tool: 'list', args: () => ({ path: '..' }), names: (e) => e.base },
  { name: 'list /', tool: 'list', args: () => ({ path: '/' }), names: () => '/' },
  { name: 'glob in ..', tool: 'glob', args: () => ({ pattern: '**/*', path: '..' }), names: (e) => e.base },
  { name: 'grep in ../outside', tool: 'grep', args: () => ({ pattern: 'SENTINEL', path: '../outside' }), names: (e) => e.out },
  { name: 'apply_patch creating ../', tool: 'apply_patch', args: () => ({ patch: patch('/dev/null', 'b/../outside/created.txt', CREATE) }), names: (e) => `${e.out}/created.txt` },
  { name: 'apply_patch creating an absolute path', tool: 'apply_patch', args: (e) => ({ patch: patch('/dev/null', `${e.out}/created.txt`, CREATE) }), names: (e) => `${e.out}/created.txt` },
  { name: 'apply_patch modifying ../', tool: 'apply_patch', args: () => ({ patch: patch('a/../outside/secret.txt', 'b/../outside/secret.txt', MODIFY_SECRET) }), names: (e) => `${e.out}/secret.txt` },

  // The sibling whose name starts with the workspace's (a prefix check without the separator lets it in)
  { name: 'read the sibling by absolute path', tool: 'read', args: (e) => ({ path: `${e.sib}/secret.txt` }), names: (e) => `${e.sib}/secret.txt` },
  { name: 'read the sibling as root + "-evil"', tool: 'read', args: (e) => ({ path: `${e.root}-evil/secret.txt` }), names: (e) => `${e.sib}/secret.txt` },
  { name: 'read the sibling by ../', tool: 'read', args: () => ({ path: '../proj-evil/secret.txt' }), names: (e) => `${e.sib}/secret.txt` },
  { name: 'write into the sibling', tool: 'write', args: (e) => ({ path: `${e.root}-evil/new.txt`, content: 'pwned\n' }), names: (e) => `${e.sib}/new.txt` },
  { name: 'write the sibling folder itself as a file', tool: 'write', args: (e) => ({ path: `${e.root}-evil`, content: 'pwned\n' }), names: (e) => e.sib },
  { name: 'edit in the sibling', tool: 'edit', args: () => ({ path: '../proj-evil/sub/x.txt', old_string: 'x', new_string: 'y' }), names: (e) => `${e.sib}/sub/x.txt` },
  { name: 'list the sibling', tool: 'list', args: (e) => ({ path: `${e.root}-evil` }), names: (e) => e.sib },
  { name: 'glob in the sibling', tool: 'glob', args: (e) => ({ pattern: '**', path: `${e.root}-evil/` }), names: (e) => e.sib },
  { name: 'grep the sibling', tool: 'grep', args: (e) => ({ pattern: '.', path: `${e.root}-evil/secret.txt` }), names: (e) => `${e.sib}/secret.txt` },
  { name: 'apply_patch deleting in the sibling', tool: 'apply_patch', args: () => ({ patch: patch('a/../proj-evil/secret.txt', '/dev/null', `@@ -1 +0,0 @@\n-${SENTINEL} sibling secret\n`) }), names: (e) => `${e.sib}/secret.txt` },

  // A symlinked file pointing out (absolute, relative, chained)
  { name: 'read a symlinked file pointing out', tool: 'read', args: () => ({ path: 'linkfile' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'read a relative symlink pointing out', tool: 'read', args: () => ({ path: 'rellink' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'read a chain of symlinks pointing out', tool: 'read', args: () => ({ path: './chain' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'write over a symlinked file pointing out', tool: 'write', args: () => ({ path: 'linkfile', content: 'pwned\n' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'write over a chain of symlinks pointing out', tool: 'write', args: () => ({ path: 'chain', content: 'pwned\n' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'edit a symlinked file pointing out', tool: 'edit', args: () => ({ path: 'rellink', old_string: 'secret', new_string: 'pwned' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'multiedit a symlinked file pointing out', tool: 'multiedit', args: () => ({ path: 'linkfile', edits: [{ old_string: 'secret', new_string: 'pwned' }] }), names: (e) => `${e.out}/secret.txt` },
  { name: 'grep a symlinked file pointing out', tool: 'grep', args: () => ({ pattern: 'SENTINEL', path: 'linkfile' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'apply_patch modifying a symlinked file pointing out', tool: 'apply_patch', args: () => ({ patch: patch('a/linkfile', 'b/linkfile', MODIFY_SECRET) }), names: (e) => `${e.out}/secret.txt` },

  // A symlinked folder pointing out
  { name: 'read through a symlinked folder', tool: 'read', args: () => ({ path: 'linkdir/secret.txt' }), names: (e) => `${e.out}/secret.txt` },
  { name: 'read through a relative symlinked folder', tool: 'read', args: () => ({ path: 'reldir/dir/inner.txt' }), names: (e) => `${e.out}/dir/inner.txt` },
  { name: 'read through a symlinked folder deep inside', tool: 'read', args: () => ({ path: 'sub/deep/inner.txt' }), names: (e) => `${e.out}/dir/inner.txt` },
  { name: 'read the sibling through a symlinked folder', tool: 'read', args: () => ({ path: 'siblink/secret.txt' }), names: (e) => `${e.sib}/secret.txt` },
  { name: 'write through a symlinked folder', tool: 'write', args: () => ({ path: 'linkdir/new.txt', content: 'pwned\n' }), names: (e) => `${e.out}/new.txt` },
  { name: 'edit through a symlinked folder', tool: 'edit', args: () => ({ path: 'sub/deep/inner.txt', old_string: 'inner', new_string: 'pwned' }), names: (e) => `${e.out}/dir/inner.txt` },
  { name: 'list a symlinked folder', tool: 'list', args: () => ({ path: 'linkdir' }), names: (e) => e.out },
  { name: 'list a symlinked folder deep inside', tool: 'list', args: () => ({ path: 'sub/deep' }), names: (e) => `${e.out}/dir` },
  { name: 'glob in a symlinked folder', tool: 'glob', args: () => ({ pattern: '**/*', path: 'reldir' }), names: (e) => e.out },
  { name: 'grep in a symlinked folder', tool: 'grep', args: () => ({ pattern: 'SENTINEL', path: 'linkdir' }), names: (e) => e.out },
  { name: 'apply_patch creating through a symlinked folder', tool: 'apply_patch', args: () => ({ patch: patch('/dev/null', 'b/linkdir/created.txt', CREATE) }), names: (e) => `${e.out}/created.txt` },

  // A dangling symlink pointing out: the file would be created there
  { name: 'read a dangling symlink pointing out', tool: 'read', args: () => ({ path: 'dangling' }), names: (e) => `${e.out}/missing.txt` },
  { name: 'write a dangling symlink pointing out', tool: 'write', args: () => ({ path: 'dangling', content: 'pwned\n' }), names: (e) => `${e.out}/missing.txt` },
  { name: 'apply_patch creating a dangling symlink pointing out', tool: 'apply_patch', args: () => ({ patch: patch('/dev/null', 'b/dangling', CREATE) }), names: (e) => `${e.out}/missing.txt` },

  // A symlinked ancestor of a path being created (its folders would be made outside)
  { name: 'write linkdir/new/file.txt', tool: 'write', args: () => ({ path: 'linkdir/new/file.txt', content: 'pwned\n' }), names: (e) => `${e.out}/new/file.txt` },
  { name: 'write under a dangling symlinked folder', tool: 'write', args: () => ({ path: 'danglingdir/deeper/file.txt', content: 'pwned\n' }), names: (e) => `${e.out}/newdir/deeper/file.txt` },
  { name: 'write under a symlinked folder deep inside', tool: 'write', args: () => ({ path: 'sub/deep/x/y/z.txt', content: 'pwned\n' }), names: (e) => `${e.out}/dir/x/y/z.txt` },
  { name: 'apply_patch creating linkdir/new/file.txt', tool: 'apply_patch', args: () => ({ patch: patch('/dev/null', 'b/linkdir/new/file.txt', CREATE) }), names: (e) => `${e.out}/new/file.txt` },
  {
    name: 'apply_patch with one file inside and one outside changes neither',
    tool: 'apply_patch',
    args: () => ({ patch: patch('/dev/null', 'b/fresh-inside.txt', CREATE) + patch('/dev/null', 'b/linkdir/new/file.txt', CREATE) }),
    names: (e) => `${e.out}/new/file.txt`,
  },
];

describe('a sealed workspace: every way out is refused, naming the absolute path', () => {
  let before: Record<string, TreeEntry>;
  let insideBefore: Record<string, TreeEntry>;

  beforeEach(() => {
    E = buildTree();
    before = outsideNow();
    insideBefore = snapshotTree(E.root);
  });
  afterEach(() => {
    fs.rmSync(E.base, { recursive: true, force: true });
  });

  const unchanged = (): void => {
    expect(outsideNow()).toEqual(before);
    // Refused calls change nothing inside either (apply_patch is all or nothing).
    expect(snapshotTree(E.root)).toEqual(insideBefore);
    expect(fs.existsSync('/keel-sealed-escape.txt')).toBe(false);
  };

  it.each(ESCAPES)('$name (tool)', async (c) => {
    const named = c.names(E);
    const err = await TOOLS[c.tool].run(c.args(E), makeContext(E.root)).then(
      (out) => new Error(`not refused: ${JSON.stringify(out)}`),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toContain(`${named} is outside the workspace ${E.root}`);
    expect((err as Error).message).not.toContain(SENTINEL);
    unchanged();
  });

  it.each(ESCAPES)('$name (Session.calls.run)', async (c) => {
    const named = c.names(E);
    const s = autoSession();
    const inserted = await s.calls.run(c.tool, c.args(E));
    expect(inserted.kind).toBe('error');
    expect(inserted.text).toContain(`${named} is outside the workspace ${E.root}`);
    expect(inserted.text).not.toContain(SENTINEL);
    expect(store.getResult(s.id, inserted.number)?.inserted).toBe(inserted.text);
    unchanged();
  });

  it('lets a link that stays inside (or leaves and comes back) through: the controls', async () => {
    const ctx = makeContext(E.root);
    const viaInside = await readTool.run({ path: 'inlink/a.txt' }, ctx);
    expect(viaInside).toMatchObject({ kind: 'read', absPath: `${E.root}/sub/a.txt`, lines: ['a'] });
    expect(await readTool.run({ path: 'inlinkfile' }, ctx)).toMatchObject({ absPath: `${E.root}/sub/a.txt` });
    // viaout → outside/back → root/sub: the identity is inside.
    expect(await readTool.run({ path: 'viaout/a.txt' }, ctx)).toMatchObject({ absPath: `${E.root}/sub/a.txt` });
    const wrote = await writeTool.run({ path: 'inlink/new.txt', content: 'fine\n' }, ctx);
    expect(wrote).toMatchObject({ kind: 'change', files: [{ absPath: `${E.root}/sub/new.txt`, action: 'created' }] });
    expect(fs.readFileSync(`${E.root}/sub/new.txt`, 'utf8')).toBe('fine\n');
    expect(outsideNow()).toEqual(before);
  });

  it('walks and listings leave out what points outside, and never show its content', async () => {
    const ctx = makeContext(E.root);
    const bodies: string[] = [];
    for (const [tool, args] of [
      [listTool, { path: '.' }], [listTool, { path: 'sub' }], [globTool, { pattern: '**/*' }], [globTool, { pattern: '../**' }],
      [globTool, { pattern: '**', path: 'sub' }], [grepTool, { pattern: 'SENTINEL' }], [grepTool, { pattern: '.', include: '../**' }],
    ] as const) {
      const out = await (tool as unknown as Tool).run(args, ctx);
      if (out.kind !== 'text') throw new Error(`expected text, got ${JSON.stringify(out)}`);
      bodies.push(out.body);
    }
    const all = bodies.join('\n');
    expect(all).not.toContain(SENTINEL);
    expect(all).not.toContain(E.out);
    expect(all).not.toContain(E.sib);
    const shown = all.split('\n').filter((l) => l.startsWith('/')).map((l) => l.replace(/:\d+: .*$/, '').replace(/\/$/, ''));
    for (const name of ['linkfile', 'linkdir', 'dangling', 'danglingdir', 'rellink', 'reldir', 'siblink', 'chain', 'chain2', 'sub/deep', 'loop']) {
      expect(shown).not.toContain(`${E.root}/${name}`);
    }
    expect(shown).toContain(`${E.root}/inlink`);
    expect(outsideNow()).toEqual(before);
  });

  it('refuses a symlink loop naming it, and a NUL or empty path, touching nothing', async () => {
    const ctx = makeContext(E.root);
    await expect(readTool.run({ path: 'loop' }, ctx)).rejects.toThrow(`${E.root}/loop`);
    await expect(writeTool.run({ path: 'loop', content: 'x' }, ctx)).rejects.toThrow(ToolError);
    await expect(writeTool.run({ path: 'a\0b', content: 'x' }, ctx)).rejects.toThrow(/NUL/);
    await expect(readTool.run({ path: '' }, ctx)).rejects.toThrow(/empty/);
    unchanged();
  });
});

describe(".git internals and Keel's own data folder are never written without asking", () => {
  let asked: ApprovalRequest[];

  beforeEach(() => {
    E = buildTree();
    asked = [];
  });
  afterEach(() => {
    fs.rmSync(E.base, { recursive: true, force: true });
  });

  const GUARDED: { name: string; tool: string; args: Record<string, unknown>; target: (e: Env) => string }[] = [
    { name: 'write .git/config', tool: 'write', args: { path: '.git/config', content: '[core]\n\thooksPath = /tmp\n' }, target: (e) => `${e.root}/.git/config` },
    { name: 'write a hook through a symlink to .git', tool: 'write', args: { path: 'gitlink/hooks/pre-commit', content: '#!/bin/sh\n' }, target: (e) => `${e.root}/.git/hooks/pre-commit` },
    { name: 'edit .git/HEAD after a detour', tool: 'edit', args: { path: 'sub/../.git/HEAD', old_string: 'main', new_string: 'evil' }, target: (e) => `${e.root}/.git/HEAD` },
    { name: 'apply_patch creating a hook', tool: 'apply_patch', args: { patch: patch('/dev/null', 'b/.git/hooks/post-checkout', CREATE) }, target: (e) => `${e.root}/.git/hooks/post-checkout` },
    { name: "write Keel's database", tool: 'write', args: { path: '.keel-data/keel.db', content: 'x' }, target: (e) => `${e.data}/keel.db` },
    { name: "write into Keel's data folder through a symlink", tool: 'write', args: { path: 'datalink/settings.json', content: '{}' }, target: (e) => `${e.data}/settings.json` },
  ];

  const guardedSession = (approve?: 'allow' | 'deny'): Session => Session.create(
    deps({
      protectedFolders: [E.data],
      approve: approve && (async (r) => { asked.push(r); return approve; }),
    }),
    { root: E.root, kind: 'agent', mode: 'auto' },
  );

  it.each(GUARDED)('$name: refused in auto mode when no one can approve, nothing changed', async (c) => {
    const inside = snapshotTree(E.root);
    const inserted = await guardedSession().calls.run(c.tool, c.args);
    expect(inserted.kind).toBe('error');
    expect(inserted.text).toContain(c.target(E));
    expect(inserted.text).toMatch(/needs the person's approval/);
    expect(snapshotTree(E.root)).toEqual(inside);
  });

  it.each(GUARDED)('$name: asked with the resolved path; a deny changes nothing, an allow writes', async (c) => {
    const inside = snapshotTree(E.root);
    const denied = await guardedSession('deny').calls.run(c.tool, c.args);
    expect(denied.kind).toBe('error');
    expect(asked.map((r) => r.paths)).toEqual([[c.target(E)]]);
    expect(snapshotTree(E.root)).toEqual(inside);
    const allowed = await guardedSession('allow').calls.run(c.tool, c.args);
    expect(allowed.kind).toBe('change');
  });

  it.each([
    { name: 'cp into .git/hooks', command: 'cp /dev/null .git/hooks/pre-commit', target: (e: Env) => `${e.root}/.git` },
    { name: 'rm -rf .git', command: 'rm -rf .git', target: (e: Env) => `${e.root}/.git` },
    { name: "rm -rf Keel's data folder", command: '', target: (e: Env) => e.data },
  ])('bash in auto mode: $name asks first, and nothing runs when no one can approve', async (c) => {
    const inside = snapshotTree(E.root);
    const command = c.command || `rm -rf ${E.data}`;
    const inserted = await guardedSession().calls.run('bash', { command });
    expect(inserted.text).toMatch(/needs the person's approval/);
    expect(fs.existsSync(c.target(E))).toBe(true);
    expect(snapshotTree(E.root)).toEqual(inside);
  });
});

/**
 * 10,000 seeded random paths: mixtures of `..`, `.`, empty parts, `/`, symlink names, unicode and
 * look-alikes, long names, absolute prefixes and the sibling prefix.
 */
function randomPath(rng: Rng, e: Env): string {
  const LINKS = Object.keys(links(e)).flatMap((l) => l.split('/'));
  const PLAIN = ['sub', 'a.txt', 'inside.txt', 'new', 'n.txt', 'outside', 'proj', 'proj-evil', 'secret.txt', 'dir', 'inner.txt', 'missing.txt', 'back', '.git', 'HEAD'];
  const ODD = [
    'ünïcødé', '日本語.txt', '😀', 'e\u0301', '\u00e9', 'Ω≈ç√', '\u202eevil', 'a\u200bb', '..\u200b', '\uff0e\uff0e', 'a\uff0fb',
    '\\..\\', '..\\..', '%2e%2e', '%2f', ' ..', '.. ', '...', '....', '~', '$HOME', 'a\nb', '-rf', '*', '?', '[a]', ':', 'a b',
  ];
  const part = (): string => {
    switch (rng.weighted({ dotdot: 6, dot: 2, empty: 1, link: 5, plain: 4, odd: 3, long: 1, nul: 0.05 })) {
      case 'dotdot': return '..';
      case 'dot': return '.';
      case 'empty': return '';
      case 'link': return rng.pick(LINKS);
      case 'plain': return rng.pick(PLAIN);
      case 'odd': return rng.pick(ODD);
      case 'long': return rng.pick(['L', 'é', '😀', 'ab.']).repeat(rng.int(60, 300));
      default: return 'a\0b';
    }
  };
  const parts = Array.from({ length: rng.int(1, rng.chance(0.05) ? 120 : 8) }, part);
  const prefix = rng.pick(['', '', '', '', '', '', e.root, e.root + '/', e.base, e.sib, e.out, `${e.root}-evil`, `/..${e.base}`, `/./${e.root}`]);
  const joined = parts.join(rng.chance(0.1) ? '//' : '/') + (rng.chance(0.1) ? '/' : '');
  return prefix === '' ? joined : `${prefix}/${joined}`;
}

/** Whether the nearest existing ancestor of `abs`, resolved by the system, lies inside `root`. */
function realAncestorInside(root: string, abs: string): boolean {
  for (let p = abs; ; p = path.dirname(p)) {
    let exists = false;
    try {
      fs.lstatSync(p);
      exists = true;
    } catch {
      // keep climbing
    }
    if (exists) return isInside(root, fs.realpathSync.native(p));
    if (path.dirname(p) === p) return false;
  }
}

describe('random paths never leave the workspace', () => {
  beforeEach(() => {
    E = buildTree();
  });
  afterEach(() => {
    fs.rmSync(E.base, { recursive: true, force: true });
  });

  it('10,000 seeded paths through resolveInWorkspace, read and write (and a Session for every 25th)', async () => {
    const COUNT = Number(process.env.KEEL_SEALED_PATHS ?? 10_000);
    const rng = new Rng(Number(process.env.KEEL_SEALED_SEED ?? 0x5ea1ed));
    const before = outsideNow();
    const ctx = makeContext(E.root);
    const session = autoSession();
    const problems: string[] = [];
    const figures = { accepted: 0, refusedOutside: 0, refusedOther: 0, read: 0, written: 0, sessionCalls: 0 };
    const problem = (p: string, what: string) => {
      if (problems.length < 30) problems.push(`${JSON.stringify(p)}: ${what}`);
    };

    for (let i = 0; i < COUNT; i++) {
      const p = randomPath(rng, E);
      // A path lexically outside base that is not there now must not be there afterwards.
      const lexical = path.resolve(E.root, p.replace(/\0/g, ''));
      const watch = !isInside(E.base, lexical) && !fs.existsSync(lexical) ? lexical : undefined;

      let resolved: string | undefined;
      try {
        resolved = resolveInWorkspace(E.root, p);
      } catch (err) {
        if (!(err instanceof ToolError)) problem(p, `resolveInWorkspace threw ${String(err)}`);
        else if (/is outside the workspace/.test(err.message)) {
          figures.refusedOutside++;
          if (!/^Error: \//.test(err.message)) problem(p, `refusal names no absolute path: ${err.message}`);
        } else figures.refusedOther++;
      }
      if (resolved !== undefined) {
        figures.accepted++;
        if (!isInside(E.root, resolved)) problem(p, `resolved outside: ${resolved}`);
        if (!realAncestorInside(E.root, resolved)) problem(p, `resolved ${resolved}, whose real ancestor is outside`);
        let isLink = false;
        try {
          isLink = fs.lstatSync(resolved).isSymbolicLink();
        } catch {
          // not there yet
        }
        if (isLink) problem(p, `resolved to a symlink: ${resolved}`);
      }
      // Never go on to the tools with a path that resolved outside: the test has already failed.
      if (problems.length > 0) break;

      try {
        const out = await readTool.run({ path: p }, ctx);
        figures.read++;
        if (out.kind !== 'read' || !isInside(E.root, out.absPath)) problem(p, `read outside: ${JSON.stringify(out).slice(0, 200)}`);
        if (JSON.stringify(out).includes(SENTINEL)) problem(p, 'read showed an outside file');
      } catch (err) {
        if (!(err instanceof ToolError)) problem(p, `read threw ${String(err)}`);
        else if (err.message.includes(SENTINEL)) problem(p, 'a read error showed an outside file');
      }
      try {
        const out = await writeTool.run({ path: p, content: `random write ${i}\n` }, ctx);
        figures.written++;
        const file = out.kind === 'change' ? out.files[0] : undefined;
        if (!file || !isInside(E.root, file.absPath)) problem(p, `wrote outside: ${JSON.stringify(out).slice(0, 200)}`);
        else if (fs.readFileSync(file.absPath, 'utf8') !== `random write ${i}\n`) problem(p, `${file.absPath} does not hold what was written`);
        if (JSON.stringify(out).includes(SENTINEL)) problem(p, 'a write showed an outside file');
      } catch (err) {
        if (!(err instanceof ToolError)) problem(p, `write threw ${String(err)}`);
      }
      if (i % 25 === 0) {
        for (const [tool, args] of [['read', { path: p }], ['write', { path: p, content: `session write ${i}\n` }], ['list', { path: p }]] as const) {
          const inserted = await session.calls.run(tool, args);
          figures.sessionCalls++;
          if (inserted.text.includes(SENTINEL)) problem(p, `session ${tool} showed an outside file`);
          for (const f of inserted.wrote ?? []) if (!isInside(E.root, f.absPath)) problem(p, `session wrote outside: ${f.absPath}`);
        }
      }
      if (watch && fs.existsSync(watch)) problem(p, `created ${watch}`);
      if (problems.length > 0) break;
    }

    expect(problems, JSON.stringify(figures)).toEqual([]);
    expect(outsideNow()).toEqual(before);
    // Both sides were exercised in earnest.
    expect(figures.accepted).toBeGreaterThan(COUNT / 10);
    expect(figures.refusedOutside).toBeGreaterThan(COUNT / 10);
    expect(figures.written).toBeGreaterThan(COUNT / 20);
  }, 240_000);
});
