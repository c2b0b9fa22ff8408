/**
 * Trust, 3: what a sandboxed command could leave behind or reach in issue 23's classes, through
 * the real bash tool on the real bubblewrap. Each attack is followed by what the person does
 * next, outside any sandbox (a plain `git status` in the folder, a write of ~/.netrc), and the
 * harm is looked for there: a marker file the planted program would make, a secret in the output.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../core/tools/bash.js';
import type { CommandAccess, CommandRunner } from '../core/tools/commandRunner.js';
import { makeContext } from '../../test/toolContext.js';
import { findSandboxPrograms } from './detect.js';
import { createSandboxRunner, sandboxStatus } from './runner.js';
import { usePrivateTmpdir } from '../../test/privateTmpdir.js';

const SECRET = 'KEEL-LATER-SECRET-3b91';
let base: string;
let root: string;
let home: string;
let marks: string;
let runner: CommandRunner;

const put = (abs: string, content: string) => {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
/** A git config that runs `touch MARKS/NAME` on the next `git status` (core.fsmonitor). */
const armed = (name: string) => `[core]\n\tfsmonitor = "touch ${marks}/${name}; false"\n`;
const marked = () => fs.readdirSync(marks);

async function run(command: string, access: CommandAccess, commands: CommandRunner = runner): Promise<string> {
  const out = await bashTool.run({ command, timeout_ms: 20_000 }, { ...makeContext(root), commands, access });
  if (out.kind !== 'text') throw new Error(`expected text, got ${JSON.stringify(out)}`);
  return out.body;
}

/** What the person's own shell does next in `dir`: a plain `git status`, no sandbox. */
function personRunsGitStatus(dir: string): void {
  try {
    execFileSync('git', ['status', '--short'], { cwd: dir, stdio: 'ignore' });
  } catch {
    // a broken repository is no harm; a marker is
  }
}

usePrivateTmpdir();

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-later-')));
  home = path.join(base, 'home');
  marks = path.join(base, 'marks');
  fs.mkdirSync(marks);
  put(path.join(home, 'readable.txt'), 'home file\n');
  put(path.join(home, 'id_ed25519'), `${SECRET} key by name\n`);
  put(path.join(home, 'server.pem'), `${SECRET} pem\n`);
  put(path.join(home, '.config', 'gh', 'hosts.yml'), `${SECRET} gh token\n`);
  put(path.join(home, '.config', 'tool.json'), 'tool settings\n');
  runner = createSandboxRunner({ dataFolder: path.join(base, 'data'), home, env: ['KEEL_LISTED_VAR'] });
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

beforeEach(() => {
  root = path.join(base, `ws-${Math.random().toString(36).slice(2, 8)}`);
  put(path.join(root, 'a.txt'), 'one\n');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'one');
  for (const m of marked()) fs.rmSync(path.join(marks, m));
});

