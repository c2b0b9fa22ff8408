/**
 * Judges a shell command line for the permission gate, conservatively, from its one parse
 * (shellWords.ts): a command is read-only only if every simple command in it is a known read-only
 * program, named exactly, with harmless arguments (programs.ts). Anything the judge cannot follow
 * (expansions, globs, redirections to files, reserved words, odd quoting) is 'complex'; it is
 * never judged read-only. This is the second line of defence: the OS sandbox (main/sandbox) is the first.
 */
import { READ_ONLY_PROGRAMS, RUNS_NOTHING, runsFromArguments } from './programs.js';
import { parseLine, texts, type ParsedLine, type Word } from './shellWords.js';

export { parseLine, splitCommands, type ParsedLine } from './shellWords.js';

export type CommandClass = 'read-only' | 'effects' | 'network' | 'complex';

/** Words bash reads as syntax in a command's first place: the judge does not follow compound commands. */
const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'for', 'in', 'case', 'esac', 'select', 'function', 'time', 'coproc', '!', '[[', ']]']);
const NETWORK = new Set(['curl', 'wget', 'ssh', 'scp', 'sftp', 'rsync', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ftp', 'ping', 'dig', 'nslookup', 'http', 'https']);
const NETWORK_SUBCOMMANDS: ReadonlyMap<string, Set<string>> = new Map(Object.entries({
  git: new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule']),
  npm: new Set(['install', 'i', 'ci', 'add', 'update', 'publish', 'view', 'exec']),
  npx: new Set(['*']),
  pnpm: new Set(['install', 'i', 'add', 'update', 'publish', 'dlx']),
  yarn: new Set(['install', 'add', 'upgrade', 'publish', 'dlx']),
  pip: new Set(['install', 'download']),
  pip3: new Set(['install', 'download']),
  cargo: new Set(['install', 'fetch', 'update', 'publish']),
  go: new Set(['get', 'install', 'mod']),
  apt: new Set(['install', 'update', 'upgrade']),
  'apt-get': new Set(['install', 'update', 'upgrade', 'download']),
  docker: new Set(['pull', 'push', 'login', 'run', 'build']),
}));

/** Programs that run the program named in their arguments: a rule about `rm` also sees `sudo rm`, `nice rm`. */
const WRAPPERS = new Set([
  'command', 'builtin', 'exec', 'env', 'nice', 'nohup', 'time', 'timeout', 'sudo', 'doas', 'stdbuf', 'setsid',
  'ionice', 'chrt', 'taskset', 'unbuffer', 'busybox', 'watch', 'flock', 'strace', 'ltrace', 'nsenter', 'unshare',
  'chroot', 'script', 'caffeinate', 'torsocks', 'proxychains', 'proxychains4', 'firejail', 'systemd-run', 'runuser', 'sg',
]);
/** Programs whose arguments are command lines of their own (`sh -c 'rm x'`, `su -c 'rm x'`). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'yash', 'fish', 'csh', 'tcsh', 'su']);
/** Programs that run code given to them in a language the judge does not read. */
const INTERPRETERS = new Set([
  'python', 'python2', 'python3', 'pypy', 'pypy3', 'perl', 'ruby', 'irb', 'node', 'nodejs', 'deno', 'bun', 'php', 'lua',
  'luajit', 'tclsh', 'wish', 'expect', 'Rscript', 'R', 'julia', 'osascript', 'pwsh', 'powershell', 'vim', 'vi', 'nvim',
  'ex', 'view', 'emacs', 'ed', 'gdb', 'lldb', 'sqlite3', 'psql', 'mysql', 'jshell', 'groovy', 'scala', 'ghci', 'runghc',
  'guile', 'racket', 'sbcl', 'clisp', 'ocaml', 'elixir', 'erl', 'escript', 'swift', 'java', 'dotnet', 'nix-shell',
]);
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);

/** Classifies a line (or its parse) as a whole: the first complex or network part decides, else any effects. */
export function classifyCommand(line: string | ParsedLine): CommandClass {
  const parsed = typeof line === 'string' ? parseLine(line) : line;
  if (parsed.complex) return 'complex';
  let result: CommandClass = 'read-only';
  for (const command of parsed.commands) {
    const kind = classifyWords(texts(command));
    if (kind === 'complex' || kind === 'network') return kind;
    if (kind === 'effects') result = 'effects';
  }
  return result;
}

/** One simple command (its words, quotes removed). */
export function classifyWords(words: readonly string[]): CommandClass {
  const [program, sub] = words;
  if (program === undefined) return 'complex';
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(program) || RESERVED.has(program)) return 'complex';
  const name = baseName(program);
  if (NETWORK.has(name)) return 'network';
  const networkSubs = NETWORK_SUBCOMMANDS.get(name);
  if (networkSubs && (networkSubs.has('*') || (sub !== undefined && networkSubs.has(sub)))) return 'network';
  if (program.includes('/')) return 'effects';
  return READ_ONLY_PROGRAMS.get(program)?.(words.slice(1)) ? 'read-only' : 'effects';
}

