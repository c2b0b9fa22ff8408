/**
 * The programs the judge lets run without approval, each with the check its arguments must pass.
 * A program is known by its exact name, with no `/` (`./ls` or `bin/echo` could be anything the
 * workspace holds). A check refuses every option that writes a file, runs another program or
 * changes the system (`sort -o`, `git grep -O`, `find -delete`, `sed w`…); options are refused
 * wholesale where they cluster (`-no` is `-n -o`), so a refusal may be wider than needed, never
 * narrower. This is the second line: the OS sandbox gives these commands no write access and no
 * network anyway.
 */

type Check = (args: string[]) => boolean;

const always: Check = () => true;

/** A single-dash cluster (`-rno`) holding any of `letters`. */
const clusterHas = (w: string, letters: string) => /^-[^-]/.test(w) && [...w.slice(1)].some((c) => letters.includes(c));
/**
 * `--NAME` or `--NAME=…` where NAME is a prefix of one of `names`: GNU getopt and git both accept
 * an abbreviated long option (`--out=F` is `--output=F`).
 */
const longIs = (w: string, ...names: string[]) => {
  if (!w.startsWith('--')) return false;
  const name = w.slice(2).split('=')[0];
  return name !== '' && names.some((n) => n.startsWith(name));
};

/** git subcommands that only read, and options of theirs that write files or run programs. */
const GIT_READ = new Set(['status', 'diff', 'log', 'show', 'blame', 'ls-files', 'rev-parse', 'grep']);
const gitArg = (sub: string) => (w: string) =>
  longIs(w, 'output', 'open-files-in-pager', 'ext-diff') || w.startsWith('-O') || (sub === 'grep' && clusterHas(w, 'O'));

const git: Check = ([sub, ...rest]) => {
  if (sub === undefined) return true;
  // `git branch` and `git tag` list; with any argument they create, move or delete.
  if (sub === 'branch' || sub === 'tag') return rest.length === 0;
  return GIT_READ.has(sub) && !rest.some(gitArg(sub));
};

const sort: Check = (args) => !args.some((w) => longIs(w, 'output', 'compress-program', 'temporary-directory') || clusterHas(w, 'oT'));

/** uniq's second operand is its output file. */
const uniq: Check = (args) => {
  let operands = 0;
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (w === '--') {
      operands += args.length - i - 1;
      break;
    }
    if (['-f', '-s', '-w', '--skip-fields', '--skip-chars', '--check-chars'].includes(w)) i++;
    else if (!w.startsWith('-') || w === '-') operands++;
  }
  return operands < 2;
};

const FIND_EFFECTS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
const find: Check = (args) => !args.some((w) => FIND_EFFECTS.has(w));

const rg: Check = (args) => !args.some((w) => longIs(w, 'pre', 'pre-glob', 'hostname-bin'));
const tree: Check = (args) => !args.some((w) => longIs(w, 'output') || clusterHas(w, 'oR'));
const file: Check = (args) => !args.some((w) => longIs(w, 'compile') || clusterHas(w, 'C'));
/** `date -s` and `date MMDDhhmm` set the clock; only `+FORMAT` operands are read-only. */
const date: Check = (args) => {
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (longIs(w, 'set') || clusterHas(w, 's')) return false;
    if (['-d', '-f', '-r', '--date', '--file', '--reference'].includes(w)) i++;
    else if (!w.startsWith('-') && !w.startsWith('+')) return false;
  }
  return true;
};

const SED_LONG_PRINTING = ['quiet', 'silent', 'debug', 'posix', 'regexp-extended', 'separate', 'sandbox', 'unbuffered', 'null-data', 'zero-terminated', 'line-length', 'help', 'version'];