describe('class 1: nothing a command writes runs later outside the sandbox', () => {
  it('runs here, in bubblewrap', async () => {
    expect(await sandboxStatus()).toMatchObject({ kind: 'sandboxed' });
  });

  it('an approved command: .git/commondir pointing at a config with core.fsmonitor is removed', async () => {
    const body = await run(`mkdir -p g && printf '${armed('commondir').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > g/config && echo ../g > .git/commondir; echo done`, 'git-write');
    expect(body).toContain('done');
    expect(body).toContain('[git check: removed .git/commondir, which the command made]');
    expect(fs.existsSync(path.join(root, '.git', 'commondir'))).toBe(false);
    personRunsGitStatus(root);
    expect(marked()).toEqual([]);
  });

  it.each([
    ['config', (m: string) => `printf '${m}' >> .git/config`],
    ['config.worktree and extensions', (m: string) => `printf '${m}' > .git/config.worktree; git config extensions.worktreeConfig true`],
    ['hooks', () => 'printf "#!/bin/sh\\ntouch MARK\\n" > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout'],
    ['info/attributes', () => 'echo "* filter=x" > .git/info/attributes'],
    ['worktrees/', () => 'mkdir -p .git/worktrees/w && echo ../g > .git/worktrees/w/commondir'],
    ['objects/info/alternates', () => 'echo /tmp > .git/objects/info/alternates'],
  ])('an approved command cannot leave %s changed', async (_name, command) => {
    const before = execFileSync('find', ['.git', '-path', '.git/objects/??', '-prune', '-o', '-print'], { cwd: root, encoding: 'utf8' });
    const config = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    await run(command(armed('own').replace(/\n/g, '\\n').replace(/\t/g, '\\t')), 'git-write');
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(config);
    expect(execFileSync('find', ['.git', '-path', '.git/objects/??', '-prune', '-o', '-print'], { cwd: root, encoding: 'utf8' })).toBe(before);
    personRunsGitStatus(root);
    expect(marked()).toEqual([]);
  });

  it('a rebase todo keeps no exec line the command added', async () => {
    const body = await run(`mkdir -p .git/rebase-merge && printf 'pick 0000000 x\\nexec touch ${marks}/rebase\\n' > .git/rebase-merge/git-rebase-todo`, 'git-write');
    expect(body).toContain('[git check: dropped 1 exec line(s) the command added to .git/rebase-merge/git-rebase-todo]');
    expect(fs.readFileSync(path.join(root, '.git', 'rebase-merge', 'git-rebase-todo'), 'utf8')).toBe('pick 0000000 x\n');
  });

  it.each(['workspace-write', 'git-write'] as const)('%s: a nested git init with core.fsmonitor is made harmless', async (access) => {
    const body = await run(`git init -q sub && git -C sub config core.fsmonitor "touch ${marks}/nested; false" && git -C sub config --get core.fsmonitor`, access);
    expect(body).toContain('touch');
    expect(body).toContain('[git check: removed sub/.git/config, which the command made]');
    personRunsGitStatus(path.join(root, 'sub'));
    expect(marked()).toEqual([]);
  });

  it('workspace-write: a .git file and a bare-looking folder with a config are made harmless', async () => {
    await run(`mkdir -p x evil/objects evil/refs && echo 'ref: refs/heads/main' > evil/HEAD && printf '${armed('gitfile').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > evil/config && echo 'gitdir: ../evil' > x/.git`, 'workspace-write');
    expect(fs.existsSync(path.join(root, 'x', '.git'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'evil', 'config'))).toBe(false);
    personRunsGitStatus(path.join(root, 'x'));
    personRunsGitStatus(path.join(root, 'evil'));
    expect(marked()).toEqual([]);
  });

  it('a nested repository that was there before is read-only whole, and so is .git/modules/NAME', async () => {
    git(root, 'init', '-q', 'inner');
    git(root, 'init', '-q', '--bare', '.git/modules/m');
    const inner = fs.readFileSync(path.join(root, 'inner', '.git', 'config'), 'utf8');
    const module = fs.readFileSync(path.join(root, '.git', 'modules', 'm', 'config'), 'utf8');
    for (const access of ['workspace-write', 'git-write'] as const) {
      await run(`printf '${armed('inner').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' >> inner/.git/config; printf '${armed('module').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' >> .git/modules/m/config`, access);
    }
    expect(fs.readFileSync(path.join(root, 'inner', '.git', 'config'), 'utf8')).toBe(inner);
    expect(fs.readFileSync(path.join(root, '.git', 'modules', 'm', 'config'), 'utf8')).toBe(module);
    personRunsGitStatus(path.join(root, 'inner'));
    expect(marked()).toEqual([]);
  });

  it('an approved git init where there was no repository keeps its plain config, not one that names a program', async () => {
    fs.rmSync(path.join(root, '.git'), { recursive: true });
    const plain = await run('git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && git log --oneline | wc -l', 'git-write');
    expect(plain).toMatch(/^1/);
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toContain('repositoryformatversion');
    fs.rmSync(path.join(root, '.git'), { recursive: true });
    const armedInit = await run(`git init -q && git config core.fsmonitor "touch ${marks}/init; false" && printf '#!/bin/sh\\ntouch ${marks}/hook\\n' > .git/hooks/post-checkout`, 'git-write');
    expect(armedInit).toContain('[git check: removed .git/config, which the command made]');
    expect(armedInit).toContain('[git check: removed .git/hooks/post-checkout, which the command made]');
    personRunsGitStatus(root);
    expect(marked()).toEqual([]);
  });

  it('controls: an approved commit, status, diff and log work, and the change to .git is shown', async () => {
    fs.writeFileSync(path.join(root, 'a.txt'), 'two\n');
    const body = await run('git status --short && git diff --stat && git -c user.name=t -c user.email=t@t commit -qam two && git log --oneline | wc -l', 'git-write');
    expect(body).toMatch(/^ M a\.txt$/m);
    expect(body).toMatch(/^ a\.txt \| 2 \+-\n 1 file changed, 1 insertion\(\+\), 1 deletion\(-\)\n2\n/m);
    expect(body).toMatch(/\[git check: the command changed .*COMMIT_EDITMSG.*index.* in \.git\]/);
    expect(git(root, 'log', '--oneline').trim().split('\n')).toHaveLength(2);
    expect(await run('git status --short; git log --oneline | wc -l', 'read-only')).toBe('2');
  });
});

