/**
 * What a slash command's front matter does beyond its prompt. `allowed-tools` (Claude Code's rule
 * syntax, read with the same mapping as a settings file's allow list, claudeRules.ts) lets the
 * calls it covers run without asking during the turn the command starts; it never changes the
 * session's tool list (spec §10.4), the person's deny and ask rules still win, and the sandbox and
 * the gate's guards hold. A command in the workspace is the repository's text: its allowed-tools
 * apply only while the workspace's settings files are approved as they are now (hookSettings.ts),
 * and that approval is taken over every workspace command's allowed-tools too, so a cloned
 * repository cannot pre-approve `Bash(rm:*)` by shipping a command file, before or after approval. The person's
 * own commands (~/.claude/commands) apply theirs directly. `model` is not used: another model for
 * one command would read the whole session again, and the person is told so where it is listed.
 */
import os from 'node:os';
import type { SlashCommand } from '../core/prompts/slashCommands.js';
import { allowedToolRules, type FileRule } from '../core/permissions/claudeRules.js';
import type { Rule } from '../core/permissions/types.js';
import { settingsFiles } from './hookSettings.js';

export interface CommandGrant {
  /** The allow rules its turn runs with; empty when none apply. */
  rules: Rule[];
  /** Each allowed-tools entry as written, with what Keel made of it or why it is ignored. */
  entries: FileRule[];
  /** Why its allowed-tools do not apply (a workspace command before the workspace's settings are approved). */
  waits?: string;
}

/** The grant of `command` (one of workspace `root`'s) as things are now: the person's approvals read from `dataFolder`. */
export function commandGrant(dataFolder: string, command: SlashCommand, root: string, home = os.homedir()): CommandGrant {
  const entries = allowedToolRules(command.allowedTools ?? [], home);
  const rules = entries.flatMap((e) => e.rules);
  if (rules.length === 0 || command.source === 'personal') return { rules, entries };
  const waits = workspaceApproval(dataFolder, root, home);
  return waits === undefined ? { rules, entries } : { rules: [], entries, waits };
}

/**
 * Undefined when the workspace's settings files are approved as they are now (at least one, every
 * one well formed and approved); else why a workspace command's allowed-tools wait, and how to approve.
 */
function workspaceApproval(dataFolder: string, root: string, home: string): string | undefined {
  const files = settingsFiles(dataFolder, root, home).filter((f) => f.source === 'workspace');
  if (files.length === 0) {
    return "its allowed-tools apply only once you approve the workspace's settings (.claude/settings.json), and it has none: each call asks";
  }
  const waiting = files.find((f) => f.problem !== undefined || !f.approved);
  if (!waiting) return undefined;
  if (waiting.problem !== undefined) return `its allowed-tools apply only with the workspace's settings in use, and ${waiting.file} is not: each call asks`;
  return `its allowed-tools apply once you approve ${waiting.file} (keel hooks approve --workspace ${waiting.file}, or Hooks and permission rules in the Servers tab): until then each call asks`;
}

/**
 * What the person is told of a command's front matter where it is listed, one short clause each:
 * which calls run without asking, then what `commandCaveats` says.
 */
export function commandNotes(grant: CommandGrant, command: Pick<SlashCommand, 'model'>): string[] {
  const used = grant.waits === undefined ? grant.entries.filter((e) => e.ignored === undefined).map((e) => e.written) : [];
  return [...(used.length > 0 ? [`runs ${used.join(', ')} without asking in its turn`] : []), ...commandCaveats(grant, command)];
}

/** What of a command's front matter is not used, one short clause each: why its allowed-tools wait, entries Keel ignores, a `model`. */
export function commandCaveats(grant: CommandGrant, command: Pick<SlashCommand, 'model'>): string[] {
  return [
    ...(grant.waits === undefined ? [] : [grant.waits]),
    ...grant.entries.filter((e) => e.ignored !== undefined).map((e) => `allowed-tools ${e.written} is ignored: ${e.ignored}`),
    ...(command.model ? [`model ${command.model} is not used: the session keeps its model`] : []),
  ];
}
