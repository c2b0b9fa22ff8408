import path from 'node:path';
import { z } from 'zod';
import { fill, skillsConfig } from '../config.js';
import { readTextFile } from '../workspace/files.js';
import { isInside, resolveReal } from '../workspace/paths.js';
import type { ToolAccess } from './access.js';
import { readSkills, type Skill } from './skillFiles.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';

const Args = z.strictObject({
  name: z.string().describe('The skill\'s name, as the system prompt lists it.'),
  file: z.string().describe('A file of the skill\'s folder, relative to it, as SKILL.md names it; SKILL.md itself when absent.').optional(),
});
type Args = z.infer<typeof Args>;

/** Reads the person's and the workspace's skill files, named by no argument: they are configuration, as the instruction files are. */
const READS_SKILLS: ToolAccess = { reads: true, writes: false, runs: false, network: false, paths: [] };

const texts = skillsConfig.texts;

/**
 * Loads a skill when the model uses it: its SKILL.md instructions under a line naming the file and
 * its folder, or a file of that folder. The skills are read again at each call (the result is the
 * skill as it is now); the system prompt, which lists them, is never touched, so loading one leaves
 * the prefix the server holds as it was. Hygiene takes the result as a listing's (loop.json
 * `context.dedupe.by_result`): loaded again unchanged, it is `Same result as #…`.
 */
export const skillTool: Tool<Args> = {
  name: 'skill',
  access: READS_SKILLS,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    const { skills, problems } = readSkills(ctx.root);
    const skill = skills.find((s) => s.name === args.name);
    if (!skill) throw new ToolError(unknown(args.name, skills, problems));
    if (args.file === undefined) {
      return { kind: 'text', body: withBody(fill(texts.loaded, { name: skill.name, file: skill.file, folder: skill.folder }), skill.body) };
    }
    const abs = resolveReal(path.resolve(skill.folder, args.file));
    const folder = resolveReal(skill.folder);
    if (!isInside(folder, abs)) throw new ToolError(fill(texts.outside, { path: abs, folder: skill.folder }));
    const body = readTextFile(abs).text;
    return { kind: 'text', body: withBody(fill(texts.file, { path: abs, name: skill.name }), body.replace(/\s+$/, '')) };
  },
};

/** The unknown-name error: the skills there are, and what could not be read as one (it may be the skill meant). */
function unknown(name: string, skills: readonly Skill[], problems: readonly string[]): string {
  const base = skills.length > 0 ? fill(texts.unknown, { name, list: skills.map((s) => s.name).sort().join(', ') }) : fill(texts.none, { name });
  return problems.length > 0 ? `${base} ${fill(texts.not_read, { problems: problems.join('; ') })}` : base;
}

function withBody(head: string, body: string): string {
  return body === '' ? head : `${head}\n\n${body}`;
}