describe('class 3: secrets by rule, whenever they appear', () => {
  it('~/.netrc written after the command started is not read through a link to it', async () => {
    const netrc = path.join(home, '.netrc');
    fs.rmSync(netrc, { force: true });
    const running = run(`ln -s ${netrc} "$TMPDIR/l"; timeout 4 tail -F "$TMPDIR/l" 2>&1; cat ${netrc}`, 'workspace-write');
    await new Promise((r) => setTimeout(r, 1500));
    fs.writeFileSync(netrc, `machine example.com login me password ${SECRET}\n`);
    const body = await running;
    fs.rmSync(netrc);
    expect(body).not.toContain(SECRET);
  });

  it('keys and certificates by name, a denied folder inside a readable one, shadow backups', async () => {
    for (const access of ['read-only', 'workspace-write', 'git-write'] as const) {
      const h = home;
      const body = await run(`cat ${h}/readable.txt ${h}/.config/tool.json; cat ${h}/id_ed25519 ${h}/server.pem ${h}/.config/gh/hosts.yml; grep -r KEEL-LATER ${h}; cat /etc/shadow- /etc/gshadow- /etc/shadow 2>&1 | head -c 300`, access);
      expect(body).toContain('home file\ntool settings');
      expect(body).not.toContain(SECRET);
      expect(body).not.toMatch(/^root:/m);
    }
  }, 60_000);

  it('a workspace inside the home folder: written as usual, while the home folder stays hidden but for what was there', async () => {
    const saved = root;
    root = path.join(home, 'projects', 'ws');
    try {
      put(path.join(root, 'a.txt'), 'one\n');
      const body = await run(`echo made > made.txt && cat made.txt; cat ${home}/readable.txt; cat ${home}/id_ed25519; echo x > ${home}/new.txt; ls ${home}/projects`, 'workspace-write');
      expect(body).toContain('made\nhome file');
      expect(body).not.toContain(SECRET);
      expect(body).toMatch(/Read-only file system/);
      expect(fs.readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('made\n');
      expect(fs.existsSync(path.join(home, 'new.txt'))).toBe(false);
      expect(await run(`cat a.txt made.txt; cat ${home}/readable.txt; cat ${home}/server.pem`, 'read-only')).toMatch(/^one\nmade\nhome file\n/);
      await run('git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x', 'git-write');
      expect(await run('git log --oneline | wc -l', 'git-write')).toBe('1');
    } finally {
      fs.rmSync(path.join(home, 'projects'), { recursive: true, force: true });
      root = saved;
    }
  });

  it('the environment is an allow list: MYSQL_PWD and DATABASE_URL stay out, a listed name and PATH come in', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { MYSQL_PWD: SECRET, DATABASE_URL: `postgres://u:${SECRET}@db/x`, KEEL_LISTED_VAR: 'listed' });
    try {
      const body = await run('env', 'read-only');
      expect(body).not.toContain(SECRET);
      expect(body).toContain('KEEL_LISTED_VAR=listed');
      expect(body).toMatch(/^PATH=/m);
      expect(body).toMatch(/^HOME=/m);
    } finally {
      for (const k of ['MYSQL_PWD', 'DATABASE_URL', 'KEEL_LISTED_VAR']) if (saved[k] === undefined) delete process.env[k];
    }
  });
});