/** sed: no in-place editing, no script file it cannot see, and scripts without w/W/e/r/R. */
const sed: Check = (args) => {
  const scripts: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (w === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (w.startsWith('--')) {
      // A long option: a (possibly abbreviated) --expression, or one of those that only print.
      const value = w.includes('=') ? [w.slice(w.indexOf('=') + 1)] : [];
      if (longIs(w, 'in-place', 'file', 'follow-symlinks') || !longIs(w, 'expression', ...SED_LONG_PRINTING)) return false;
      if (longIs(w, 'expression')) {
        if (value.length > 0) scripts.push(value[0]);
        else if (i + 1 < args.length) scripts.push(args[++i]);
        else return false;
      } else if (longIs(w, 'line-length') && value.length === 0) i++;
      continue;
    }
    if (/^-[^-]*[if]/.test(w)) return false;
    if (/^-[^-]*e/.test(w)) {
      // `-ne 'p'` or `-e'p'`: the script follows the e, or is the next word.
      const rest = w.slice(w.indexOf('e') + 1);
      if (rest !== '') scripts.push(rest);
      else if (i + 1 < args.length) scripts.push(args[++i]);
      else return false;
    } else if (w === '-l') i++;
    else if (!w.startsWith('-') || w === '-') operands.push(w);
  }
  if (scripts.length === 0) {
    const first = operands.shift();
    if (first === undefined) return false;
    scripts.push(first);
  }
  return scripts.every(sedScriptReadOnly);
};

/**
 * Whether a sed script only prints: it is parsed command by command, and anything not
 * understood, or a command that writes (`w`, `W`, the `w` flag of `s`), runs (`e`, the `e`
 * flag) or reads another file (`r`, `R`), makes it not read-only.
 */
export function sedScriptReadOnly(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skip = (chars: string) => {
    while (i < n && chars.includes(script[i])) i++;
  };
  /** A delimited part (`/re/`, or the parts of s and y): returns false if it never closes. */
  const delimited = (delim: string): boolean => {
    for (; i < n; i++) {
      if (script[i] === '\\') i++;
      else if (script[i] === delim) {
        i++;
        return true;
      } else if (script[i] === '\n') return false;
    }
    return false;
  };
  const address = (): boolean => {
    if (script[i] === '/') {
      i++;
      if (!delimited('/')) return false;
      skip('IM');
    } else if (script[i] === '\\') {
      const delim = script[i + 1];
      if (delim === undefined || delim === '\n' || delim === '\\') return false;
      i += 2;
      if (!delimited(delim)) return false;
      skip('IM');
    } else if (script[i] === '$') i++;
    else if (/[0-9+~]/.test(script[i] ?? '')) {
      i++;
      skip('0123456789');
    }
    return true;
  };
  while (true) {
    skip(' \t\n;');
    if (i >= n) return true;
    if (script[i] === '#') {
      while (i < n && script[i] !== '\n') i++;
      continue;
    }
    if (!address()) return false;
    skip(' \t');
    if (script[i] === ',' || script[i] === '~') {
      i++;
      skip(' \t');
      if (!address()) return false;
    }
    skip(' \t');
    if (script[i] === '!') {
      i++;
      skip(' \t');
    }
    const cmd = script[i++];
    if (cmd === undefined) return false;
    if ('{}=dDgGhHnNpPxzF'.includes(cmd)) continue;
    if ('qQlL'.includes(cmd)) {
      skip(' \t');
      skip('0123456789');
    } else if (':btT'.includes(cmd)) {
      while (i < n && script[i] !== '\n' && script[i] !== ';') i++;
    } else if ('aic'.includes(cmd)) {
      // Text to the end of the line (a backslash-newline continues it).
      for (; i < n && script[i] !== '\n'; i++) if (script[i] === '\\') i++;
    } else if (cmd === 's' || cmd === 'y') {
      const delim = script[i++];
      if (delim === undefined || delim === '\n' || delim === '\\') return false;
      if (!delimited(delim) || !delimited(delim)) return false;
      if (cmd === 's') {
        const start = i;
        while (i < n && !' \t\n;}'.includes(script[i])) i++;
        if (!/^[gpiImM0-9]*$/.test(script.slice(start, i))) return false;
      }
    } else return false;
    skip(' \t');
    if (i < n && !'\n;}'.includes(script[i])) return false;
  }
}

