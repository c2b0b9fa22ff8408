import os from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { mcpConfig } from '../config.js';
import type { Mode } from '../types.js';
import type { Decision, Rule } from './types.js';
import type { CommandAccess } from '../tools/commandRunner.js';
import { baseName, classifyCommand, classifyWords, pathWords, programRuns, splitCommands } from './command.js';
import { RECURSIVE_READERS } from './programs.js';

// Decision and Rule live in ./types.ts; re-exported for the gate's importers.
export type { Decision, Rule } from './types.js';

/** The tools that change files or run commands: every one goes through the gate. */
export const WRITERS = new Set(['write', 'edit', 'multiedit', 'apply_patch', 'bash']);

export interface GateInput {
  tool: string;
  /** The absolute paths a file tool would change (resolved), or the command line for bash. */
  paths: string[];
  command?: string;
  mode: Mode;
  root: string;
  rules: readonly Rule[];
  /** Folders never written without asking (Keel's own data folder). */
  protectedFolders: readonly string[];
  /** Whether commands run in an OS sandbox here. Without one, every command not judged read-only asks. */
  sandboxed: boolean;
  /** Paths no command may read (secrets, Keel's data): a read-only command naming one asks. */
  deniedReads?: readonly string[];
  /** Follows symlinks (realpath of the longest existing prefix); the guards compare real paths. */
  realpath?: (abs: string) => string;
  /** The home folder `~` stands for. */
  home?: string;
  /** Set for a tool of an MCP server: its server, and whether a hint may let it pass. */
  mcp?: { server: string; readOnly: boolean; trusted: boolean };
}

export interface GateVerdict {
  decision: Decision;
  reason: string;
  /** For an allowed command: what the sandbox lets it do (read-only; workspace-write by the mode; git-write by a rule). */
  access?: CommandAccess;
}

/**
 * The one permission gate. Rules are checked deny → ask → allow, first match wins, and a deny
 * holds in every mode; plan mode denies every change whatever any other rule says; read-only
 * commands pass (with read-only access) unless they name a path kept from commands; then the
 * mode decides. A command that cannot be judged, or reaches the network, asks; where no sandbox
 * can run, every command not judged read-only asks, in every mode. Command rules are matched per
 * simple command on resolved program names: a deny or ask rule holds when any program the line
 * may run matches it (`/bin/rm`, `ls; rm`, `sudo rm`), an allow rule only when every simple
 * command matches one or is read-only (`npm test && rm -rf ~` is not `npm test`). The `.git` and
 * data-folder guards compare real paths, and a git command that changes the repository is a
 * write into .git: it asks unless a rule allows it. Nothing the model reads can reach this function: its
 * inputs are the call, the mode, the person's rules and what the machine can enforce.
 */
export function decide(input: GateInput): GateVerdict {
  if (input.mcp) return decideMcp(input, input.mcp);
  if (!WRITERS.has(input.tool)) return { decision: 'allow', reason: 'reads only' };
  const kind = input.command !== undefined ? classifyCommand(input.command) : undefined;
  const rule = (action: Decision) => input.rules.find((r) => r.action === action && matches(r, input));
  const denied = rule('deny');
  if (denied) return { decision: 'deny', reason: `rule: deny ${describe(denied)}` };
  if (input.mode === 'plan' && kind !== 'read-only') {
    return { decision: 'deny', reason: 'plan mode makes no changes and runs no commands with effects' };
  }
  const asked = rule('ask');
  if (asked) return { decision: 'ask', reason: `rule: ask ${describe(asked)}` };
  if (kind === 'read-only') {
    const secret = namedSecret(input);
    if (secret) return { decision: 'ask', reason: `it reads ${secret}, which Keel keeps from commands` };
    return { decision: 'allow', reason: 'a read-only command', access: 'read-only' };
  }
  if (kind === 'network') return { decision: 'ask', reason: 'the command reaches the network' };
  if (kind === 'complex') return { decision: 'ask', reason: 'the command is too complex to judge' };
  if (kind !== undefined && !input.sandboxed) return { decision: 'ask', reason: 'no sandbox can run here, so every command that is not read-only asks' };
  const guarded = [...input.paths, ...commandPaths(input)].find((p) => isGuarded(p, input));
  if (guarded) return { decision: 'ask', reason: `${guarded} is in .git or Keel's own data` };
  const allowed = input.command !== undefined ? allowedCommand(input) : rule('allow');
  if (allowed) return { decision: 'allow', reason: `rule: allow ${describe(allowed)}`, access: 'git-write' };
  if (input.command !== undefined && changesGit(input.command)) return { decision: 'ask', reason: 'git would change the repository (.git)' };
  if (input.mode === 'auto') return { decision: 'allow', reason: 'auto mode', access: 'workspace-write' };
  if (input.mode === 'accept-edits' && input.tool !== 'bash') return { decision: 'allow', reason: 'accept-edits mode' };
  return { decision: 'ask', reason: `${input.mode} mode asks before ${input.tool === 'bash' ? 'commands' : 'edits'}` };
}