/** Whether any simple command reaches the network by its program (curl, git push, npm install…). */
export function reachesNetwork(parsed: ParsedLine): boolean {
  return parsed.commands.some((c) => c.words.length > 0 && classifyWords(texts(c)) === 'network');
}

/** The program a word names, as a rule sees it: `/bin/rm` and `./rm` are `rm`. */
export function baseName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * Every program a line may run, each with the words that follow it, and, where the line does not
 * say them all, why (`unknown`). A rule that denies or asks matches against `runs`; where
 * `unknown` is set, it cannot know that its program is not among them.
 */
export interface ProgramRuns {
  runs: string[][];
  unknown?: string;
}

/**
 * The programs of a line: each simple command's, every later word once a wrapper appears in it
 * (`sudo`, `nice`…), the commands after find's `-exec`, the command lines a shell is given
 * (`bash -c '…'`, `eval …`) parsed in turn. The line does not say them all (`unknown`) when it is
 * opaque, when a program is not a literal word (`$x`, `${x}m`, `r{m,}`, `/bin/r?`), when a shell or
 * interpreter reads its code from its input, a file or an expansion (`… | sh`, `bash x.sh`,
 * `python -c …`, `awk '…system(…)'`), when xargs hands its input to a program that can run others,
 * or when a program is given an option that names a program (`git -c`, `rg --pre`, `env -S`).
 */
export function programRuns(line: string | ParsedLine, depth = 0): ProgramRuns {
  const parsed = typeof line === 'string' ? parseLine(line) : line;
  const acc: ProgramRuns = { runs: [], unknown: parsed.opaque ? `the judge cannot follow the line (${parsed.opaque})` : undefined };
  for (const command of parsed.commands) if (command.words.length > 0) runsOf(command.words, depth, acc);
  return acc;
}

