/**
 * The project files list on a real workspace, a real home folder and a real data folder (the
 * approvals file), each file read by the module a session reads it with.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpHub } from '../mcp/hub.js';
import { approveSettingsFile } from './hookSettings.js';
import { projectFiles } from './projectFiles.js';

let tmp: string;
let data: string;
let home: string;
let root: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-project-files-')));
  data = path.join(tmp, 'data');
  home = path.join(tmp, 'home');
  root = path.join(tmp, 'ws');
  for (const dir of [data, home, root]) fs.mkdirSync(dir);
});

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const hook = JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write' }] }] } });
const ws = (...parts: string[]) => path.join(root, ...parts);

describe('projectFiles', () => {
  it('lists one of each kind with its state: read, approved, waiting, or the problem that keeps it unused', () => {
    write(ws('AGENTS.md'), 'Use tabs.\n');
    write(ws('CLAUDE.md'), 'Run npm test.\n');
    write(path.join(home, '.claude', 'CLAUDE.md'), 'Answer briefly.\n');
    write(path.join(data, 'settings.json'), hook);
    write(ws('.claude', 'settings.json'), hook);
    write(ws('.claude', 'settings.local.json'), JSON.stringify({ permissions: { deny: ['Read(./.env)'] } }));
    approveSettingsFile(data, root, ws('.claude', 'settings.local.json'), undefined, home);
    write(ws('.mcp.json'), JSON.stringify({ mcpServers: { notes: { command: 'node', args: ['notes.mjs'] } } }));
    const hub = new McpHub({ root, dataFolder: data });
    const { file, hash } = hub.workspaceFile();
    hub.approvals.approve(file.file, hash);
    write(ws('.claude', 'commands', 'review.md'), '---\ndescription: Review a change\n---\nReview $ARGUMENTS.\n');
    write(ws('.claude', 'commands', 'broken.md'), '---\ndescription: never closed\nReview it.\n');
    write(ws('.claude', 'skills', 'lint', 'SKILL.md'), '---\nname: lint\ndescription: Lint the code\n---\nRun the linter.\n');
    fs.mkdirSync(ws('.claude', 'skills', 'empty'), { recursive: true });
    write(ws('.claude', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews\n---\nReview.\n');
    write(ws('.claude', 'agents', 'notes.md'), 'No front matter here.\n');

    const view = projectFiles(data, root, home);
    expect(view.workspace).toBe(root);
    expect(view.files.map(({ path: p, kind, source, state }) => ({ path: p, kind, source, state }))).toEqual([
      { path: ws('AGENTS.md'), kind: 'instructions', source: 'workspace', state: 'read' },
      { path: ws('CLAUDE.md'), kind: 'instructions', source: 'workspace', state: 'read' },
      { path: path.join(home, '.claude', 'CLAUDE.md'), kind: 'instructions', source: 'person', state: 'read' },
      { path: path.join(data, 'settings.json'), kind: 'settings', source: 'person', state: 'read' },
      { path: ws('.claude', 'settings.json'), kind: 'settings', source: 'workspace', state: 'waiting' },
      { path: ws('.claude', 'settings.local.json'), kind: 'settings', source: 'workspace', state: 'approved' },
      { path: ws('.mcp.json'), kind: 'mcp', source: 'workspace', state: 'approved' },
      { path: ws('.claude', 'commands', 'broken.md'), kind: 'command', source: 'workspace', state: 'problem' },
      { path: ws('.claude', 'commands', 'review.md'), kind: 'command', source: 'workspace', state: 'read' },
      { path: ws('.claude', 'skills', 'empty'), kind: 'skill', source: 'workspace', state: 'problem' },
      { path: ws('.claude', 'skills', 'lint', 'SKILL.md'), kind: 'skill', source: 'workspace', state: 'read' },
      { path: ws('.claude', 'agents', 'notes.md'), kind: 'agent', source: 'workspace', state: 'problem' },
      { path: ws('.claude', 'agents', 'reviewer.md'), kind: 'agent', source: 'workspace', state: 'read' },
    ]);
    const problem = (p: string) => view.files.find((f) => f.path === p)?.problem;
    expect(problem(ws('.claude', 'commands', 'broken.md'))).toBe('its front matter (--- on line 1) has no closing --- line');
    expect(problem(ws('.claude', 'skills', 'empty'))).toBe(`${ws('.claude', 'skills', 'empty')}: it has no SKILL.md`);
    expect(problem(ws('.claude', 'agents', 'notes.md'))).toContain('it has no front matter');
    expect(view.files.filter((f) => f.state !== 'problem').every((f) => f.problem === undefined)).toBe(true);
  });

  it('shows a changed approved file waiting again, a malformed settings file and a broken .mcp.json as problems, and a folder named CLAUDE.md as not read', () => {
    write(ws('.mcp.json'), JSON.stringify({ mcpServers: { notes: { command: 'node', args: ['notes.mjs'] } } }));
    const hub = new McpHub({ root, dataFolder: data });
    hub.approvals.approve(hub.workspaceFile().file.file, hub.workspaceFile().hash);
    write(ws('notes.mjs'), '// the server it runs changed: the approval covers it too\n');
    write(ws('.claude', 'settings.json'), '{"hooks": ');
    write(ws('.keel', 'settings.json'), JSON.stringify({ hooks: { PostToolUse: 'npm test' } }));
    fs.mkdirSync(ws('CLAUDE.md'));

    const rows = projectFiles(data, root, home).files;
    const row = (p: string) => rows.find((f) => f.path === p);
    expect(row(ws('.mcp.json'))).toMatchObject({ kind: 'mcp', state: 'waiting' });
    expect(row(ws('.claude', 'settings.json'))).toEqual({
      path: ws('.claude', 'settings.json'), kind: 'settings', source: 'workspace', state: 'problem',
      problem: `${ws('.claude', 'settings.json')} is not valid JSON; nothing in it was loaded.`,
    });
    expect(row(ws('.keel', 'settings.json'))).toMatchObject({ state: 'problem', problem: expect.stringContaining('PostToolUse') });
    expect(row(ws('CLAUDE.md'))).toMatchObject({ kind: 'instructions', state: 'problem', problem: `${ws('CLAUDE.md')} is not a regular file; it was not read.` });

    write(ws('.mcp.json'), '{"mcpServers": ');
    expect(projectFiles(data, root, home).files.find((f) => f.kind === 'mcp')).toMatchObject({
      path: ws('.mcp.json'), state: 'problem', problem: expect.stringContaining(`The MCP configuration ${ws('.mcp.json')}`),
    });
  });

  it('lists nothing for a workspace without project files, and reads only: no approvals file is written', () => {
    expect(projectFiles(data, root, home)).toEqual({ workspace: root, files: [] });
    expect(fs.readdirSync(data)).toEqual([]);
  });
});