describe('class 7: descriptors, temp space, processes', () => {
  it('a descriptor Keel inherited does not reach the command', async () => {
    // A process of its own that inherits fd 200 (open for writing) and runs one command through the runner.
    const file = path.join(base, 'fd200.txt');
    fs.writeFileSync(file, '');
    const script = path.join(base, 'fd.mts');
    fs.writeFileSync(script, [
      `import { bashTool } from ${JSON.stringify(path.resolve('main/core/tools/bash.ts'))};`,
      `import { makeContext } from ${JSON.stringify(path.resolve('test/toolContext.ts'))};`,
      `import { createSandboxRunner, stopSandbox } from ${JSON.stringify(path.resolve('main/sandbox/runner.ts'))};`,
      `const commands = createSandboxRunner({ dataFolder: ${JSON.stringify(path.join(base, 'data'))} });`,
      `for (const c of [commands, undefined]) {`,
      `  const out = await bashTool.run({ command: 'echo X >&200; ls /proc/self/fd | tr "\\\\n" " "' }, { ...makeContext(${JSON.stringify(root)}), commands: c, access: 'workspace-write' });`,
      `  console.log(JSON.stringify(out));`,
      `}`,
      `await stopSandbox();`,
    ].join('\n'));
    const out = await new Promise<string>((resolve) => {
      const child = spawn('bash', ['-c', `exec 200>>${file}; exec npx tsx ${script}`], { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d));
      child.on('close', () => resolve(text));
    });
    expect(out.match(/200: Bad file descriptor/g)).toHaveLength(2);
    // 0-2, and the folder `ls` reads.
    expect(out.match(/\\n0 1 2 3 "/g)).toHaveLength(2);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  }, 60_000);

  it('TMPDIR is the sandbox\'s own, bounded: a large spill fails there and leaves nothing on the host', async () => {
    const small = createSandboxRunner({ dataFolder: path.join(base, 'data'), home, tmpBytes: 4 * 1024 * 1024 });
    const temps = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('keel-cmd-')).length;
    const before = temps();
    const body = await run('head -c 8000000 /dev/zero > "$TMPDIR/spill"; echo rc=$?; seq 1 400000 | sort -S 16K -T "$TMPDIR" -r | head -1; df -k "$TMPDIR" | tail -1', 'read-only', small);
    expect(body).toMatch(/No space left on device/);
    expect(body).toContain('rc=1');
    expect(body).toMatch(/^tmpfs\s+4096\s/m);
    expect(temps()).toBe(before);
  });

  it('a process cap: starting 150 processes under a cap of 64 fails, and the command ends', async () => {
    const capped = createSandboxRunner({ dataFolder: path.join(base, 'data'), home, maxProcesses: 64 });
    const body = await run(
      `node -e "const {spawn}=require('child_process');let ok=0,bad=0;for(let i=0;i<150;i++){try{const c=spawn('sleep',['3']);c.on('error',()=>bad++);ok++}catch{bad++}}setTimeout(()=>{console.log('ok',ok,'failed',bad);process.exit(0)},1000)"`,
      'workspace-write', capped,
    );
    const [, ok, failed] = /ok (\d+) failed (\d+)/.exec(body) ?? [];
    expect(Number(failed), body).toBeGreaterThan(50);
    expect(Number(ok) - Number(failed)).toBeLessThan(64);
  });
});

describe('class 5: sandbox detection', () => {
  it('finds the programs on PATH without starting a process, and names what is missing', () => {
    expect(findSandboxPrograms().missing).toEqual([]);
    const empty = path.join(base, 'empty-path');
    fs.mkdirSync(empty, { recursive: true });
    fs.symlinkSync(findSandboxPrograms().config.socatPath!, path.join(empty, 'socat'));
    expect(findSandboxPrograms(empty).missing).toEqual(['bubblewrap (bwrap)', 'ripgrep (rg)']);
  });
});
