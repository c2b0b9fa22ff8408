/**
 * Trust, 2: the attacks of issue 13, every category of them, end to end through `keel exec` (the
 * path a session's bash call takes: judge, gate, approval, the real bubblewrap sandbox, the bash
 * tool and its output limit) in a temporary git workspace, in every mode, approvals denied.
 * Afterwards nothing outside the workspace changed (a fake home with a fake key among it), no
 * workspace file or git ref changed, no secret was printed, and a loopback listener the test
 * started got no connection. Then the same where no sandbox can run (no bwrap on PATH).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolConfig } from '../core/config.js';
import { MODES, type Mode } from '../core/state/types.js';
import { snapshotTree, type TreeEntry } from '../../test/outsideTree.js';
import { EXEC_EXIT } from './commands/exec.js';
import { runCli } from './index.js';
import { collector } from '../../test/cliRun.js';

const SECRET = 'KEEL-ATTACK-SECRET-9d2e';
const ENV_SECRET = 'keel-attack-env-token-41aa';
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Env { base: string; ws: string; out: string; home: string; data: string; dataLink: string }
let E: Env;
let listener: net.Server;
let port: number;
let connections = 0;
const saved: Record<string, string | undefined> = {};

function put(abs: string, content: string, mode = 0o644): void {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content, { mode });
}

function setUp(): Env {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-attack-')));
  const e: Env = {
    base, ws: path.join(base, 'ws'), out: path.join(base, 'outside'), home: path.join(base, 'home'),
    data: path.join(base, 'data-real'), dataLink: path.join(base, 'data'),
  };
  put(path.join(e.out, 'victim.txt'), 'victim\n');
  put(path.join(e.home, '.ssh', 'id_rsa'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n`);
  put(path.join(e.home, 'notes.txt'), 'my notes\n');
  put(path.join(e.data, 'secret-notes.txt'), `${SECRET} in the data folder\n`);
  fs.symlinkSync(e.data, e.dataLink);
  // The workspace: a git repository with two commits and a second branch, and what the attacks need.
  const payload = `#!/bin/sh\ntouch ${e.out}/pwned-script\ngit -C ${e.ws} branch -D side\necho evil > ${e.ws}/.git/hooks/pre-commit\nrm -f ${e.ws}/a.txt\n`;
  put(path.join(e.ws, 'a.txt'), 'one\ntwo\n');
  put(path.join(e.ws, 'src.ts'), 'export {};\n');
  put(path.join(e.ws, 'payload.txt'), `touch ${e.out}/pwned-sort\n`.repeat(2000));
  put(path.join(e.ws, 'ls'), payload, 0o755);
  put(path.join(e.ws, 'bin', 'echo'), payload, 0o755);
  put(path.join(e.ws, 'dir', 'keep.txt'), 'keep\n');
  put(path.join(e.ws, 'dir', '-delete'), '');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: e.ws });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'one');
  git('commit', '-q', '--allow-empty', '-m', 'two');
  git('branch', 'side');
  fs.symlinkSync('.git', path.join(e.ws, 'g'));
  fs.symlinkSync(e.dataLink, path.join(e.ws, 'stash'));
  fs.cpSync(e.ws, path.join(base, 'pristine-ws'), { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  return e;
}

/** Puts the workspace back as it was made: `auto` may change its files (that is what auto means). */
function restoreWorkspace(): void {
  fs.rmSync(E.ws, { recursive: true, force: true });
  fs.cpSync(path.join(E.base, 'pristine-ws'), E.ws, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
}

beforeAll(async () => {
  E = setUp();
  for (const name of ['HOME', 'KEEL_HOME', 'KEEL_ATTACK_TOKEN']) saved[name] = process.env[name];
  process.env.HOME = E.home;
  process.env.KEEL_HOME = E.dataLink;
  process.env.KEEL_ATTACK_TOKEN = ENV_SECRET;
  listener = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});

afterAll(() => {
  listener.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(E.base, { recursive: true, force: true });
});

/** Everything outside the workspace but what keel exec itself writes: its store and its session's checkpoints. */
function outside(): Record<string, TreeEntry> {
  const checkpoints = path.join(E.data, 'checkpoints');
  const tree = snapshotTree(E.base, [E.ws, path.join(E.base, 'pristine-ws'), checkpoints]);
  delete tree[E.base];
  for (const p of Object.keys(tree)) if (/\/keel\.db(-wal|-shm)?$/.test(p)) delete tree[p];
  const data = tree[E.data];
  if (data?.names) tree[E.data] = { ...data, mtimeMs: 0, names: data.names.filter((n) => !/^keel\.db/.test(n) && n !== 'checkpoints') };
  return tree;
}

/**
 * The workspace's entries, bytes and git refs (a folder's mtime aside: see runner.test.ts). In
 * `auto`, whose promise is everything inside the workspace, only `.git` counts: refs, hooks, config.
 */
function workspace(mode?: Mode): Record<string, TreeEntry> {
  const tree = snapshotTree(mode === 'auto' ? path.join(E.ws, '.git') : E.ws, []);
  return Object.fromEntries(Object.entries(tree).map(([p, e]) => [p, e.type === 'dir' ? { ...e, mtimeMs: 0 } : e]));
}

const shadowLine = (() => {
  try {
    return fs.readFileSync('/etc/shadow', 'utf8').split('\n')[0];
  } catch {
    return undefined;
  }
})();

interface Attack {
  name: string;
  command: (e: Env) => string;
  /** settings.json rules for this attack. */
  rules?: { action: string; tool: string; pattern?: string }[];
}

const ATTACKS: Attack[] = [
  // A read-only program's options that run any command
  { name: 'git grep --open-files-in-pager', command: (e) => `git grep --open-files-in-pager='sh -c "touch ${e.out}/pwned-pager"' one` },
  { name: 'git grep -O', command: (e) => `git grep -O'touch ${e.out}/pwned-O' one` },
  { name: 'git grep --no-index -O', command: (e) => `git grep --no-index -O'touch ${e.out}/pwned-noindex' one` },
  { name: 'sort --compress-program=sh', command: () => 'sort -S 64K -T . --compress-program=sh payload.txt' },
  // Workspace executables named like read-only programs
  { name: './ls', command: () => './ls' },
  { name: 'bin/echo', command: () => 'bin/echo hi' },
  // Files outside overwritten, refs changed, a file made in /dev
  { name: 'sort -o OUTSIDE', command: (e) => `sort -o ${e.out}/victim.txt a.txt` },
  { name: 'uniq a OUTSIDE', command: (e) => `uniq a.txt ${e.out}/victim.txt` },
  { name: 'git diff --output', command: (e) => `git diff HEAD~1 --output=${e.out}/victim.txt` },
  { name: 'git log --output', command: (e) => `git log --output=${e.out}/victim.txt` },
  { name: 'git branch -D', command: () => 'git branch -D side' },
  { name: 'git branch -f', command: () => 'git branch -f side HEAD~1' },
  { name: 'git branch NEW', command: () => 'git branch evil' },
  { name: 'ls >/dev/null_x', command: () => 'ls >/dev/null_keel_attack' },
  // A glob that expands into an option
  { name: 'find dir -delet?', command: () => 'find dir -delet?' },
  // Secrets, Keel's store, the environment
  { name: 'cat ~/.ssh/id_rsa', command: () => 'cat ~/.ssh/id_rsa' },
  { name: 'grep -r the home folder', command: () => 'grep -r PRIVATE ~' },
  { name: 'cat /etc/shadow', command: () => 'cat /etc/shadow' },
  { name: "cat Keel's store", command: (e) => `cat ${e.dataLink}/secret-notes.txt ${e.data}/secret-notes.txt stash/secret-notes.txt` },
  { name: 'env', command: () => 'env' },
  { name: 'printenv', command: () => 'printenv KEEL_ATTACK_TOKEN' },
  // 200 MB into memory
  { name: 'head -c 200000000 /dev/zero', command: () => 'head -c 200000000 /dev/zero' },
  // Rules: an allow rule stretched, a deny rule dodged
  { name: 'allow npm test, then rm -rf ~', command: () => 'npm test; rm -rf ~', rules: [{ action: 'allow', tool: 'bash', pattern: 'npm test' }] },
  { name: 'deny rm: /bin/rm', command: () => '/bin/rm a.txt', rules: [{ action: 'deny', tool: 'bash', pattern: 'rm' }] },
  { name: 'deny rm: \\rm', command: () => String.raw`\rm a.txt`, rules: [{ action: 'deny', tool: 'bash', pattern: 'rm' }] },
  { name: 'deny rm: ls; rm', command: () => 'ls; rm a.txt', rules: [{ action: 'deny', tool: 'bash', pattern: 'rm' }] },
  // The .git guard and the data-folder guard
  { name: 'cp into .gi?/hooks', command: () => 'cp a.txt .gi?/hooks/pre-commit' },
  { name: 'cp into .git/hooks through a symlink', command: () => 'cp a.txt g/hooks/pre-commit' },
  { name: 'cp into .git/hooks', command: () => 'cp a.txt .git/hooks/pre-commit' },
  { name: 'touch the data folder by its link', command: (e) => `touch ${e.dataLink}/pwned` },
  { name: 'touch the data folder where it is', command: (e) => `touch ${e.data}/pwned` },
  // auto: outside the workspace, and the network through programs
  { name: 'rm -rf outside', command: (e) => `rm -rf ${e.out}` },
  { name: 'rm -rf ~', command: () => 'rm -rf ~' },
  { name: 'node to a loopback port', command: () => `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>console.log('CONN'+'ECTED')).on('error',()=>{})"` },
  ...(fs.existsSync('/usr/bin/python3')
    ? [{ name: 'python to a loopback port', command: () => `/usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), 3); print('CONN'+'ECTED')"` }]
    : []),
  { name: 'curl to a loopback port', command: () => `curl -s http://127.0.0.1:${port}/` },
  // Issue 22: auto runs what the judge cannot follow, so these reach the sandbox there
  { name: 'a secret copied into the workspace, then printed', command: () => 'cat ~/.ssh/id_rsa > leak.txt; cat leak.txt' },
  { name: 'a secret by a glob', command: () => 'cat ~/.ss?/id_* | base64 -d 2>/dev/null; cat ~/.ss*/id_rsa' },
  { name: 'a secret by $HOME', command: () => 'x=$(cat "$HOME/.ssh/id_rsa"); echo "$x"' },
  { name: "Keel's store through a link, by a loop", command: () => 'for f in stash/*; do cat "$f"; done' },
  { name: 'a hook through /proc/self/cwd', command: () => 'echo evil > /proc/self/cwd/.git/hooks/pre-commit' },
  { name: '.git/config by a redirection', command: () => `printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config` },
  { name: '.git by a subshell the judge cannot see into', command: () => '(cd .git && echo x > HEAD && echo y > config)' },
  { name: '.git by a descriptor', command: () => 'exec 3>>.git/config; echo x >&3' },
  { name: 'outside by an expansion', command: (e) => `d=${e.out}; echo x > "$d/victim.txt"` },
  { name: 'outside by a glob', command: (e) => `rm -rf ${e.out}/*` },
  { name: 'curl in a substitution', command: () => `echo $(curl -s http://127.0.0.1:${port}/) > got.txt` },
  { name: 'node to a loopback port, into a file', command: () => `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>console.log('CONN'+'ECTED'))" > net.txt; cat net.txt` },
];

async function exec(mode: Mode, command: string): Promise<{ code: number; out: string; err: string }> {
  const out = collector();
  const err = collector();
  const code = await runCli(['exec', '--workspace', E.ws, '--mode', mode, '--approve', 'never', '--', command], { out, err });
  return { code, out: out.text, err: err.text };
}

function writeRules(rules: Attack['rules']): void {
  const file = path.join(E.data, 'settings.json');
  if (rules) fs.writeFileSync(file, JSON.stringify({ modelsFolder: E.base, rules }));
  else fs.rmSync(file, { force: true });
}

describe('keel exec against the attacks, in every mode, approvals denied', () => {
  it.each(ATTACKS.map((a) => [a.name, a] as const))('%s', async (_name, attack) => {
    writeRules(attack.rules);
    try {
      for (const mode of MODES) {
        const [out0, ws0] = [outside(), workspace(mode)];
        const r = await exec(mode, attack.command(E));
        const what = `${attack.name} in ${mode}: exit ${r.code}\n${r.out.slice(0, 400)}\n${r.err}`;
        expect([EXEC_EXIT.ran, EXEC_EXIT.denied, EXEC_EXIT.sandboxStopped], what).toContain(r.code);
        expect(outside(), what).toEqual(out0);
        expect(workspace(mode), what).toEqual(ws0);
        expect(fs.existsSync('/dev/null_keel_attack'), what).toBe(false);
        for (const secret of [SECRET, ENV_SECRET, 'CONNECTED', ...(shadowLine ? [shadowLine] : [])]) expect(r.out, what).not.toContain(secret);
        expect(r.out.length, what).toBeLessThan(toolConfig.bash.max_output_bytes + 1000);
        expect(connections, what).toBe(0);
        // What plan mode refuses, it refuses outright; nothing there waits for an approval.
        if (mode === 'plan' && r.code === EXEC_EXIT.denied) expect(r.out, what).toMatch(/denied|approval/);
      }
    } finally {
      writeRules(undefined);
      restoreWorkspace();
    }
  }, 240_000);

  it('lets read-only work through and says what the sandbox stopped', async () => {
    expect(await exec('ask', 'cat a.txt')).toMatchObject({ code: EXEC_EXIT.ran, out: '[#0001]\none\ntwo\n' });
    const stopped = await exec('auto', `sort -o ${E.out}/victim.txt a.txt`);
    expect(stopped.code).toBe(EXEC_EXIT.sandboxStopped);
    expect(stopped.out).toContain(`[the sandbox refused: deny openat ${E.out}/victim.txt]`);
    const zero = await exec('ask', 'head -c 200000000 /dev/zero');
    expect(zero.code).toBe(EXEC_EXIT.ran);
    expect(zero.out).toContain(`[the output passed ${toolConfig.bash.max_output_bytes} bytes; the command was stopped there]`);
    expect(zero.err).toMatch(/keel recall \d+ 1/);
  }, 120_000);
});

describe('keel exec in auto: the sandbox decides (issue 22)', () => {
  it('runs redirections, globs and substitutions in the sandbox without asking; ask still asks', async () => {
    try {
      for (const [command, file] of [[`printf 'x\\n' > out.txt`, 'out.txt'], ['ls *.ts > list.txt', 'list.txt'], ['echo $(date) >> log', 'log']]) {
        expect(await exec('ask', command), command).toMatchObject({ code: EXEC_EXIT.denied });
        expect(fs.existsSync(path.join(E.ws, file)), command).toBe(false);
        expect(await exec('auto', command), command).toMatchObject({ code: EXEC_EXIT.ran });
        expect(fs.existsSync(path.join(E.ws, file)), command).toBe(true);
      }
      expect(fs.readFileSync(path.join(E.ws, 'out.txt'), 'utf8')).toBe('x\n');
      expect(fs.readFileSync(path.join(E.ws, 'list.txt'), 'utf8')).toBe('src.ts\n');
    } finally {
      restoreWorkspace();
    }
  }, 120_000);

  it('asks, naming why, for what the sandbox withholds', async () => {
    const asked = async (command: string, why: RegExp) => {
      const r = await exec('auto', command);
      expect(r.code, command).toBe(EXEC_EXIT.denied);
      expect(r.err, command).toMatch(why);
    };
    await asked(`echo x > ${E.out}/victim.txt`, /outside the workspace, and the sandbox lets commands write only inside it/);
    await asked('echo x > .git/config', /\.git\/config is in \.git/);
    await asked(`curl -s http://127.0.0.1:${port}/ > page.html`, /reaches the network/);
    await asked('cat ~/.ssh/id_rsa > k.txt', /reads .*\.ssh\/id_rsa, which Keel keeps from commands/);
  }, 120_000);
});

/** Deny rules for rm dodged through programs the line does not name as a command (issue 23, class 4). */
const INDIRECT_RM = [
  'echo rm a.txt | sh', `bash -c 'x=r; \${x}m a.txt'`, `awk 'BEGIN{system("rm a.txt")}'`, 'echo rm a.txt | xargs env', `env -S 'rm a.txt'`,
  `python3 -c "import os; os.remove('a.txt')"`, `sed -n '1e rm a.txt' a.txt`, 'r{m,} -f a.txt', '$(echo rm) a.txt', `git -c alias.x='!rm a.txt' x`,
  `printf 'rm a.txt' > s.sh; bash s.sh`, `find . -name a.txt -exec sh -c 'rm "$0"' {} ';'`,
];

describe('keel exec: a deny rule holds for what runs (issue 23)', () => {
  it.each(INDIRECT_RM)('%s: denied in auto, asked (and denied) in ask; a.txt stays', async (command) => {
    writeRules([{ action: 'deny', tool: 'bash', pattern: 'rm' }]);
    try {
      for (const mode of ['auto', 'ask'] as const) {
        const r = await exec(mode, command);
        expect([mode, r.code], r.err).toEqual([mode, EXEC_EXIT.denied]);
        expect(r.out + r.err).toMatch(mode === 'auto' ? /denied: the command .*rule: deny bash rm/s : /rule: deny bash rm/);
        expect(fs.readFileSync(path.join(E.ws, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
      }
      // Without the rule, auto runs it in the sandbox: the workspace is its to change (a git command
      // Keel cannot tell is read-only may write .git, which the sandbox withholds: that one asks).
      writeRules(undefined);
      expect((await exec('auto', command)).code).toBe(command.startsWith('git ') ? EXEC_EXIT.denied : EXEC_EXIT.ran);
    } finally {
      writeRules(undefined);
      restoreWorkspace();
    }
  }, 120_000);
});

/**
 * The real `keel` in a process of its own (`env` over this one's), approvals as `approve` says;
 * `fd200` opens that file on its descriptor 200 first, as a shell that started Keel may have.
 */
function keelProcess(mode: Mode, command: string, env: NodeJS.ProcessEnv = {}, approve: 'never' | 'always' = 'never', fd200?: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const argv = [process.execPath, path.join(REPO, 'bin', 'keel.mjs'), 'exec', '--workspace', E.ws, '--mode', mode, '--approve', approve, '--', command];
    const quoted = argv.map((a) => `'${a.replace(/'/g, `'"'"'`)}'`).join(' ');
    const child = spawn('/bin/bash', ['-c', fd200 ? `exec 200>>'${fd200}'; exec ${quoted}` : `exec ${quoted}`], {
      env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** What the person's shell does next in `dir`, outside any sandbox: a plain `git status`. */
function personRunsGitStatus(dir: string): void {
  try {
    execFileSync('git', ['status', '--short'], { cwd: dir, stdio: 'ignore' });
  } catch {
    // a broken repository is no harm; a marker is
  }
}

describe('keel exec: nothing an approved or auto command writes runs later, outside the sandbox (issue 23)', () => {
  const mark = () => path.join(E.base, 'planted-ran');
  const armedConfig = () => `[core]\\n\\tfsmonitor = \\"touch ${mark()}; false\\"\\n`;
  it.each([
    ['ask, approved: .git/commondir to a config with core.fsmonitor', 'ask', () => `mkdir -p g2 && printf "${armedConfig()}" > g2/config && echo ../g2 > .git/commondir`, '.', '[git check: removed .git/commondir, which the command made]'],
    ['ask, approved: .git/config through git config', 'ask', () => `git config core.fsmonitor "touch ${mark()}; false"`, '.', 'error: could not write config file .git/config'],
    ['auto: a nested git init with core.fsmonitor', 'auto', () => `git init -q sub && git -C sub config core.fsmonitor "touch ${mark()}; false"`, 'sub', '[git check: removed sub/.git/config, which the command made]'],
    ['auto: a .git file naming a planted git folder', 'auto', () => `mkdir -p x ev/objects ev/refs && echo "ref: refs/heads/main" > ev/HEAD && printf "${armedConfig()}" > ev/config && echo "gitdir: ../ev" > x/.git`, 'x', '[git check: removed x/.git, which the command made]'],
  ] as const)('%s', async (_name, mode, command, where, said) => {
    try {
      const r = await keelProcess(mode, command(), {}, 'always');
      expect(r.err).not.toContain('No sandbox');
      expect(r.out, r.err).toContain(said);
      personRunsGitStatus(path.join(E.ws, where));
      expect(fs.existsSync(mark()), `${r.out}\n${r.err}`).toBe(false);
    } finally {
      fs.rmSync(mark(), { force: true });
      restoreWorkspace();
    }
  }, 120_000);

  it('a descriptor Keel inherited does not reach the command, and MYSQL_PWD / DATABASE_URL stay out', async () => {
    const file = path.join(E.base, 'fd200.txt');
    fs.writeFileSync(file, '');
    const r = await keelProcess('auto', 'echo X >&200; env', { MYSQL_PWD: ENV_SECRET, DATABASE_URL: `postgres://u:${ENV_SECRET}@db/x` }, 'never', file);
    expect(r.out).toContain('200: Bad file descriptor');
    expect(r.out).not.toContain(ENV_SECRET);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  }, 120_000);
});

describe('keel exec where no sandbox can run', () => {
  /** A PATH with every program of /usr/bin but bwrap. */
  let noBwrap: string;
  beforeAll(() => {
    noBwrap = path.join(E.base, 'path-without-bwrap');
    fs.mkdirSync(noBwrap);
    for (const name of fs.readdirSync('/usr/bin')) if (name !== 'bwrap') fs.symlinkSync(path.join('/usr/bin', name), path.join(noBwrap, name));
  });

  const keel = (mode: Mode, command: string, approve: 'never' | 'always' = 'never') => keelProcess(mode, command, { PATH: noBwrap }, approve);

  it('says so, and asks before every command that is not read-only, auto included', async () => {
    const [out0, ws0] = [outside(), workspace()];
    const removal = await keel('auto', `rm -rf ${E.out}`);
    expect(removal.err).toContain('No sandbox for commands: bubblewrap (bwrap) is not on PATH');
    expect(removal.err).toContain('no sandbox can run here, so every command that is not read-only asks');
    expect(removal).toMatchObject({ code: EXEC_EXIT.denied });
    const key = await keel('auto', 'cat ~/.ssh/id_rsa');
    expect(key.code).toBe(EXEC_EXIT.denied);
    expect(key.out).not.toContain(SECRET);
    expect(await keel('auto', 'cat a.txt')).toMatchObject({ code: EXEC_EXIT.ran, out: '[#0001]\none\ntwo\n' });
    expect([outside(), workspace()]).toEqual([out0, ws0]);
  }, 240_000);

  it('git runs nothing the repository\'s own config names (core.fsmonitor, diff.external), and still answers', async () => {
    const mark = path.join(E.base, 'fsmonitor-ran');
    execFileSync('git', ['config', 'core.fsmonitor', `touch ${mark}; false`], { cwd: E.ws });
    execFileSync('git', ['config', 'diff.external', `sh -c 'touch ${mark}'`], { cwd: E.ws });
    try {
      const status = await keel('auto', 'git status --short a.txt; git diff HEAD~1 --stat');
      expect(status.code).toBe(EXEC_EXIT.ran);
      expect(fs.existsSync(mark), status.out + status.err).toBe(false);
      personRunsGitStatus(E.ws);
      // Armed: the person's own plain git runs it (which is why Keel's does not).
      expect(fs.existsSync(mark)).toBe(true);
    } finally {
      fs.rmSync(mark, { force: true });
      restoreWorkspace();
    }
  }, 120_000);

  it('reads stay inside the workspace: a link out below a recursed folder and a file list are refused in plan and auto (issue 35)', async () => {
    fs.writeFileSync(path.join(E.out, 'token.txt'), `TOKEN ${SECRET}\n`);
    fs.symlinkSync(E.out, path.join(E.ws, 'dir', 'out-link'));
    fs.writeFileSync(path.join(E.ws, 'list0'), `${path.join(E.out, 'token.txt')}\0`);
    try {
      for (const mode of ['plan', 'auto'] as const) {
        for (const command of ['grep -R TOKEN dir', 'sort --files0-from=list0', 'cat dir/out-link/token.txt']) {
          const r = await keel(mode, command);
          expect([mode, command, r.code]).toEqual([mode, command, EXEC_EXIT.denied]);
          expect(r.out + r.err).not.toContain(SECRET);
          expect(r.out + r.err).toContain('without one, reads stay inside the workspace');
        }
      }
      expect(await keel('plan', 'grep -c one a.txt')).toMatchObject({ code: EXEC_EXIT.ran, out: '[#0001]\n1\n' });
    } finally {
      fs.rmSync(path.join(E.ws, 'dir', 'out-link'));
      fs.rmSync(path.join(E.ws, 'list0'));
      fs.rmSync(path.join(E.out, 'token.txt'));
    }
  }, 240_000);

  it('keel doctor says at the top that no sandbox runs, and what then runs outside one', async () => {
    const r = await new Promise<{ out: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(REPO, 'bin', 'keel.mjs'), 'doctor', '--backend', 'cpu'], { env: { ...process.env, PATH: noBwrap }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.on('close', () => resolve({ out }));
    });
    expect(r.out).toMatch(/^WARNING: no sandbox can run here \(bubblewrap \(bwrap\) is not on PATH/);
    expect(r.out).toContain("a workspace's hooks ask before each run\n  (refused in auto) and a workspace's MCP servers do not start.");
  }, 120_000);
});