const unknown = (acc: ProgramRuns, why: string) => void (acc.unknown ??= why);
const quoted = (w: Word) => `"${w.text}"`;
/** A word a wrapper may hand to a shell, or split: it holds a space or shell punctuation. */
const lineLike = (w: Word) => /[\s;&|`$()<>]/.test(w.text);

function merge(acc: ProgramRuns, sub: ProgramRuns): void {
  acc.runs.push(...sub.runs);
  if (sub.unknown) unknown(acc, sub.unknown);
}

function runsOf(words: readonly Word[], depth: number, acc: ProgramRuns): void {
  if (depth > 4) return unknown(acc, 'command lines nested too deep');
  let wrapped = false;
  for (let i = 0; i < words.length && (i === 0 || wrapped); i++) {
    const word = words[i];
    if (!word.literal) return unknown(acc, `${quoted(word)} may be any program`);
    const name = baseName(word.text);
    const rest = words.slice(i + 1);
    acc.runs.push(texts({ assigns: [], words: words.slice(i), redirects: [] }));
    if (i > 0 && lineLike(word)) merge(acc, programRuns(word.text, depth + 1));
    const why = runsFromArguments(name, rest.map((w) => w.text));
    if (why) return unknown(acc, why);
    if (name === 'eval') return evalRuns(rest, depth, acc);
    if (name === 'source' || name === '.') return unknown(acc, `${name} runs the commands of a file`);
    if (SHELLS.has(name)) return shellRuns(name, rest, depth, acc);
    if (INTERPRETERS.has(name) || /^python\d/.test(name)) {
      if (rest.every((w) => w.literal && /^(--version|-V|--help|-h)$/.test(w.text))) return;
      return unknown(acc, `${name} runs code the judge does not read`);
    }
    if (AWKS.has(name)) return awkRuns(name, rest, acc);
    if (name === 'find') return findRuns(rest, depth, acc);
    if (name === 'xargs') return xargsRuns(rest, depth, acc);
    if (name === 'parallel') return unknown(acc, 'parallel builds command lines from its input');
    if (name === 'env' && rest.some((w) => /^(-[a-zA-Z0-9]*S|--split-string)/.test(w.text))) return unknown(acc, 'env -S splits a string into a command');
    if (WRAPPERS.has(name)) wrapped = true;
  }
}

/** `eval ARGS`: its arguments, joined, are a command line. */
function evalRuns(rest: readonly Word[], depth: number, acc: ProgramRuns): void {
  if (rest.some((w) => !w.literal)) return unknown(acc, 'eval runs a line made by an expansion');
  merge(acc, programRuns(rest.map((w) => w.text).join(' '), depth + 1));
}

/**
 * A shell: the command line it is given (`-c 'LINE'`, parsed in turn; every literal argument is
 * parsed too, which may find more programs than bash would run, never fewer). Without `-c` it
 * runs its input or a script file; with an expansion it runs what the expansion makes.
 */
function shellRuns(name: string, rest: readonly Word[], depth: number, acc: ProgramRuns): void {
  if (rest.every((w) => w.literal && /^(--version|--help)$/.test(w.text))) {
    if (rest.length > 0) return;
    return unknown(acc, `${name} runs the commands it reads from its input`);
  }
  const c = rest.findIndex((w) => w.literal && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w.text));
  if (c < 0) return unknown(acc, `${name} runs the commands of a file or of its input`);
  if (rest.some((w) => !w.literal)) return unknown(acc, `${name} -c is given an expansion`);
  for (const w of rest.slice(c + 1)) merge(acc, programRuns(w.text, depth + 1));
}

/** awk runs programs through `system(…)`, pipes (`print | "cmd"`, `"cmd" | getline`) and loaded extensions. */
function awkRuns(name: string, rest: readonly Word[], acc: ProgramRuns): void {
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i];
    if (!w.literal) return unknown(acc, `${name} is given an expansion`);
    if (/^(-f|--file|-l|--load|-E|--exec|-i|--include)/.test(w.text) || /^-[^-]*[fEil]/.test(w.text)) return unknown(acc, `${name} runs a program file`);
    if (/^(-F|-v)$/.test(w.text)) i++;
    else if (!w.text.startsWith('-')) {
      if (/system|\||@load/.test(w.text)) return unknown(acc, `${name}'s program may run commands (system, a pipe)`);
      return;
    }
  }
}

/** find runs the command after each `-exec`, `-execdir`, `-ok` and `-okdir`, up to `;` or `+`. */
function findRuns(rest: readonly Word[], depth: number, acc: ProgramRuns): void {
  for (let i = 0; i < rest.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(rest[i].text)) continue;
    const end = rest.findIndex((w, j) => j > i && (w.text === ';' || w.text === '+'));
    runsOf(rest.slice(i + 1, end < 0 ? undefined : end), depth + 1, acc);
    if (end < 0) return;
    i = end;
  }
}

/** xargs options that take a value in the next word. */
const XARGS_VALUED = new Set(['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var']);

/**
 * xargs runs its program with words from its input: only a program that runs nothing whatever its
 * arguments (`rm`, `cat`, `grep`…) is known; a shell, a wrapper or anything else might be handed
 * its program through those words (`echo rm x | xargs env`).
 */