/**
 * An MCP tool can do anything its server can, so it is treated as a change unless the server
 * marks it `readOnlyHint` and the person trusts that server (a hint is the server's claim, worth
 * what the server is). Rules first, deny → ask → allow; plan mode runs only read-only tools; auto
 * mode allows; otherwise the person is asked.
 */
function decideMcp(input: GateInput, mcp: NonNullable<GateInput['mcp']>): GateVerdict {
  const rule = (action: Decision) => input.rules.find((r) => r.action === action && matchesMcp(r, input.tool, mcp.server));
  const denied = rule('deny');
  if (denied) return { decision: 'deny', reason: `rule: deny ${describe(denied)}` };
  if (input.mode === 'plan' && !mcp.readOnly) {
    return { decision: 'deny', reason: `plan mode runs only MCP tools that ${mcp.server} marks read-only` };
  }
  const asked = rule('ask');
  if (asked) return { decision: 'ask', reason: `rule: ask ${describe(asked)}` };
  const allowed = rule('allow');
  if (allowed) return { decision: 'allow', reason: `rule: allow ${describe(allowed)}` };
  if (mcp.readOnly && mcp.trusted) return { decision: 'allow', reason: `a read-only tool of ${mcp.server}, a server the person trusts` };
  if (input.mode === 'auto') return { decision: 'allow', reason: 'auto mode' };
  const why = mcp.readOnly ? `${mcp.server} marks it read-only, but the person has not trusted that server` : `${mcp.server} does not mark it read-only`;
  return { decision: 'ask', reason: `${input.mode} mode asks before MCP tools: ${why}` };
}

function matchesMcp(rule: Rule, tool: string, server: string): boolean {
  if (rule.pattern) return false;
  return rule.tool === '*' || rule.tool === tool || rule.tool === `${mcpConfig.prefix.value}${server}`;
}
/** A git command that is not read-only writes the repository: refs, objects, the index. */
const changesGit = (command: string) =>
  (splitCommands(command) ?? []).some((words) => baseName(words[0]) === 'git' && classifyWords(words) !== 'read-only');

const describe = (r: Rule) => `${r.tool}${r.pattern ? ` ${r.pattern}` : ''}`;
const patternWords = (pattern: string) => pattern.trim().split(/\s+/);

/** A deny or ask rule: file tools by glob; commands when any program the line may run starts with the pattern. */
function matches(rule: Rule, input: GateInput): boolean {
  if (rule.tool !== '*' && rule.tool !== input.tool) return false;
  if (!rule.pattern) return true;
  if (input.command !== undefined) {
    const [program, ...rest] = patternWords(rule.pattern);
    return programRuns(input.command).some((run) => baseName(run[0]) === baseName(program) && rest.every((w, i) => run[i + 1] === w));
  }
  const glob = picomatch(rule.pattern, { dot: true });
  return input.paths.some((p) => glob(path.relative(input.root, p)) || glob(p));
}

/**
 * The allow rule that lets a command line run: every simple command is read-only or starts with
 * an allow rule's pattern, its program named exactly (no path), and at least one rule matched.
 */
function allowedCommand(input: GateInput): Rule | undefined {
  const commands = splitCommands(input.command ?? '');
  if (!commands) return undefined;
  const allows = input.rules.filter((r) => r.action === 'allow' && (r.tool === '*' || r.tool === input.tool));
  let used: Rule | undefined;
  for (const words of commands) {
    const hit = allows.find((r) => !r.pattern || startsWith(words, patternWords(r.pattern)));
    if (hit) used ??= hit;
    else if (classifyWords(words) !== 'read-only') return undefined;
  }
  return used;
}

const startsWith = (words: readonly string[], pattern: readonly string[]) =>
  !words[0].includes('/') && pattern.every((w, i) => words[i] === w);

/** The words of a command that may name files, resolved against the root (`~` as the home folder), then to real paths. */
function commandPaths(input: GateInput): string[] {
  if (input.command === undefined) return [];
  const home = input.home ?? os.homedir();
  const real = input.realpath ?? ((p: string) => p);
  return pathWords(input.command).map((w) => real(path.resolve(input.root, w.replace(/^~(?=\/|$)/, home))));
}

const within = (abs: string, folder: string) => abs === folder || abs.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);

function isGuarded(abs: string, input: GateInput): boolean {
  const real = input.realpath ?? ((p: string) => p);
  if (path.relative(input.root, abs).split(path.sep).includes('.git')) return true;
  return input.protectedFolders.some((folder) => within(abs, folder) || within(abs, real(folder)));
}

/**
 * The kept path a read-only command names: one inside a denied folder, or, for a program that
 * reads whole folders (`grep -r`, `rg`, `git grep`), a folder holding one (the workspace itself
 * counts for those, as their default).
 */
function namedSecret(input: GateInput): string | undefined {
  const denied = input.deniedReads ?? [];
  if (input.command === undefined || denied.length === 0) return undefined;
  const paths = commandPaths(input);
  const inside = paths.find((p) => denied.some((d) => within(p, d)));
  if (inside) return inside;
  const recursive = (splitCommands(input.command) ?? []).some((w) => RECURSIVE_READERS.has(w[0]));
  if (!recursive) return undefined;
  return [input.root, ...paths].flatMap((p) => denied.filter((d) => within(d, p)))[0];
}
