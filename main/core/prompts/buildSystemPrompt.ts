import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fill, mcpConfig } from '../config.js';
import type { ServerInstructions } from '../tools/external.js';
import { sha256 } from '../hash.js';

/** The repository's prompts/ folder; the app passes its own (packaged) location instead. */
export const DEFAULT_PROMPTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../prompts');

export const INSTRUCTIONS_FILE = 'AGENTS.md';

export function readPrompt(promptsDir: string, name: string): string {
  return fs.readFileSync(path.join(promptsDir, name), 'utf8').trim();
}

/** The body of `prompts/modes/NAME.md`: what the mode note says. */
export function modeText(promptsDir: string, mode: string): string {
  return readPrompt(promptsDir, `modes/${mode}.md`);
}

/** The workspace's instruction file as it is now: '' hash when there is none. */
export function readInstructions(root: string): { path: string; hash: string; body: string } {
  const file = path.join(root, INSTRUCTIONS_FILE);
  try {
    const body = fs.readFileSync(file, 'utf8');
    return { path: INSTRUCTIONS_FILE, hash: sha256(body), body: body.trim() };
  } catch {
    return { path: INSTRUCTIONS_FILE, hash: '', body: '' };
  }
}

export interface PromptInputs {
  promptsDir: string;
  root: string;
  mode: string;
  kind: 'agent' | 'chat';
  /** The instructions of the MCP servers connected when the prompt is built. */
  servers?: readonly ServerInstructions[];
}

/**
 * The system prompt, built once per session (and again only after compaction or a model switch).
 * Nothing in it is a clock: the date travels as a note. The mode appears only as its first line,
 * as it was when the prompt was built; changes arrive as notes.
 */
export function buildSystemPrompt({ promptsDir, root, mode, kind, servers = [] }: PromptInputs): { text: string; instructionsHash: string } {
  const instructions = readInstructions(root);
  const parts = [
    readPrompt(promptsDir, `system-${kind}.md`).replaceAll('{{root}}', root),
    `Permission mode at the start: ${mode}. ${modeText(promptsDir, mode).split('\n')[0]}`,
    readPrompt(promptsDir, 'blocks/context.md'),
  ];
  if (instructions.body) parts.push(`# Instructions from ${instructions.path}\n\n${instructions.body}`);
  for (const s of [...servers].sort((a, b) => (a.server < b.server ? -1 : 1))) {
    parts.push(`${fill(mcpConfig.prompt_heading.value, { server: s.server })}\n\n${s.text.trim()}`);
  }
  return { text: parts.join('\n\n') + '\n', instructionsHash: instructions.hash };
}

/** Each tool's description is prompts/tools/NAME.md. */
export function toolDescription(promptsDir: string, name: string): string {
  return readPrompt(promptsDir, `tools/${name}.md`);
}
