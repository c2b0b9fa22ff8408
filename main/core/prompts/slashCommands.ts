import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scalar, splitFrontMatter, type Field } from '../frontMatter.js';

/**
 * Custom slash commands, as Claude Code writes them: a Markdown file whose name (less `.md`) is the
 * command and whose body is the prompt sent in its place, with `$ARGUMENTS` (all that follows the
 * command) and `$1`, `$2`… (its words) filled in. Front matter may give `description` (else the
 * body's first line), `argument-hint`, `allowed-tools` and `model`. A subfolder names the command's
 * namespace in its label only: `.claude/commands/frontend/component.md` is `/component`, shown
 * "(project:frontend)".
 */
export interface SlashCommand {
  name: string;
  description: string;
  argumentHint?: string;
  source: CommandSource;
  /** The subfolder below the commands folder ('frontend', 'a/b'); absent for a file directly in it. */
  namespace?: string;
  file: string;
  /** As the file names them (Claude Code's rules, such as `Bash(git add:*)`): what its turn may run unasked, where they apply (main/app/commandGrants.ts). */
  allowedTools?: string[];
  /** As the file names it: not used (another model would re-read the whole session), and the command's listing says so. */
  model?: string;
  /** The prompt, front matter left out; '' for a command with a problem. */
  body: string;
  /** Why it cannot run (unreadable, malformed front matter, no prompt, another file of its name used); absent when it can. */
  problem?: string;
}

export type CommandSource = 'keel' | 'project' | 'personal';

/**
 * Where commands are read, in order: Keel's own place in the workspace, Claude Code's in the
 * workspace, then the person's own (`~/.claude/commands`, the home folder as ~/.claude/CLAUDE.md is
 * found). A name found again is the first one's: the workspace's command is used and the person's
 * is listed with the conflict as its problem.
 */
export function commandFolders(root: string, home = os.homedir()): { dir: string; source: CommandSource }[] {
  return [
    { dir: path.join(root, '.keel', 'commands'), source: 'keel' },
    { dir: path.join(root, '.claude', 'commands'), source: 'project' },
    { dir: path.join(home, '.claude', 'commands'), source: 'personal' },
  ];
}

/** Every command of workspace `root`, the usable ones and those with a problem; never throws for a file. */
export function listCommands(root: string, home = os.homedir()): SlashCommand[] {
  const used = new Map<string, SlashCommand>();
  const listed: SlashCommand[] = [];
  for (const { dir, source } of commandFolders(root, home)) {
    for (const file of markdownFiles(dir)) {
      const namespace = path.relative(dir, path.dirname(file)).split(path.sep).join('/');
      const command = readCommand(file, source, namespace || undefined);
      const first = command.problem === undefined ? used.get(command.name) : undefined;
      if (first) command.problem = `/${command.name} is also ${first.file} ${commandLabel(first)}, which is the one used`;
      else if (command.problem === undefined) used.set(command.name, command);
      listed.push(command);
    }
  }
  return listed;
}

/** How a command's origin is shown: "(project)", "(project:frontend)", "(personal)", "(keel)". */
export function commandLabel(c: Pick<SlashCommand, 'source' | 'namespace'>): string {
  return `(${c.source}${c.namespace ? `:${c.namespace}` : ''})`;
}

/** What a typed message is: a command's prompt, a refusal (nothing is sent), or undefined (sent as typed). */
export type Expansion = { prompt: string; command: SlashCommand } | { error: string } | undefined;

/**
 * A message that starts with `/word` names a command: its prompt with the arguments filled in, or a
 * refusal listing the commands there are. A first word with another `/` in it is a path
 * (`/usr/bin/env fails`) and the message is sent as typed, as is one that does not start with `/`.
 * A host with commands of its own (`keel chat`'s /undo…) runs those before asking here.
 */
export function expandCommand(text: string, commands: readonly SlashCommand[]): Expansion {
  const m = /^\/([^\s/]+)(?=\s|$)([\s\S]*)$/.exec(text);
  if (!m) return undefined;
  const [, name, rest] = m;
  const args = rest.trim();
  const command = commands.find((c) => c.name === name && c.problem === undefined);
  if (command) return { prompt: fillArguments(command.body, args), command };
  const broken = commands.find((c) => c.name === name);
  if (broken) return { error: `The command /${name} cannot run: ${broken.file}: ${broken.problem}. Nothing was sent.` };
  return { error: `There is no command /${name}. ${commandsThere(commands)} Nothing was sent.` };
}

/** The commands there are, in a sentence (for a refusal or a help text). */
export function commandsThere(commands: readonly SlashCommand[]): string {
  const usable = commands.filter((c) => c.problem === undefined);
  if (usable.length === 0) return 'This workspace has no commands (.claude/commands/NAME.md, .keel/commands/NAME.md or ~/.claude/commands/NAME.md).';
  return `Commands here: ${usable.map((c) => `/${c.name}`).join(', ')}.`;
}

