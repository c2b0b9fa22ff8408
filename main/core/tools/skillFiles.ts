import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fill, skillsConfig } from '../config.js';
import { scalar, splitFrontMatter } from '../frontMatter.js';

/**
 * A skill as the Agent Skills format (Claude Code's) writes one: a folder holding SKILL.md, whose
 * front matter has `name` and `description` and whose body is the instructions; the folder may
 * hold other files the body names. Other front matter keys (`allowed-tools`, `license`) are read
 * past: they grant nothing here, every call goes through the gate as always.
 */
export interface Skill {
  name: string;
  /** On one line: it is listed in the system prompt. */
  description: string;
  /** The instructions: SKILL.md after its front matter, trimmed. */
  body: string;
  /** The skill's folder and its SKILL.md, absolute. */
  folder: string;
  file: string;
}

export interface SkillsFound {
  skills: Skill[];
  /** A folder without SKILL.md, a SKILL.md that cannot be read as a skill: each named with what is wrong. */
  problems: string[];
}

const problems = skillsConfig.texts.problems;
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The skills of workspace `root`: the subfolders of each folder of loop.json `skills.folders`, in
 * the home folder first, then in the workspace. A name found again is the first one's, so the
 * person's own skill is never replaced by one a cloned repository brings under the same name.
 */
export function readSkills(root: string, home = os.homedir()): SkillsFound {
  const found = new Map<string, Skill>();
  const wrong: string[] = [];
  for (const base of [...new Set([home, root])]) {
    for (const place of skillsConfig.folders) {
      for (const folder of skillFolders(path.join(base, place))) {
        const file = path.join(folder, 'SKILL.md');
        let text: string;
        try {
          text = fs.readFileSync(file, 'utf8');
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          wrong.push(code === 'ENOENT' ? fill(problems.no_skill_md, { folder }) : fill(problems.unreadable, { file, error: code ?? (e as Error).message }));
          continue;
        }
        try {
          const skill = parseSkill(text, file);
          if (!found.has(skill.name)) found.set(skill.name, skill);
        } catch (e) {
          wrong.push((e as Error).message);
        }
      }
    }
  }
  return { skills: [...found.values()], problems: wrong };
}

/** The subfolders of `dir` (a link to a folder counts), sorted by name; none when it is not there. */
function skillFolders(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => !n.startsWith('.')).sort();
  } catch {
    return [];
  }
  return names.map((n) => path.join(dir, n)).filter((p) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true);
}

/**
 * One SKILL.md (`file`, absolute). The name is the front matter's, or the folder's when it has none
 * (as Claude Code does); a description is required, on one line, at most `skills.max_description`
 * characters. Throws an Error whose message is the problem, naming the file.
 */
export function parseSkill(text: string, file: string): Skill {
  const folder = path.dirname(file);
  const front = splitFrontMatter(text);
  if (!front) throw new Error(fill(problems.no_front_matter, { file }));
  if (front.stray.length > 0) throw new Error(fill(problems.stray, { file, line: front.stray[0] + 1 }));
  const name = scalar(front.fields.name) ?? path.basename(folder);
  if (!NAME.test(name) || name.length > 64) throw new Error(fill(problems.bad_name, { file, name }));
  const description = scalar(front.fields.description)?.replace(/\s+/g, ' ').trim();
  if (!description) throw new Error(fill(problems.no_description, { file }));
  if (description.length > skillsConfig.maxDescription) {
    throw new Error(fill(problems.long_description, { file, count: description.length, max: skillsConfig.maxDescription }));
  }
  return { name, description, body: front.body.trim(), folder, file };
}
