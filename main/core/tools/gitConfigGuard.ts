/**
 * Where no sandbox runs a command, a repository's own configuration must not run programs from
 * it: `core.fsmonitor` runs on a plain `git status`, `diff.external` and textconv drivers on
 * `git diff`/`git log -p`, filters on `git add`/`checkout`, hooks on `commit`… A cloned repository
 * writes its `.git/config` itself. So every command gets git configuration of the command line's
 * scope (GIT_CONFIG_COUNT/KEY_n/VALUE_n, which outranks every file) that makes each of those
 * harmless: the fixed keys below, and for each driver, alias, pager or helper the repository's
 * own files define (local and worktree scope, includes followed), a value that runs nothing but
 * `cat` or `diff`. The person's own global and system configuration stays as it is: theirs.
 */
import { execFileSync } from 'node:child_process';

/** An external diff that only shows the change: git passes `path old-file old-hex old-mode new-file …`. */
const PLAIN_DIFF = 'f() { diff -u --label "a/$1" --label "b/$1" "$2" "$5"; return 0; }; f';

const FIXED: readonly [string, string][] = [
  ['core.fsmonitor', 'false'], ['core.hooksPath', '/dev/null'], ['core.sshCommand', 'ssh'], ['core.pager', 'cat'],
  ['core.editor', 'true'], ['sequence.editor', 'true'], ['credential.helper', ''], ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'], ['push.gpgSign', 'false'], ['protocol.ext.allow', 'never'], ['core.alternateRefsCommand', 'true'],
  ['core.gitProxy', ''],
];

/** For a key the repository defines, the value that runs nothing (undefined: the key runs nothing). */
function neutral(key: string): string | undefined {
  const k = key.toLowerCase();
  if (/^filter\..+\.(clean|smudge)$/.test(k)) return 'cat';
  if (/^filter\..+\.process$/.test(k)) return '';
  if (/^filter\..+\.required$/.test(k)) return 'false';
  if (/^diff\..+\.textconv$/.test(k)) return 'cat';
  if (/^diff\..+\.command$/.test(k) || k === 'diff.external') return PLAIN_DIFF;
  if (/^merge\..+\.driver$/.test(k)) return 'false';
  if (/^(difftool|mergetool)\..+\.cmd$/.test(k) || /^trailer\..+\.(command|cmd)$/.test(k)) return 'false';
  if (/^pager\./.test(k) || k === 'core.pager') return 'cat';
  if (/^alias\./.test(k)) return '';
  if (/^credential\..+\.helper$/.test(k)) return '';
  if (/^remote\..+\.uploadpack$/.test(k)) return 'git-upload-pack';
  if (/^remote\..+\.receivepack$/.test(k)) return 'git-receive-pack';
  if (/^submodule\..+\.update$/.test(k)) return 'checkout';
  if (/^gpg\.(.+\.)?program$/.test(k)) return 'false';
  return undefined;
}

/** Whether git runs (or signs, or connects through) a program that `key` names. */
export function namesProgram(key: string): boolean {
  const k = key.toLowerCase();
  return neutral(k) !== undefined || FIXED.some(([fixed]) => fixed.toLowerCase() === k) || /^(commit|tag|push)\.gpgsign$/.test(k) || k.endsWith('.helper');
}

/** The repository's own configuration keys (local and worktree scope) in `root`; none where git cannot say. */
function ownKeys(root: string): string[] {
  try {
    const out = execFileSync('git', ['config', '--list', '--show-scope', '--name-only', '--includes'], {
      cwd: root, encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, GIT_CONFIG_NOSYSTEM: '1' },
    });
    return out.split('\n').map((l) => /^(local|worktree)\t(.+)$/.exec(l)?.[2]).filter((k): k is string => !!k);
  } catch {
    return [];
  }
}

/** The environment that makes git in `root` run nothing its repository's files name (add it to the command's). */
export function neutralGitEnv(root: string): Record<string, string> {
  const pairs = new Map<string, string>(FIXED);
  for (const key of ownKeys(root)) {
    const value = neutral(key);
    if (value !== undefined) pairs.set(key, value);
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.size), GIT_PAGER: 'cat', GIT_EDITOR: 'true', GIT_TERMINAL_PROMPT: '0' };
  [...pairs].forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
