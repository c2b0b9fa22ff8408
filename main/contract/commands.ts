/**
 * Custom slash commands (issue 34): the composer lists a workspace's commands as the person types
 * `/`, and `send` sends a command's prompt in its place (main/core/prompts/slashCommands.ts).
 * Spread into CONTRACT (main/contract.ts); values only from leaf modules.
 */
import type { SlashCommand } from '../core/prompts/slashCommands.js';
import { PATH } from './args.js';
import { takes } from './shape.js';

export type { CommandSource } from '../core/prompts/slashCommands.js';

/** A command as the composer shows it: its prompt stays in main, which fills and sends it. */
export interface SlashCommandView extends Omit<SlashCommand, 'body'> {
  /** Where it comes from, as shown: "(project)", "(project:frontend)", "(personal)", "(keel)". */
  label: string;
  /**
   * What its front matter does beyond the prompt, one short clause each (main/app/commandGrants.ts):
   * the calls its turn runs without asking, or why none do; allowed-tools entries Keel ignores and why;
   * a `model` that is not used. Absent when there is nothing to say.
   */
  notes?: string[];
}

export const COMMAND_CALLS = {
  /**
   * The workspace's commands (its .keel/commands and .claude/commands, the person's
   * ~/.claude/commands), the used ones and, with their problem, those that cannot run.
   */
  slashCommands: takes(PATH).as<(workspace: string) => Promise<SlashCommandView[]>>(),
};
