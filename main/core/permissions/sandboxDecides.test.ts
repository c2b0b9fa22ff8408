/**
 * Issue 22 item 2 and issue 23 items 4 and 6 at the gate: in auto the sandbox decides; deny rules
 * hold where the line does not say every program it runs; without a sandbox, kept paths are
 * checked where the command would really reach them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashTool } from '../tools/bash.js';
import type { Mode } from '../types.js';
import { resolveReal } from '../workspace/paths.js';
import { linkTargetsBelow, resolveForCommand } from './commandPaths.js';
import { programRuns } from './command.js';
import { decide, type GateInput, type Rule } from './gate.js';

const MODES: Mode[] = ['ask', 'accept-edits', 'plan', 'auto'];
const root = '/w/proj';
const bash = (mode: Mode, command: string, o: Partial<GateInput> = {}): GateInput =>
  ({ tool: 'bash', access: bashTool.access, paths: [], command, mode, root, rules: [], protectedFolders: ['/home/me/.keel'], sandboxed: true, home: '/home/me', deniedReads: ['/home/me/.ssh'], ...o });
const each = (command: string, o: Partial<GateInput> = {}) => MODES.map((m) => decide(bash(m, command, o)).decision);

describe('auto: the sandbox decides', () => {
  it('runs what the judge cannot follow, in the sandbox, with workspace-write; the other modes keep the judge', () => {
    for (const command of [`printf 'x\\n' > out.txt`, 'ls *.ts > list.txt', 'echo $(date) >> log', 'for f in *.md; do wc -l "$f"; done', 'make 2>&1 | tee build.log']) {
      expect([command, ...each(command)]).toEqual([command, 'ask', 'ask', 'deny', 'allow']);
      expect(decide(bash('auto', command))).toMatchObject({ access: 'workspace-write', reason: 'auto mode: the sandbox holds it' });
    }
  });

  it('asks, naming why, for what the sandbox withholds', () => {
    const asks = (command: string, why: RegExp) => expect(decide(bash('auto', command))).toMatchObject({ decision: 'ask', reason: expect.stringMatching(why) });
    asks('echo x > /tmp/elsewhere.txt', /writes \/tmp\/elsewhere\.txt, outside the workspace/);
    asks('cp a.txt ../other/a.txt', /writes \/w\/other\/a\.txt, outside the workspace/);
    asks('tee ~/.bashrc < a.txt', /writes \/home\/me\/\.bashrc, outside the workspace/);
    asks('dd if=a.txt of=/etc/x', /writes \/etc\/x/);
    asks('echo x > .git/config', /\.git/);
    asks('cp a.txt .gi?/hooks/pre-commit', /\.gi\?\/hooks\/pre-commit is in \.git/);
    asks('echo x >> /home/me/.keel/keel.db', /Keel's own data/);
    asks('git commit -m "$(date)"', /git would change the repository/);
    asks('curl -s https://example.com > page.html', /reaches the network/);
    asks('npm install left-pad', /reaches the network/);
    asks('cat ~/.ssh/id_rsa > key.txt', /reads \/home\/me\/\.ssh\/id_rsa/);
    asks('cat $HOME/.ssh/id_rsa | base64 > k', /reads \/home\/me\/\.ssh\/id_rsa/);
    asks('cat ~/.ss?/id_* > k', /a pattern that can name a kept path/);
  });

  it('keeps writes to the workspace, /dev/null and the descriptors', () => {
    for (const command of ['echo x > sub/out.txt 2>&1', 'rm -rf build', 'cp /etc/hosts hosts.txt', 'echo x > /dev/stderr', 'ls > /dev/null']) {
      expect([command, decide(bash('auto', command, { deniedReads: ['/home/me/.ssh'] })).decision]).toEqual([command, 'allow']);
    }
  });

  it('asks for everything not read-only where no sandbox runs, auto included', () => {
    for (const command of [`printf 'x\\n' > out.txt`, 'echo $(date) >> log', 'rm -rf build']) {
      expect([command, ...each(command, { sandboxed: false })]).toEqual([command, 'ask', 'ask', 'deny', 'ask']);
    }
  });
});

/** Attacks on a deny rule for `rm` through programs the line does not name as a command. */
const INDIRECT = [
  'echo rm a.txt | sh', 'echo rm a.txt | bash -s', 'printf "rm a.txt" | zsh', `bash -c 'x=r; \${x}m a.txt'`, `sh -c "$(echo rm) a.txt"`,
  `awk 'BEGIN{system("rm a.txt")}'`, `awk 'BEGIN{print "rm a.txt" | "sh"}'`, `gawk -f evil.awk`, `echo a.txt | xargs -I{} sh -c 'rm {}'`,
  'echo rm a.txt | xargs env', 'echo a.txt | xargs -n1 bash -c', `env -S 'rm a.txt'`, `find . -exec $CMD {} +`, 'x=rm; $x a.txt', '$(echo rm) a.txt', '`echo rm` a.txt', 'r{m,} a.txt', '/bin/r? a.txt',
  `python3 -c "import os; os.remove('a.txt')"`, `perl -e 'unlink "a.txt"'`, `node -e "require('fs').unlinkSync('a.txt')"`,
  `sed -n '1e rm a.txt' a.txt`, `sed 's/.*/rm a.txt/e' a.txt`, `git -c alias.x='!rm a.txt' x`, `rg --pre=rm x`, 'bash evil.sh', 'source evil.sh',
  '. ./evil.sh', `sudo $PROG a.txt`, `nice -n 5 "$(printf rm)" a.txt`, 'tar -cf x.tar -I rm a.txt', `cat <<EOF | sh\nrm a.txt\nEOF`,
  `case x in x) rm a.txt;; esac`, 'f() { rm a.txt; }; f', 'parallel rm ::: a.txt', `vim -c '!rm a.txt' -c q`, 'sort --compress-program=rm a.txt',
];