/**
 * `$ARGUMENTS` becomes all that follows the command, `$1`, `$2`… its words (quotes group words; a
 * missing one is empty). A body that names neither gets the arguments after it, as
 * "ARGUMENTS: …", so that words typed after a command are never silently dropped.
 */
export function fillArguments(body: string, args: string): string {
  const words = splitWords(args);
  let named = false;
  const filled = body.replace(/\$(ARGUMENTS|\d+)/g, (_, what: string) => {
    named = true;
    return what === 'ARGUMENTS' ? args : (words[Number(what) - 1] ?? '');
  });
  return named || args === '' ? filled : `${filled}\n\nARGUMENTS: ${args}`;
}

/** Words as a shell splits them at spaces, "double" or 'single' quotes keeping spaces inside one. */
function splitWords(args: string): string[] {
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The `.md` files below `dir`, sorted by path; none when the folder is absent or unreadable. */
function markdownFiles(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.sort((a, b) => a.name.localeCompare(b.name)).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(full);
    return e.name.endsWith('.md') ? [full] : [];
  });
}

function readCommand(file: string, source: CommandSource, namespace: string | undefined): SlashCommand {
  const name = path.basename(file, '.md');
  const base = { name, description: '', source, ...(namespace && { namespace }), file, body: '' };
  if (!/^[\w.:-]+$/.test(name)) return { ...base, problem: `its name "${name}" is not a command word (letters, digits, - _ . :)` };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { ...base, problem: `it cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  try {
    return { ...base, ...parseCommand(text) };
  } catch (e) {
    return { ...base, problem: (e as Error).message };
  }
}

/** A command file's text: its front matter's fields and its prompt. Throws, naming the line or field, where it is malformed. */
export function parseCommand(text: string): Pick<SlashCommand, 'description' | 'argumentHint' | 'allowedTools' | 'model' | 'body'> {
  const front = splitFrontMatter(text);
  if (!front && /^\uFEFF?---[ \t]*\r?\n/.test(text)) throw new Error('its front matter (--- on line 1) has no closing --- line');
  const fields = front?.fields ?? {};
  // Line numbers as the file counts them: the opening --- is line 1.
  const stray = front?.stray[0];
  if (stray !== undefined) throw new Error(`line ${stray + 1} of its front matter is not "key: value": ${JSON.stringify(text.split(/\r?\n/)[stray])}`);
  const body = (front ? front.body : text.replace(/^\uFEFF/, '')).trim();
  if (body === '') throw new Error('it has no prompt (nothing after its front matter)');
  const description = line(fields, 'description') ?? body.split('\n')[0].replace(/^#+\s*/, '').trim();
  const argumentHint = line(fields, 'argument-hint');
  const model = line(fields, 'model');
  const tools = fields['allowed-tools'];
  const allowedTools = tools === undefined ? undefined : Array.isArray(tools) ? tools.filter((t) => t !== '') : toolList(tools);
  return { description, ...(argumentHint && { argumentHint }), ...(allowedTools && { allowedTools }), ...(model && { model }), body };
}

/** A field that takes one line of text: a list there is a mistake, not a line to guess. */
function line(fields: Record<string, Field>, key: string): string | undefined {
  if (Array.isArray(fields[key])) throw new Error(`its front matter's ${key} is a list; it takes one line of text`);
  return scalar(fields[key]);
}

/** `allowed-tools` as a line: `[a, b]` or a comma list whose commas inside parentheses (`Bash(a, b)`) do not split it. */
function toolList(value: string): string[] {
  const inner = /^\[(.*)\]$/.exec(value.trim())?.[1] ?? value;
  const tools: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of inner) {
    if (ch === ',' && depth === 0) {
      tools.push(current);
      current = '';
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    current += ch;
  }
  tools.push(current);
  return tools.map(unquote).filter((t) => t !== '');
}

function unquote(s: string): string {
  const t = s.trim();
  return /^(["']).*\1$/.test(t) ? t.slice(1, -1) : t;
}

/**
 * A message as a host sends it: a command's prompt in its place, or the message as typed when it
 * names no command. Throws (nothing sent) for a `/word` that is no command, or one that cannot run.
 */
export function expandTyped(text: string, root: string, home = os.homedir()): { prompt: string; command?: SlashCommand } {
  const expansion = expandCommand(text, listCommands(root, home));
  if (expansion === undefined) return { prompt: text };
  if ('error' in expansion) throw new SlashCommandError(expansion.error);
  return expansion;
}

/** A message refused because its `/word` is not a command that can run; its message says which there are. */
export class SlashCommandError extends Error {}
