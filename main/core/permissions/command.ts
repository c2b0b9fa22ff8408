/**
 * Judges a shell command line for the permission gate, conservatively: a command is read-only
 * only if every simple command in it is a known read-only program, named exactly, with harmless
 * arguments (programs.ts). Anything the judge cannot follow (expansions, globs, redirections to
 * files, reserved words, odd quoting) is 'complex' and asks; it is never allowed silently.
 * This is the second line of defence: the OS sandbox (main/sandbox) is the first.
 */
import { READ_ONLY_PROGRAMS } from './programs.js';
import { looseWords, splitCommands } from './shellWords.js';

export { splitCommands } from './shellWords.js';

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

/** Programs that run the program named in their arguments: a rule about `rm` also sees `sudo rm`, `xargs rm`, `find -exec rm`. */
const WRAPPERS = new Set([
  'command', 'builtin', 'exec', 'env', 'nice', 'nohup', 'time', 'timeout', 'xargs', 'sudo', 'doas', 'stdbuf', 'setsid',
  'ionice', 'chrt', 'taskset', 'unbuffer', 'busybox', 'watch', 'flock', 'strace', 'ltrace', 'nsenter', 'unshare',
  'chroot', 'find', 'parallel', 'script', 'caffeinate', 'torsocks', 'proxychains',
]);
/** Programs whose arguments are command lines of their own (`sh -c 'rm x'`, `eval 'rm x'`). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'fish', 'eval', 'source', '.', 'su']);

export function classifyCommand(command: string): CommandClass {
  const parts = splitCommands(command);
  if (!parts) return 'complex';
  let result: CommandClass = 'read-only';
  for (const words of parts) {
    const kind = classifyWords(words);
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

/** The program a word names, as a rule sees it: `/bin/rm` and `./rm` are `rm`. */
export function baseName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * Every program a line may run, each with the words that follow it: each simple command, every
 * later position once a wrapper program appears in it (`sudo`, `xargs`, `find`…), and the simple
 * commands of a shell's string arguments (`bash -c '…'`). A line the judge cannot follow is
 * split loosely, every word a possible program. Rules that deny or ask match against these, so
 * `/bin/rm`, `\rm`, `ls; rm` and `sudo rm` are all `rm` to them.
 */
export function programRuns(line: string, depth = 0): string[][] {
  const commands = splitCommands(line);
  if (!commands) {
    const words = looseWords(line);
    return words.map((_, i) => words.slice(i));
  }
  return commands.flatMap((words) => runsOf(words, depth));
}

function runsOf(words: string[], depth: number): string[][] {
  const runs: string[][] = [];
  let wrapped = false;
  for (let i = 0; i < words.length && (i === 0 || wrapped); i++) {
    const name = baseName(words[i]);
    runs.push(words.slice(i));
    if (SHELLS.has(name) && depth < 4) for (const w of words.slice(i + 1)) runs.push(...programRuns(w, depth + 1));
    if (WRAPPERS.has(name)) wrapped = true;
  }
  return runs;
}

/**
 * The words of a line that may name files: every argument, the value of `--opt=VALUE`, and the
 * path glued to a short option (`-f/etc/x`). A line the judge cannot follow gives its loose words.
 */
export function pathWords(line: string): string[] {
  const args = (splitCommands(line) ?? [looseWords(line)]).flatMap((w) => w.slice(1));
  return args.flatMap((w) => {
    if (!w.startsWith('-')) return [w];
    const value = w.includes('=') ? [w.slice(w.indexOf('=') + 1)] : [];
    const glued = /^-[^-]/.test(w) && /[/~]/.test(w) ? [w.slice(w.search(/[/~]/))] : [];
    return [...value, ...glued].filter((v) => v !== '');
  });
}