describe('deny rules apply to what runs', () => {
  const deny: Rule[] = [{ action: 'deny', tool: 'bash', pattern: 'rm' }];

  // Lines whose text does not name rm: the person may approve them, seeing the line (deny in auto and plan).
  const UNNAMED = new Set([`bash -c 'x=r; \${x}m a.txt'`, 'gawk -f evil.awk', 'echo a.txt | xargs -n1 bash -c', `find . -exec $CMD {} +`, 'r{m,} a.txt', '/bin/r? a.txt',
    `python3 -c "import os; os.remove('a.txt')"`, `perl -e 'unlink "a.txt"'`, `node -e "require('fs').unlinkSync('a.txt')"`, 'bash evil.sh', 'source evil.sh', '. ./evil.sh', 'sudo $PROG a.txt']);

  it.each(INDIRECT.filter((c) => !UNNAMED.has(c)))('%s: names rm through a program that may run it: denied in every mode, approval or not', (command) => {
    expect(programRuns(command).unknown, command).toBeDefined();
    expect(each(command, { rules: deny })).toEqual(['deny', 'deny', 'deny', 'deny']);
    expect(decide(bash('ask', command, { rules: deny })).reason).toMatch(/^rule: deny bash rm: the line names rm, and .*, so it may run it; a deny rule is lifted in settings, not by an approval$/);
  });

  it.each([...UNNAMED])('%s: may run rm without naming it: denied in auto and plan, asked in ask and accept-edits', (command) => {
    expect(INDIRECT).toContain(command);
    expect(programRuns(command).unknown, command).toBeDefined();
    expect(each(command, { rules: deny })).toEqual(['ask', 'ask', 'deny', 'deny']);
    expect(decide(bash('ask', command, { rules: deny })).reason).toMatch(/^rule: deny bash rm, and .*, so the judge cannot tell that rm is not among what it runs$/);
  });

  it('finds rm itself where the line says it, however it is spelled or wrapped', () => {
    for (const command of ['sudo -u me rm x', 'nice -n 5 rm x', 'command rm x', 'exec rm x', 'busybox rm x', `bash -c 'ls; rm x'`, `sh -lc "rm x"`,
      `eval 'rm x'`, 'echo a | xargs rm', 'find . -name x -exec rm {} ;', 'echo $(rm x)', 'cat <(rm x)', 'if true; then rm x; fi', 'for f in a; do rm $f; done',
      'FOO=1 rm x', `watch 'rm x'`, `watch -n 1 "r"m a.txt`, `eval "r""m a.txt"`, `find . -name a.txt -exec sh -c 'rm "$0"' {} ';'`, 'timeout 5 rm x', '(cd sub && rm x)', '{ rm x; }', 'ls | tee y >(rm x)']) {
      expect([command, decide(bash('auto', command, { rules: deny })).decision, decide(bash('ask', command, { rules: deny })).decision]).toEqual([command, 'deny', 'deny']);
    }
  });

  it('leaves lines alone whose programs are all known and none is rm', () => {
    for (const command of ['echo $(date) >> log', 'ls *.ts > list.txt', 'npm run rmdir', 'echo rm', `bash -c 'ls -la'`, 'echo a | xargs wc -l', `awk '{print $1}' a.txt`,
      `sed -i 's/a/b/' f`, `find . -name '*.rm'`, 'python3 --version', 'git log --grep=rm']) {
      expect([command, programRuns(command).unknown, decide(bash('auto', command, { rules: deny })).decision]).toEqual([command, undefined, 'allow']);
    }
  });

  it('asks for an ask rule where the programs are not all known', () => {
    const ask: Rule[] = [{ action: 'ask', tool: 'bash', pattern: 'npm publish' }];
    expect(decide(bash('auto', 'echo npm publish | sh', { rules: ask })).decision).toBe('ask');
    expect(decide(bash('auto', 'echo $(date) >> log', { rules: ask })).decision).toBe('allow');
  });
});

