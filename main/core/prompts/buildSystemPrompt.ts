import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fill, mcpConfig, skillsConfig } from '../config.js';
import type { ServerInstructions } from '../tools/external.js';
import type { Skill } from '../tools/skillFiles.js';
import { sha256 } from '../hash.js';

/** The repository's prompts/ folder; the app passes its own (packaged) location instead. */
export const DEFAULT_PROMPTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../prompts');

/** The workspace's own instruction file: Keel's, and the one a session without others names. */
export const INSTRUCTIONS_FILE = 'AGENTS.md';

/** An instruction file as notes and the prompt name it (`path`), and where it is. */
export interface InstructionFile {
  path: string;
  absPath: string;
}

/**
 * The instruction files a session carries, in the prompt's order: the workspace's AGENTS.md, then
 * Claude Code's as it reads them (the workspace's CLAUDE.md and CLAUDE.local.md, the person's
 * ~/.claude/CLAUDE.md). Each follows spec §10.3: in the system prompt once, a later change as a note.
 */
export function instructionFiles(root: string, home = os.homedir()): InstructionFile[] {
  return [
    ...[INSTRUCTIONS_FILE, 'CLAUDE.md', 'CLAUDE.local.md'].map((name) => ({ path: name, absPath: path.join(root, name) })),
    { path: '~/.claude/CLAUDE.md', absPath: path.join(home, '.claude', 'CLAUDE.md') },
  ];
}

export function readPrompt(promptsDir: string, name: string): string {
  return fs.readFileSync(path.join(promptsDir, name), 'utf8').trim();
}

/** The body of `prompts/modes/NAME.md`: what the mode note says. */
export function modeText(promptsDir: string, mode: string): string {
  return readPrompt(promptsDir, `modes/${mode}.md`);
}

/** An instruction file as it is now: '' hash and body when there is none. */
export interface Instructions {
  path: string;
  hash: string;
  body: string;
}

/** Every instruction file of the workspace as it is now, in the prompt's order (absent ones with '' hash). */
export function readInstructions(root: string): Instructions[] {
  return instructionFiles(root).map(({ path: name, absPath }) => {
    try {
      const body = fs.readFileSync(absPath, 'utf8');
      return { path: name, hash: sha256(body), body: body.trim() };
    } catch {
      return { path: name, hash: '', body: '' };
    }
  });
}

/**
 * The instruction files' hashes as a session row keeps them (`promptInstructionsHash`): a JSON object
 * of the present files' paths and hashes. A row from before Claude Code's files were read holds
 * AGENTS.md's hash alone ('' when there was none).
 */
export function instructionHashes(kept: string): Record<string, string> {
  if (kept === '') return {};
  if (/^[0-9a-f]{64}$/.test(kept)) return { [INSTRUCTIONS_FILE]: kept };
  try {
    const parsed = JSON.parse(kept) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    // Unreadable: as if none had been told, so each file present is told again as a note.
    return {};
  }
}

export interface PromptInputs {
  promptsDir: string;
  root: string;
  mode: string;
  kind: 'agent' | 'chat';
  /** The instructions of the MCP servers connected when the prompt is built. */
  servers?: readonly ServerInstructions[];
  /** The skills the session's `skill` tool loads (none: no list, and the prompt is as it was before skills). */
  skills?: readonly Skill[];
}

/**
 * The system prompt, built once per session (and again only after compaction or a model switch).
 * Nothing in it is a clock: the date travels as a note. The mode appears only as its first line,
 * as it was when the prompt was built; changes arrive as notes.
 */
export function buildSystemPrompt({ promptsDir, root, mode, kind, servers = [], skills = [] }: PromptInputs): { text: string; instructionsHash: string } {
  const instructions = readInstructions(root).filter((i) => i.hash !== '');
  const parts = [
    readPrompt(promptsDir, `system-${kind}.md`).replaceAll('{{root}}', root),
    `Permission mode at the start: ${mode}. ${modeText(promptsDir, mode).split('\n')[0]}`,
    readPrompt(promptsDir, 'blocks/context.md'),
  ];
  for (const i of instructions) if (i.body) parts.push(`# Instructions from ${i.path}\n\n${i.body}`);
  if (skills.length > 0) parts.push(skillsBlock(skills));
  for (const s of [...servers].sort((a, b) => (a.server < b.server ? -1 : 1))) {
    parts.push(`${fill(mcpConfig.prompt_heading.value, { server: s.server })}\n\n${s.text.trim()}`);
  }
  const hashes = Object.fromEntries(instructions.map((i) => [i.path, i.hash]));
  return { text: parts.join('\n\n') + '\n', instructionsHash: instructions.length === 0 ? '' : JSON.stringify(hashes) };
}

/**
 * The skills as the system prompt lists them: by name and description, sorted by name (code-unit
 * order, so the text does not depend on the order folders were read in). Their instructions are not
 * here: the `skill` tool loads one when it is used, so using one never changes this text.
 */
export function skillsBlock(skills: readonly Skill[]): string {
  const byName = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const list = byName.map((s) => fill(skillsConfig.texts.prompt_item, { name: s.name, description: s.description })).join('\n');
  return fill(skillsConfig.texts.prompt, { list });
}

/** Each tool's description is prompts/tools/NAME.md. */
export function toolDescription(promptsDir: string, name: string): string {
  return readPrompt(promptsDir, `tools/${name}.md`);
}
