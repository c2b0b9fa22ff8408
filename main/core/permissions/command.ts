/**
 * Judges a shell command line for the permission gate, conservatively: a command is read-only
 * only if every part of it is a known read-only program with harmless arguments. Anything the
 * judge cannot follow (substitutions, redirections to files, unknown programs, odd quoting) is
 * 'complex' and asks; it is never allowed silently.
 */
export type CommandClass = 'read-only' | 'effects' | 'network' | 'complex';

const READ_ONLY = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'pwd', 'echo', 'printf', 'grep', 'egrep', 'fgrep', 'rg', 'find', 'file', 'stat', 'du',
  'df', 'tree', 'sort', 'uniq', 'diff', 'cmp', 'which', 'whoami', 'date', 'true', 'false', 'basename', 'dirname', 'realpath',
  'cut', 'tr', 'nl', 'sha256sum', 'md5sum', 'less', 'more', 'env', 'uname', 'test', '[',
]);
const READ_ONLY_GIT = new Set(['status', 'diff', 'log', 'show', 'branch', 'blame', 'ls-files', 'rev-parse', 'grep']);
const NETWORK = new Set(['curl', 'wget', 'ssh', 'scp', 'sftp', 'rsync', 'nc', 'ncat', 'telnet', 'ftp', 'ping', 'dig', 'nslookup', 'http', 'https']);
const NETWORK_SUBCOMMANDS: Record<string, Set<string>> = {
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
};
/** find's actions that change things or run programs. */
const FIND_EFFECTS = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/;

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

function classifyWords(words: string[]): CommandClass {
  const [program, sub] = words;
  if (program === undefined) return 'complex';
  if (/^\w+=/.test(program)) return 'complex';
  const name = program.split('/').pop()!;
  if (NETWORK.has(name)) return 'network';
  const networkSubs = NETWORK_SUBCOMMANDS[name];
  if (networkSubs && (networkSubs.has('*') || (sub !== undefined && networkSubs.has(sub)))) return 'network';
  if (name === 'git') return sub !== undefined && READ_ONLY_GIT.has(sub) ? 'read-only' : 'effects';
  if (name === 'find' && words.some((w) => FIND_EFFECTS.test(w))) return 'effects';
  if (name === 'env' && words.length > 1) return 'complex';
  return READ_ONLY.has(name) ? 'read-only' : 'effects';
}

/**
 * Splits a command line into simple commands joined by `;`, `&&`, `||` and `|`, with quotes
 * removed. Returns undefined where the line does more than the judge can follow: command or
 * process substitution, backticks, redirection to anything but /dev/null or another descriptor,
 * background `&`, subshells, here-documents, unbalanced quotes, line continuations.
 */
export function splitCommands(line: string): string[][] | undefined {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length === 0) return false;
    commands.push(words);
    words = [];
    return true;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return undefined;
      word += line.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '$' || line[j] === '`') return undefined;
        if (line[j] === '\\') j++;
      }
      if (j >= line.length) return undefined;
      word += line.slice(i + 1, j).replace(/\\(.)/g, '$1');
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= line.length || line[i + 1] === '\n') return undefined;
      word += line[++i];
      inWord = true;
    } else if (c === '$' || c === '`' || c === '(' || c === ')' || c === '{' || c === '}' || c === '<') {
      return undefined;
    } else if (c === '>') {
      // Only `>/dev/null`, `2>/dev/null`, `2>&1` (no file is written).
      const rest = line.slice(i);
      const m = /^>{1,2}\s*(\/dev\/null|&\d)/.exec(rest);
      if (!m || (inWord && !/^\d$/.test(word))) return undefined;
      word = '';
      inWord = false;
      i += m[0].length - 1;
    } else if (c === ';' || c === '|' || c === '&' || c === '\n') {
      if (c === '&' && line[i + 1] !== '&') return undefined;
      if (!endCommand()) return undefined;
      if ((c === '&' || c === '|') && line[i + 1] === c) i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '*' || c === '?' || c === '[' || c === '~') {
      word += c;
      inWord = true;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (!endCommand() && commands.length === 0) return undefined;
  return commands;
}