describe('kept paths where no sandbox runs, on the paths a command really reaches', () => {
  let dir: string;
  let ws: string;
  let home: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-kept-')));
    ws = path.join(dir, 'ws');
    home = path.join(dir, 'home');
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'KEY');
    fs.mkdirSync(path.join(ws, 'src', 'deep'), { recursive: true });
    fs.mkdirSync(path.join(home, 'projects', 'x'), { recursive: true });
    fs.symlinkSync(path.join(home, 'projects', 'x'), path.join(ws, 'up'));
    fs.mkdirSync(path.join(ws, 'clean'));
    fs.writeFileSync(path.join(ws, 'clean', 'a.txt'), 'a');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const bare = (command: string) => decide({
    ...bash('ask', command), root: ws, home, sandboxed: false, deniedReads: [path.join(home, '.ssh')], protectedFolders: [],
    realpath: resolveReal, resolve: resolveForCommand, linksBelow: (f) => linkTargetsBelow(f, ws),
  });

  it('follows /proc/self/cwd as the command sees it, a link before "..", and refuses another process\'s folders', () => {
    const rel = path.relative(ws, home);
    expect(bare(`cat /proc/self/cwd/${rel}/.ssh/id_rsa`)).toMatchObject({ decision: 'ask', reason: expect.stringContaining(`${home}/.ssh/id_rsa`) });
    expect(bare('cat up/../../.ssh/id_rsa')).toMatchObject({ decision: 'ask', reason: expect.stringContaining(`${home}/.ssh/id_rsa`) });
    expect(bare('cat /proc/1/cwd/x')).toMatchObject({ decision: 'ask', reason: expect.stringMatching(/\/proc\/1\/cwd \(it may lead to any file\)/) });
    expect(bare('cat /dev/fd/9')).toMatchObject({ decision: 'ask' });
    expect(bare('cat /proc/self/cwd/clean/a.txt')).toMatchObject({ decision: 'allow', access: 'read-only' });
    expect(bare('cat /proc/self/root/etc/hostname')).toMatchObject({ decision: 'ask', reason: expect.stringContaining('/etc/hostname, outside the workspace') });
  });

  it('keeps reads inside the workspace (issue 35): links out, file lists, paths outside; asked in ask, refused in plan and auto', () => {
    const secret = path.join(dir, 'elsewhere');
    fs.mkdirSync(secret, { recursive: true });
    fs.writeFileSync(path.join(secret, 'token'), 'SECRET');
    fs.symlinkSync(secret, path.join(ws, 'src', 'deep', 'out'));
    fs.writeFileSync(path.join(ws, 'list0'), `${path.join(secret, 'token')}\0`);
    const inMode = (mode: Mode, command: string) => decide({
      ...bash(mode, command), root: ws, home, sandboxed: false, deniedReads: [path.join(home, '.ssh')], protectedFolders: [],
      realpath: resolveReal, resolve: resolveForCommand, linksBelow: (f) => linkTargetsBelow(f, ws),
    });
    try {
      const attacks: [string, RegExp][] = [
        ['grep -R SECRET .', /a link below .* leads to .*, outside the workspace, and it may follow it/],
        ['grep -r SECRET src', /a link below .*src leads to .*elsewhere/],
        ['find -L . -name token', /a link below/],
        ['sort --files0-from=list0', /--files0-from=list0 hands it a list of files to read/],
        ['wc --files0-from list0', /--files0-from hands it a list of files to read/],
        ['cat src/deep/out/token', /it reads .*elsewhere\/token, outside the workspace/],
        [`cat ${path.join(secret, 'token')}`, /outside the workspace/],
        ['head ../elsewhere/token', /outside the workspace/],
      ];
      for (const [command, why] of attacks) {
        expect([command, inMode('ask', command).decision, inMode('plan', command).decision, inMode('auto', command).decision]).toEqual([command, 'ask', 'deny', 'deny']);
        expect(inMode('ask', command).reason, command).toMatch(why);
      }
      // Controls: reads that stay inside pass as before, with read-only access.
      for (const command of ['grep -R BEGIN clean', 'cat clean/a.txt', 'sort clean/a.txt', 'wc -l clean/a.txt > /dev/null', 'git log -1']) {
        expect([command, inMode('plan', command)]).toEqual([command, { decision: 'allow', reason: 'a read-only command', access: 'read-only' }]);
      }
    } finally {
      fs.rmSync(path.join(ws, 'src', 'deep', 'out'));
      fs.rmSync(path.join(ws, 'list0'));
    }
  });

  it('asks before a recursive reader whose folder holds a link to a kept path', () => {
    fs.symlinkSync(path.join(home, '.ssh'), path.join(ws, 'src', 'deep', 'keys'));
    try {
      expect(bare('grep -R BEGIN src')).toMatchObject({ decision: 'ask', reason: expect.stringContaining('through a symlink below') });
      expect(bare('grep -R BEGIN')).toMatchObject({ decision: 'ask' });
      expect(bare('rg -L BEGIN .')).toMatchObject({ decision: 'ask' });
      expect(bare('grep -R BEGIN clean')).toMatchObject({ decision: 'allow' });
      // A link to a folder holding the kept path counts as well.
      fs.symlinkSync(home, path.join(ws, 'clean', 'h'));
      expect(bare('grep -R BEGIN clean')).toMatchObject({ decision: 'ask' });
    } finally {
      fs.rmSync(path.join(ws, 'src', 'deep', 'keys'));
      fs.rmSync(path.join(ws, 'clean', 'h'), { force: true });
    }
  });
});