/** The read-only programs and their checks. `env`, `less` and `more` are not here: `env` prints secrets and runs programs, the pagers run preprocessors. */
export const READ_ONLY_PROGRAMS: ReadonlyMap<string, Check> = new Map(Object.entries({
  ls: always, cat: always, head: always, tail: always, wc: always, pwd: always, echo: always, printf: always,
  grep: always, egrep: always, fgrep: always, stat: always, du: always, df: always, diff: always, cmp: always,
  which: always, whoami: always, true: always, false: always, basename: always, dirname: always, realpath: always,
  cut: always, tr: always, nl: always, sha256sum: always, md5sum: always, uname: always, test: always, '[': always,
  seq: always,
  git, sort, uniq, find, rg, tree, file, date, sed,
}));

/**
 * Programs that read the contents of whole folders: naming a folder that holds a secret is as
 * good as naming the secret. (`ls`, `find`, `du` and `tree` list names only.)
 */
export const RECURSIVE_READERS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'diff', 'git']);

/**
 * Programs that run no other program, whatever their arguments: what xargs may hand its input to
 * with every program it runs still known.
 */
export const RUNS_NOTHING = new Set([
  'rm', 'rmdir', 'mv', 'cp', 'ln', 'mkdir', 'touch', 'chmod', 'chown', 'chgrp', 'unlink', 'truncate', 'shred',
  'cat', 'echo', 'printf', 'ls', 'wc', 'head', 'tail', 'grep', 'egrep', 'fgrep', 'stat', 'du', 'basename', 'dirname',
  'realpath', 'readlink', 'md5sum', 'sha1sum', 'sha256sum', 'cut', 'tr', 'nl', 'kill', 'sleep', 'true', 'false', 'file',
]);

/**
 * Why a program given these arguments may run a program they name (`git -c core.pager=…`,
 * `rg --pre=…`, `sort --compress-program=…`, `tar -I …`, sed's `e`), or undefined. Such a
 * program's runs are not all on the line.
 */
export function runsFromArguments(program: string, args: string[]): string | undefined {
  const check = PROGRAM_OPTIONS.get(program);
  return check?.(args) ? `${program} is given an option that runs a program` : undefined;
}

const GIT_RUNS = new Set(['bisect', 'difftool', 'mergetool', 'filter-branch', 'filter-repo', 'submodule', 'send-email', 'rebase', 'archive']);
const PROGRAM_OPTIONS: ReadonlyMap<string, Check> = new Map(Object.entries({
  git: (args) => args.some((w) => /^(-c|--config-env|--exec-path|-x|--exec|--extcmd|--upload-pack|--receive-pack|--open-files-in-pager|--ext-diff)/.test(w) || GIT_RUNS.has(w) || /^-[^-]*O/.test(w)),
  rg: (args) => args.some((w) => longIs(w, 'pre', 'hostname-bin')),
  sort: (args) => args.some((w) => longIs(w, 'compress-program')),
  tar: (args) => args.some((w) => longIs(w, 'use-compress-program', 'to-command', 'checkpoint-action', 'info-script', 'new-volume-script', 'rsh-command', 'rmt-command') || clusterHas(w, 'IF')),
  zip: (args) => args.some((w) => w === '-TT' || longIs(w, 'unzip-command')),
  rsync: (args) => args.some((w) => longIs(w, 'rsh', 'rsync-path') || clusterHas(w, 'e')),
  ssh: (args) => args.some((w) => clusterHas(w, 'oFS')),
  scp: (args) => args.some((w) => clusterHas(w, 'oFS')),
  man: (args) => args.some((w) => longIs(w, 'pager', 'html') || clusterHas(w, 'PH')),
  less: always, more: always,
  sed: (args) => {
    const withoutInPlace = args.filter((w) => !longIs(w, 'in-place')).map((w) => (/^-[^-]*i/.test(w) ? w.slice(0, w.indexOf('i')) : w)).filter((w) => w !== '-');
    return !sed(withoutInPlace);
  },
}));
