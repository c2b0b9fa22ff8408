import os from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { mcpConfig } from '../config.js';
import type { Mode } from '../types.js';
import type { Decision, Rule } from './types.js';
import type { CommandAccess } from '../tools/commandRunner.js';
import { changesAnything, type ToolAccess } from '../tools/access.js';
import { baseName, classifyCommand, classifyWords, parseLine, pathWords, programRuns, reachesNetwork, writtenPaths, type PathWord, type ProgramRuns } from './command.js';
import type { LinksBelow, Resolved } from './commandPaths.js';
import { RECURSIVE_READERS } from './programs.js';
import { texts, type ParsedLine } from './shellWords.js';

// Decision and Rule live in ./types.ts; re-exported for the gate's importers.
export type { Decision, Rule } from './types.js';

export interface GateInput {
  tool: string;
  /** What the tool declares it may do (tools/access.ts): a tool that changes nothing passes. */
  access: ToolAccess;
  /** The absolute paths a file tool would change (resolved). */
  paths: string[];
  /** The command line of a tool that runs programs, or its one parse (parsed once, read by every check here). */
  command?: string | ParsedLine;
  mode: Mode;
  root: string;
  rules: readonly Rule[];
  /** Folders never written without asking (Keel's own data folder). */
  protectedFolders: readonly string[];
  /** Whether commands run in an OS sandbox here. Without one, every command not judged read-only asks. */
  sandboxed: boolean;
  /** Paths no command may read (secrets, Keel's data): a command naming one asks. */
  deniedReads?: readonly string[];
  /** Follows symlinks (realpath of the longest existing prefix); the guards compare real paths. */
  realpath?: (abs: string) => string;
  /** Where a path a command names leads for that command (commandPaths.ts); default: `realpath` of it resolved against the root. */
  resolve?: (given: string, root: string) => Resolved;
  /** The symlinks below a path, for a recursive reader where no sandbox runs (commandPaths.ts). */
  linksBelow?: (abs: string) => LinksBelow;
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
 * holds in every mode; plan mode denies every change whatever any other rule says; a tool whose
 * declared access changes nothing passes. For commands (decideCommand) the line is parsed once.
 * The `.git` and data-folder guards compare real paths. Nothing the model reads can reach this
 * function: its inputs are the call, the tool's declaration, the mode, the person's rules and
 * what the machine can enforce.
 */
export function decide(input: GateInput): GateVerdict {
  if (input.mcp) return decideMcp(input, input.mcp);
  if (input.access.runs && input.command !== undefined) {
    return decideCommand(input, typeof input.command === 'string' ? parseLine(input.command) : input.command);
  }
  const rule = (action: Decision) => input.rules.find((r) => r.action === action && matchesFiles(r, input));
  const denied = rule('deny');
  if (denied) return { decision: 'deny', reason: `rule: deny ${describe(denied)}` };
  if (!changesAnything(input.access)) {
    const asked = rule('ask');
    return asked ? { decision: 'ask', reason: `rule: ask ${describe(asked)}` } : { decision: 'allow', reason: 'reads only' };
  }
  if (input.mode === 'plan') return { decision: 'deny', reason: 'plan mode makes no changes and runs no commands with effects' };
  const asked = rule('ask');
  if (asked) return { decision: 'ask', reason: `rule: ask ${describe(asked)}` };
  const guarded = input.paths.find((p) => isGuarded(p, input));
  if (guarded) return { decision: 'ask', reason: `${guarded} is in .git or Keel's own data` };
  const allowed = rule('allow');
  if (allowed) return { decision: 'allow', reason: `rule: allow ${describe(allowed)}`, access: 'git-write' };
  if (input.mode === 'auto') return { decision: 'allow', reason: 'auto mode', access: 'workspace-write' };
  const onlyEdits = !input.access.runs && !input.access.network;
  if (input.mode === 'accept-edits' && onlyEdits) return { decision: 'allow', reason: 'accept-edits mode' };
  return { decision: 'ask', reason: `${input.mode} mode asks before ${onlyEdits ? 'edits' : `${input.tool} calls`}` };
}

/**
 * A command line. Deny and ask rules hold when any program the line may run matches them
 * (`/bin/rm`, `ls; rm`, `sudo rm`, `bash -c 'rm x'`); where the line does not say every program
 * it runs (`… | sh`, `${x}m`, `awk 'BEGIN{system(…)}'`), a deny rule denies in auto and asks
 * elsewhere, and an ask rule asks. Read-only commands pass with read-only access unless they name a
 * path kept from commands. Where no sandbox runs, everything else asks. In auto the sandbox is
 * the boundary: a command runs with workspace-write access, whatever the judge makes of it, unless
 * it needs what the sandbox withholds (a kept path, `.git` or Keel's data, a write it names outside
 * the workspace, the network, a git change); then it asks, naming that. In ask and accept-edits
 * every command that is not read-only asks, unless an allow rule covers every simple command.
 */
function decideCommand(input: GateInput, line: ParsedLine): GateVerdict {
  const kind = classifyCommand(line);
  const programs = programRuns(line);
  const rule = (action: Decision) => input.rules.find((r) => r.action === action && matchesCommand(r, input.tool, programs));
  const denied = rule('deny');
  if (denied) return { decision: 'deny', reason: `rule: deny ${describe(denied)}` };
  const blind = (action: Decision) => (programs.unknown ? input.rules.find((r) => r.action === action && r.pattern && appliesTo(r, input.tool)) : undefined);
  const named = programs.unknown ? input.rules.find((r) => r.action === 'deny' && r.pattern && appliesTo(r, input.tool) && namesProgram(line.line, r.pattern)) : undefined;
  if (named) {
    return { decision: 'deny', reason: `rule: deny ${describe(named)}: the line names ${patternWords(named.pattern!)[0]}, and ${programs.unknown}, so it may run it; a deny rule is lifted in settings, not by an approval` };
  }
  const denyBlind = blind('deny');
  if (denyBlind) {
    const why = `rule: deny ${describe(denyBlind)}, and ${programs.unknown}, so the judge cannot tell that ${denyBlind.pattern} is not among what it runs`;
    if (input.mode === 'auto' || input.mode === 'plan') return { decision: 'deny', reason: why };
    return { decision: 'ask', reason: why };
  }
  if (input.mode === 'plan' && kind !== 'read-only') {
    return { decision: 'deny', reason: 'plan mode makes no changes and runs no commands with effects' };
  }
  const asked = rule('ask') ?? blind('ask');
  if (asked) return { decision: 'ask', reason: `rule: ask ${describe(asked)}${programs.unknown ? ` (${programs.unknown})` : ''}` };
  const secret = namedSecret(input, line);
  if (secret) return { decision: 'ask', reason: `it reads ${secret}, which Keel keeps from commands` };
  if (kind === 'read-only') {
    const outside = input.sandboxed ? undefined : readsOutside(input, line);
    if (!outside) return { decision: 'allow', reason: 'a read-only command', access: 'read-only' };
    const why = `no sandbox can run here, and ${outside}: without one, reads stay inside the workspace`;
    return { decision: input.mode === 'plan' || input.mode === 'auto' ? 'deny' : 'ask', reason: why };
  }
  if (!input.sandboxed) return { decision: 'ask', reason: 'no sandbox can run here, so every command that is not read-only asks' };
  const words = pathWords(line);
  const kept = [path.join(input.root, '.git'), ...input.protectedFolders];
  const guarded = [...input.paths, ...resolvedPaths(input, words)].find((p) => isGuarded(p, input))
    ?? globPatterns(input, words).find((g) => kept.some((k) => globReaches(g, k)));
  if (guarded) return { decision: 'ask', reason: `${guarded.replace(ANYWHERE, '')} is in .git or Keel's own data, or may lead there` };
  const allowed = allowedCommand(input, line);
  if (allowed) return { decision: 'allow', reason: `rule: allow ${describe(allowed)}`, access: 'git-write' };
  if (changesGit(line)) return { decision: 'ask', reason: 'git would change the repository (.git)' };
  if (input.mode === 'auto') {
    if (reachesNetwork(line)) return { decision: 'ask', reason: 'the command reaches the network, and the sandbox lets commands reach only the domains the person allowed' };
    const outside = resolvedPaths(input, writtenPaths(line)).find((p) => !within(p, input.root) && !within(p, '/dev'));
    if (outside) return { decision: 'ask', reason: `it writes ${outside}, outside the workspace, and the sandbox lets commands write only inside it` };
    return { decision: 'allow', reason: 'auto mode: the sandbox holds it', access: 'workspace-write' };
  }
  if (kind === 'network') return { decision: 'ask', reason: 'the command reaches the network' };
  if (kind === 'complex') return { decision: 'ask', reason: `the command is too complex to judge (${line.complex})` };
  return { decision: 'ask', reason: `${input.mode} mode asks before commands` };
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
  if (!changesAnything(input.access)) return { decision: 'allow', reason: `a read-only tool of ${mcp.server}, a server the person trusts` };
  if (input.mode === 'auto') return { decision: 'allow', reason: 'auto mode' };
  const why = mcp.readOnly ? `${mcp.server} marks it read-only, but the person has not trusted that server` : `${mcp.server} does not mark it read-only`;
  return { decision: 'ask', reason: `${input.mode} mode asks before MCP tools: ${why}` };
}

function matchesMcp(rule: Rule, tool: string, server: string): boolean {
  if (rule.pattern) return false;
  return rule.tool === '*' || rule.tool === tool || rule.tool === `${mcpConfig.prefix.value}${server}`;
}
/** A git command that is not read-only writes the repository: refs, objects, the index. */
const changesGit = (line: ParsedLine) =>
  line.commands.some((c) => c.words[0]?.literal && baseName(c.words[0].text) === 'git' && classifyWords(texts(c)) !== 'read-only');

/** Whether a line's text names a rule's program as a word of its own (`echo rm a | sh`, `xargs -I{} /bin/rm`). */
function namesProgram(text: string, pattern: string): boolean {
  const program = baseName(patternWords(pattern)[0]).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const word = new RegExp(`(^|[^\\w.-])${program}($|[^\\w.-])`);
  return word.test(text) || word.test(text.replace(/['"\\]/g, ''));
}

const describe = (r: Rule) => `${r.tool}${r.pattern ? ` ${r.pattern}${r.exact ? ' (exactly)' : ''}` : ''}`;
const patternWords = (pattern: string) => pattern.trim().split(/\s+/);
const appliesTo = (rule: Rule, tool: string) => rule.tool === '*' || rule.tool === tool;

/** A deny or ask rule on a command: when any program the line may run starts with the pattern (is it, for an exact rule). */
function matchesCommand(rule: Rule, tool: string, programs: ProgramRuns): boolean {
  if (!appliesTo(rule, tool)) return false;
  if (!rule.pattern) return true;
  const [program, ...rest] = patternWords(rule.pattern);
  return programs.runs.some((run) => baseName(run[0]) === baseName(program) && rest.every((w, i) => run[i + 1] === w) && (!rule.exact || run.length === rest.length + 1));
}

/** A rule on a file tool: by glob on the paths, relative to the root or absolute, as named or as they really lead. */
function matchesFiles(rule: Rule, input: GateInput): boolean {
  if (!appliesTo(rule, input.tool)) return false;
  if (!rule.pattern) return true;
  const real = input.realpath ?? ((p: string) => p);
  return input.paths.some((p) => globMatches(rule.pattern!, input.root, p) || globMatches(rule.pattern!, input.root, real(p)));
}

function globMatches(pattern: string, root: string, abs: string): boolean {
  const glob = picomatch(pattern, { dot: true });
  return glob(path.relative(root, abs)) || glob(abs);
}

/**
 * The deny rule that keeps a file from a tool, or undefined: what folder-walking readers (grep, glob,
 * list, search) leave out, and what `recall` of a stored result showing that file refuses. `real` is
 * where the path really leads (a link named otherwise is kept from the tool too).
 */
export function denyingRule(rules: readonly Rule[], tool: string, root: string, abs: string, real: string = abs): Rule | undefined {
  return rules.find((r) => r.action === 'deny' && appliesTo(r, tool) && r.pattern !== undefined
    && (globMatches(r.pattern, root, abs) || globMatches(r.pattern, root, real)));
}

export const describeRule = (r: Rule) => `${r.action} ${describe(r)}`;

/**
 * The allow rule that lets a command line run: the line is one the judge follows, every simple
 * command is read-only or starts with an allow rule's pattern (is it, for an exact rule), its
 * program named exactly (no path), and at least one rule matched.
 */
function allowedCommand(input: GateInput, line: ParsedLine): Rule | undefined {
  if (line.complex) return undefined;
  const allows = input.rules.filter((r) => r.action === 'allow' && appliesTo(r, input.tool));
  let used: Rule | undefined;
  for (const command of line.commands) {
    const words = texts(command);
    const hit = allows.find((r) => !r.pattern || (startsWith(words, patternWords(r.pattern)) && (!r.exact || words.length === patternWords(r.pattern).length)));
    if (hit) used ??= hit;
    else if (classifyWords(words) !== 'read-only') return undefined;
  }
  return used;
}

const startsWith = (words: readonly string[], pattern: readonly string[]) =>
  words.length > 0 && !words[0].includes('/') && pattern.every((w, i) => words[i] === w);

/**
 * Where the words of a command lead, as real paths (`~` as the home folder). A word that may lead
 * anywhere (another process's folders, a descriptor link) is returned as written, marked by
 * ANYWHERE, so the kept-path checks see it. Globs are left to `globReaches`.
 */
function resolvedPaths(input: GateInput, words: readonly PathWord[]): string[] {
  const home = input.home ?? os.homedir();
  const real = input.realpath ?? ((p: string) => p);
  const resolve = input.resolve ?? ((given: string, root: string) => ({ abs: real(path.resolve(root, given)) }));
  return words.filter((w) => !w.glob).map((w) => {
    const r = resolve(w.text.replace(/^~(?=\/|$)/, home), input.root);
    return 'abs' in r ? r.abs : `${ANYWHERE}${r.anywhere}`;
  });
}
const ANYWHERE = '\u0000';

/** Glob words resolved against the root (`~` as home), as absolute patterns. */
function globPatterns(input: GateInput, words: readonly PathWord[]): string[] {
  const home = input.home ?? os.homedir();
  return words.filter((w) => w.glob).map((w) => path.resolve(input.root, w.text.replace(/^~(?=\/|$)/, home)));
}

/** Whether a glob pattern can name `target` or a path below it (its first parts match target's). */
function globReaches(pattern: string, target: string): boolean {
  const p = pattern.split('/');
  const t = target.split('/');
  if (p.length < t.length) return false;
  return t.every((part, i) => part === p[i] || (p[i] !== '' && picomatch.isMatch(part, p[i])));
}

const within = (abs: string, folder: string) => abs === folder || abs.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);

function isGuarded(abs: string, input: GateInput): boolean {
  if (abs.startsWith(ANYWHERE)) return true;
  const real = input.realpath ?? ((p: string) => p);
  if (path.relative(input.root, abs).split(path.sep).includes('.git')) return true;
  return input.protectedFolders.some((folder) => within(abs, folder) || within(abs, real(folder)));
}

/** Options that hand a program a file naming the files to read (`sort --files0-from=list`, `tar -T list`). */
const FILE_LIST_OPTIONS = /^(--files0-from|--files-from|--file-list|--from-file|--include-from|--exclude-from|--read-from|-T)(=|$)/;
/** Options that make a program follow the links it meets while recursing. */
const FOLLOWS_LINKS = /^(-[A-Za-z]*[RL][A-Za-z]*|--dereference(-recursive)?|--follow|-follow|--copy-links)$/;

/**
 * Where no sandbox runs, what a read-only command may read outside the workspace, in a clause: a path
 * it names that leads outside (a link included), a file list it is handed, a link below a folder it
 * recurses into (or may follow) that leads outside; undefined when every file it can read is inside.
 */
function readsOutside(input: GateInput, line: ParsedLine): string | undefined {
  const inside = (p: string) => !p.startsWith(ANYWHERE) && (within(p, input.root) || /^\/dev\/(null|zero|stdin|stdout|stderr|tty|u?random|fd\/[012])$/.test(p));
  for (const c of line.commands) {
    const listed = texts(c).slice(1).find((w) => FILE_LIST_OPTIONS.test(w) || /^@[^@\s]/.test(w));
    if (listed) return `${listed} hands it a list of files to read, which the judge cannot see`;
  }
  const words = pathWords(line);
  const paths = resolvedPaths(input, words);
  const away = paths.find((p) => !inside(p));
  if (away) return `it reads ${away.startsWith(ANYWHERE) ? `${away.slice(1)} (it may lead to any file)` : `${away}, outside the workspace`}`;
  const globbed = globPatterns(input, words).find((g) => !within(g, input.root));
  if (globbed) return `it reads ${globbed}, outside the workspace`;
  const recurses = line.commands.some((c) => (c.words[0] && RECURSIVE_READERS.has(baseName(c.words[0].text))) || texts(c).slice(1).some((w) => FOLLOWS_LINKS.test(w)));
  if (!recurses || !input.linksBelow) return undefined;
  for (const folder of paths.length > 0 ? paths : [input.root]) {
    const links = input.linksBelow(folder);
    if (links === 'missing') continue;
    if (links === 'too-many') return `what is below ${folder} is too many files to check for links leading outside`;
    const out = links.find((l) => 'anywhere' in l || !inside(l.abs));
    if (out) return `a link below ${folder} leads to ${'anywhere' in out ? out.anywhere : out.abs}, outside the workspace, and it may follow it`;
  }
  return undefined;
}

/**
 * The kept path a command names: one inside a denied folder (on the path the command would
 * really reach), one a glob of it can match, one reached through another process's folders or a
 * descriptor link; for a program that reads whole folders (`grep -r`, `rg`, `git grep`), a folder
 * holding one (the workspace itself counts, as their default), and where no sandbox runs, a
 * symlink below such a folder that leads to one (or a folder too large to check).
 */
function namedSecret(input: GateInput, line: ParsedLine): string | undefined {
  const denied = input.deniedReads ?? [];
  if (denied.length === 0) return undefined;
  const words = pathWords(line);
  const paths = resolvedPaths(input, words);
  const anywhere = paths.find((p) => p.startsWith(ANYWHERE));
  if (anywhere) return `${anywhere.slice(1)} (it may lead to any file)`;
  const inside = paths.find((p) => denied.some((d) => within(p, d)));
  if (inside) return inside;
  const globbed = globPatterns(input, words).find((g) => denied.some((d) => globReaches(g, d)));
  if (globbed) return `${globbed} (a pattern that can name a kept path)`;
  const recursive = line.commands.some((c) => c.words[0] && RECURSIVE_READERS.has(baseName(c.words[0].text)));
  if (!recursive) return undefined;
  const holding = [input.root, ...paths].flatMap((p) => denied.filter((d) => within(d, p)))[0];
  if (holding || !input.linksBelow) return holding;
  const walks = paths.map((p) => ({ folder: p, links: input.linksBelow!(p) })).filter((w) => w.links !== 'missing');
  if (walks.length === 0) walks.push({ folder: input.root, links: input.linksBelow(input.root) });
  for (const { folder, links } of walks) {
    if (links === 'missing') continue;
    if (links === 'too-many') return `what is below ${folder} (too many files to check for links to kept paths)`;
    for (const link of links) {
      if ('anywhere' in link) return `${link.anywhere} (it may lead to any file)`;
      if (denied.some((d) => within(link.abs, d) || within(d, link.abs))) return `${link.abs}, through a symlink below ${folder}`;
    }
  }
  return undefined;
}
