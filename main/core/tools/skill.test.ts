import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteStore } from '../../db/store.js';
import { buildSystemPrompt, DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { Session, type SessionDeps } from '../session/session.js';
import { agentTools } from '../turn/agentFiles.js';
import { ToolRegistry } from './registry.js';

let tmp: string;
let root: string;
let store: SqliteStore;
let deps: SessionDeps;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-skill-')));
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  // The person's skills are read from ~/.keel/skills and ~/.claude/skills: a home of the test's own.
  fs.mkdirSync(path.join(tmp, 'home'));
  vi.stubEnv('HOME', path.join(tmp, 'home'));
  store = new SqliteStore(path.join(tmp, 'keel.db'));
  deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-12-06T10:00:00') };
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function write(base: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
  fs.writeFileSync(path.join(base, rel), text);
}

const REVIEW = '---\nname: review\ndescription: Review a change for bugs.\n---\n\nRead checklist.md, then the diff.\n';

describe('the skill tool in a session', () => {
  it('is not offered, and the prompt lists nothing, in a workspace without skills: both as before skills were read', () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    expect(s.tools.map((t) => t.name)).not.toContain('skill');
    expect(s.systemPrompt).toBe(buildSystemPrompt({ promptsDir: DEFAULT_PROMPTS_DIR, root, mode: 'auto', kind: 'agent' }).text);
    expect(s.systemPrompt).not.toContain('# Skills');
  });

  it('lists the skills by name and description in the prompt, sorted, and offers the tool last of the built-ins', () => {
    write(root, '.claude/skills/review/SKILL.md', REVIEW);
    write(path.join(tmp, 'home'), '.claude/skills/notes/SKILL.md', '---\nname: notes\ndescription: Keep notes.\n---\nWrite.');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    expect(s.tools.at(-1)!.name).toBe('skill');
    expect(s.tools.at(-1)!.description).toBe(fs.readFileSync(path.join(DEFAULT_PROMPTS_DIR, 'tools/skill.md'), 'utf8').trim());
    expect(s.systemPrompt.endsWith([
      '# Skills', '',
      'A skill is a set of instructions for one kind of task, kept in a folder with the files it names. When a task matches a skill\'s description, load the skill with the skill tool before you start, and follow it.', '',
      '- notes: Keep notes.', '- review: Review a change for bugs.', '',
    ].join('\n'))).toBe(true);
    // The instructions are not in the prompt: only loading puts them in front of the model.
    expect(s.systemPrompt).not.toContain('Read checklist.md');
  });

  it('loads a skill as a result; loaded again unchanged it is the same result; changed, it is loaded in full', async () => {
    write(root, '.claude/skills/review/SKILL.md', REVIEW);
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    const prompt = s.systemPromptForRequest();
    const folder = path.join(root, '.claude/skills/review');
    expect((await s.calls.run('skill', { name: 'review' })).text).toBe(
      `[#0001]\nSkill review, from ${folder}/SKILL.md. The files it names are in ${folder}: load one with this tool's file argument.\n\nRead checklist.md, then the diff.`);
    expect((await s.calls.run('skill', { name: 'review' })).text).toBe('[#0002] Same result as #0001.');
    write(root, '.claude/skills/review/SKILL.md', REVIEW.replace('the diff', 'the whole diff'));
    expect((await s.calls.run('skill', { name: 'review' })).text).toMatch(/^\[#0003\]\nSkill review[^]*then the whole diff\.$/);
    expect(s.systemPromptForRequest()).toBe(prompt);
    expect(s.systemPromptUnchanged()).toBe(true);
  });

  it('loads a file of the skill\'s folder, and refuses one outside it', async () => {
    write(root, '.claude/skills/review/SKILL.md', REVIEW);
    write(root, '.claude/skills/review/checklist.md', '- tests\n- names\n');
    write(root, 'secret.txt', 'no');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    const folder = path.join(root, '.claude/skills/review');
    expect((await s.calls.run('skill', { name: 'review', file: 'checklist.md' })).text).toBe(`[#0001]\n${folder}/checklist.md of the skill review:\n\n- tests\n- names`);
    expect((await s.calls.run('skill', { name: 'review', file: '../../../secret.txt' })).text)
      .toBe(`[#0002]\nError: ${path.join(root, 'secret.txt')} is outside the skill's folder ${folder}; nothing was read.`);
    expect((await s.calls.run('skill', { name: 'review', file: 'missing.md' })).text).toBe(`[#0003]\nError: ${folder}/missing.md does not exist.`);
  });

  it('answers an unknown name with the skills there are and what could not be read as one', async () => {
    write(root, '.claude/skills/review/SKILL.md', REVIEW);
    write(root, '.claude/skills/deploy/notes.md', 'no SKILL.md here');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    expect((await s.calls.run('skill', { name: 'deploy' })).text).toBe(
      `[#0001]\nError: there is no skill "deploy". Skills: review. Not read: ${path.join(root, '.claude/skills/deploy')}: it has no SKILL.md.`);
    fs.rmSync(path.join(root, '.claude'), { recursive: true });
    expect((await s.calls.run('skill', { name: 'review' })).text).toBe('[#0002]\nError: there is no skill "review"; no skill is there now.');
  });

  it('keeps its list for the session\'s life: a skill added later is not offered to a session that began without one', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    write(root, '.claude/skills/review/SKILL.md', REVIEW);
    expect((await s.calls.run('skill', { name: 'review' })).text).toMatch(/^\[#0001\]\nError: there is no tool "skill"\./);
    s.rebuildPrompt();
    expect(s.systemPrompt).not.toContain('# Skills');
    expect(Session.create(deps, { root, kind: 'agent', mode: 'auto' }).tools.map((t) => t.name)).toContain('skill');
  });

  it('is a general subagent\'s too where its parent has it, since the child\'s prompt is the parent\'s and lists the skills', () => {
    write(root, '.claude/skills/review/SKILL.md', REVIEW);
    const withSkills = Session.create(deps, { root, kind: 'agent', mode: 'auto' }).tools;
    expect(agentTools(withSkills, undefined).map((t) => t.name)).toEqual(['read', 'list', 'glob', 'grep', 'search', 'recall', 'skill']);
    fs.rmSync(path.join(root, '.claude'), { recursive: true });
    const without = Session.create(deps, { root, kind: 'agent', mode: 'auto' }).tools;
    expect(agentTools(without, undefined).map((t) => t.name)).toEqual(['read', 'list', 'glob', 'grep', 'search', 'recall']);
  });
});
