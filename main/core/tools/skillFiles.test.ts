import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSkill, readSkills } from './skillFiles.js';

let tmp: string;
let root: string;
let home: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-skills-')));
  root = path.join(tmp, 'ws');
  home = path.join(tmp, 'home');
  fs.mkdirSync(root);
  fs.mkdirSync(home);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(base: string, rel: string, text: string): string {
  const file = path.join(base, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

describe('parseSkill', () => {
  it('reads name, a folded description on one line, and the body after the front matter', () => {
    const skill = parseSkill('---\nname: pdf-forms\ndescription: >\n  Fill PDF forms.\n  Use for PDFs.\nallowed-tools: Read Bash\n---\n\n# Forms\n\nSee forms.md.\n', '/s/pdf-forms/SKILL.md');
    expect(skill).toEqual({ name: 'pdf-forms', description: 'Fill PDF forms. Use for PDFs.', body: '# Forms\n\nSee forms.md.', folder: '/s/pdf-forms', file: '/s/pdf-forms/SKILL.md' });
  });

  it('takes the folder\'s name where the front matter has none, as Claude Code does', () => {
    expect(parseSkill('---\ndescription: "Review a change."\n---\nLook.', '/s/review/SKILL.md').name).toBe('review');
  });

  it('refuses malformed front matter, naming the file and what is wrong', () => {
    const f = '/s/x/SKILL.md';
    expect(() => parseSkill('# Just text\n', f)).toThrow('/s/x/SKILL.md: it has no front matter (--- lines with name and description)');
    expect(() => parseSkill('---\nname: x\ndescription: y\n', f)).toThrow('/s/x/SKILL.md: it has no front matter');
    expect(() => parseSkill('---\nname: x\nthis is not yaml\ndescription: y\n---\n', f)).toThrow('/s/x/SKILL.md: line 3, in its front matter, is not key: value');
    expect(() => parseSkill('---\nname: Code_Review\ndescription: y\n---\n', f)).toThrow('/s/x/SKILL.md: its name "Code_Review" is not lowercase letters');
    expect(() => parseSkill('---\nname: a--b\ndescription: y\n---\n', f)).toThrow('its name "a--b"');
    expect(() => parseSkill(`---\nname: ${'a'.repeat(65)}\ndescription: y\n---\n`, f)).toThrow('is not lowercase letters');
    expect(() => parseSkill('---\nname: x\n---\nBody.', f)).toThrow('/s/x/SKILL.md: its front matter has no description');
    expect(() => parseSkill(`---\nname: x\ndescription: ${'d'.repeat(1025)}\n---\n`, f)).toThrow('/s/x/SKILL.md: its description has 1025 characters, over 1024');
  });
});

describe('readSkills', () => {
  it('finds the skills of both places in the workspace and the home folder; a folder without SKILL.md is a problem, not a skill', () => {
    write(root, '.claude/skills/review/SKILL.md', '---\nname: review\ndescription: Review a change.\n---\nRead the diff.');
    write(root, '.keel/skills/release/SKILL.md', '---\nname: release\ndescription: Cut a release.\n---\nTag it.');
    write(home, '.claude/skills/notes/SKILL.md', '---\nname: notes\ndescription: Keep notes.\n---\nWrite them.');
    write(root, '.claude/skills/empty/README.md', 'No skill here.');
    write(root, '.claude/skills/broken/SKILL.md', 'no front matter');
    write(root, '.claude/skills/loose-file.md', 'A file beside the folders is not a skill.');
    const { skills, problems } = readSkills(root, home);
    expect(skills.map((s) => s.name)).toEqual(['notes', 'release', 'review']);
    expect(skills.find((s) => s.name === 'notes')!.folder).toBe(path.join(home, '.claude/skills/notes'));
    expect(problems).toEqual([
      `${path.join(root, '.claude/skills/broken/SKILL.md')}: it has no front matter (--- lines with name and description)`,
      `${path.join(root, '.claude/skills/empty')}: it has no SKILL.md`,
    ]);
  });

  it('keeps the person\'s skill where the workspace has one of the same name, and Keel\'s place before Claude Code\'s', () => {
    write(root, '.claude/skills/review/SKILL.md', '---\nname: review\ndescription: The repository\'s.\n---\nRepo.');
    write(home, '.claude/skills/review/SKILL.md', '---\nname: review\ndescription: The person\'s.\n---\nMine.');
    write(root, '.keel/skills/lint/SKILL.md', '---\nname: lint\ndescription: Keel\'s place.\n---\nK.');
    write(root, '.claude/skills/lint/SKILL.md', '---\nname: lint\ndescription: Claude Code\'s place.\n---\nC.');
    const { skills, problems } = readSkills(root, home);
    expect(skills.map((s) => [s.name, s.description])).toEqual([['review', 'The person\'s.'], ['lint', 'Keel\'s place.']]);
    expect(problems).toEqual([]);
  });

  it('finds none where neither place exists, and reads a workspace that is the home folder once', () => {
    expect(readSkills(root, home)).toEqual({ skills: [], problems: [] });
    write(home, '.claude/skills/a/SKILL.md', '---\ndescription: A.\n---\n');
    expect(readSkills(home, home).skills.map((s) => s.name)).toEqual(['a']);
  });
});