function xargsRuns(rest: readonly Word[], depth: number, acc: ProgramRuns): void {
  let i = 0;
  for (; i < rest.length && rest[i].text.startsWith('-') && rest[i].text !== '--'; i++) if (XARGS_VALUED.has(rest[i].text)) i++;
  if (rest[i]?.text === '--') i++;
  const program = rest[i];
  if (program === undefined) return;
  if (!program.literal) return unknown(acc, `xargs runs ${quoted(program)}, which may be any program`);
  if (!RUNS_NOTHING.has(baseName(program.text))) return unknown(acc, `xargs hands its input to ${program.text}, which may run other programs with it`);
  runsOf(rest.slice(i), depth + 1, acc);
}

/** A path a command names, as written: literal, or a glob pattern bash would expand. */
export interface PathWord {
  text: string;
  glob: boolean;
}

/**
 * The words of a line that may name files: every argument, the value of `--opt=VALUE`, the path
 * glued to a short option (`-f/etc/x`), every redirection target; `$HOME` and `${HOME}` at a
 * word's start read as `~`. Other expansions are left out (no one can say what they name).
 */
export function pathWords(line: string | ParsedLine): PathWord[] {
  const parsed = typeof line === 'string' ? parseLine(line) : line;
  const words = parsed.commands.flatMap((c) => [
    ...c.words.slice(1), ...c.redirects.filter((r) => !/^(\d+|-)$/.test(r.target.text)).map((r) => r.target),
  ]);
  return words.flatMap((w) => {
    const text = w.literal || w.glob ? w.text : homeSpelled(w.text);
    if (text === undefined) return [];
    const glob = w.glob;
    if (!text.startsWith('-')) return [{ text, glob }];
    const value = text.includes('=') ? [text.slice(text.indexOf('=') + 1)] : [];
    const glued = /^-[^-]/.test(text) && /[/~]/.test(text) ? [text.slice(text.search(/[/~]/))] : [];
    return [...value, ...glued].filter((v) => v !== '').map((v) => ({ text: v, glob }));
  });
}

/** `$HOME/x` or `${HOME}/x` as `~/x`; undefined for a word with any other expansion. */
function homeSpelled(text: string): string | undefined {
  const m = /^(\$HOME|\$\{HOME\})(?=\/|$)/.exec(text);
  if (!m) return undefined;
  const rest = text.slice(m[0].length);
  return /[$`]/.test(rest) ? undefined : `~${rest}`;
}

/** Programs that change the files their operands name (all of them, or as noted in `targets`). */
const FILE_CHANGERS = new Set(['rm', 'rmdir', 'mv', 'cp', 'ln', 'install', 'mkdir', 'touch', 'chmod', 'chown', 'chgrp', 'tee', 'truncate', 'shred', 'unlink', 'mkfifo', 'mknod', 'dd', 'rsync']);

/**
 * The files a line says it writes: every redirection target that writes (`>`, `>>`, `&>`, `<>`…,
 * not a descriptor), and the operands of programs that change files (`cp`'s and `ln`'s last one,
 * `chmod`'s after its mode, dd's `of=`). Only what the line names: what a program writes on its
 * own is the sandbox's to refuse.
 */
export function writtenPaths(parsed: ParsedLine): PathWord[] {
  const out: PathWord[] = [];
  const add = (w: Word | undefined) => {
    if (!w) return;
    const text = w.literal || w.glob ? w.text : homeSpelled(w.text);
    if (text !== undefined) out.push({ text, glob: w.glob });
  };
  for (const c of parsed.commands) {
    for (const r of c.redirects) if (/>|<>/.test(r.op) && !/^(\d+|-)$/.test(r.target.text)) add(r.target);
    const name = c.words[0]?.literal ? baseName(c.words[0].text) : undefined;
    if (!name || !FILE_CHANGERS.has(name)) continue;
    const operands = c.words.slice(1).filter((w) => !w.text.startsWith('-') || !w.literal);
    if (name === 'dd') c.words.filter((w) => w.text.startsWith('of=')).forEach((w) => add({ ...w, text: w.text.slice(3) }));
    else if (name === 'cp' || name === 'ln' || name === 'install' || name === 'rsync') add(operands.at(-1));
    else if (name === 'chmod' || name === 'chown' || name === 'chgrp' || name === 'mknod') operands.slice(1).forEach(add);
    else operands.forEach(add);
  }
  return out;
}
