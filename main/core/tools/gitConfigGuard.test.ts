/**
 * Where no sandbox runs a command, a repository whose own .git/config names programs runs none of
 * them from git: the same commands through plain bash run every one (the repository is armed),
 * through the bash tool without a sandbox none, and git still answers.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';
import { bashTool } from './bash.js';
import { unsandboxedRunner } from './commandRunner.js';

let ws: { root: string; remove(): void };
let marks: string;

const COMMANDS = [
  'git status --short', 'git diff', 'git log -p -1', 'git show --stat HEAD', 'git add a.txt',
  'git -c user.name=t -c user.email=t@t commit -qm two', 'git checkout -q HEAD~1 -- a.txt', 'git st', 'git diff HEAD',
];

beforeEach(() => {
  ws = makeTempRoot({ 'a.txt': 'one\n', '.gitattributes': '* filter=evil diff=evil\n' });
  marks = path.join(ws.root, '..', `${path.basename(ws.root)}-marks`);
  fs.mkdirSync(marks);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws.root, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'one');
  const mark = (name: string) => `touch ${marks}/${name}`;
  const config: [string, string][] = [
    ['core.fsmonitor', `${mark('fsmonitor')}; false`], ['diff.external', mark('external')],
    ['diff.evil.textconv', `${mark('textconv')}; cat`], ['filter.evil.clean', `${mark('clean')}; cat`],
    ['filter.evil.smudge', `${mark('smudge')}; cat`],
    ['alias.st', `!${mark('alias')}`], ['core.pager', `${mark('pager')}; cat`],
  ];
  for (const [key, value] of config) git('config', key, value);
  fs.writeFileSync(path.join(ws.root, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\n${mark('hook')}\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(ws.root, 'a.txt'), 'one\nmore\n');
});
afterEach(() => {
  ws.remove();
  fs.rmSync(marks, { recursive: true, force: true });
});

describe('git without a sandbox', () => {
  it('the repository is armed: through plain bash, its config runs its programs', () => {
    for (const c of COMMANDS) {
      try {
        execFileSync('bash', ['-c', c], { cwd: ws.root, stdio: 'ignore' });
      } catch {
        // a failing filter is still a program that ran
      }
    }
    expect(fs.readdirSync(marks).sort()).toEqual(expect.arrayContaining(['alias', 'clean', 'external', 'fsmonitor', 'hook']));
  });

  it.each([['no runner', undefined], ['the unsandboxed runner', unsandboxedRunner('test')]] as const)('through the bash tool with %s, none runs and git answers', async (_name, commands) => {
    const bodies: string[] = [];
    for (const command of COMMANDS) {
      const out = await bashTool.run({ command }, { ...makeContext(ws.root), commands, access: 'git-write' });
      bodies.push(out.kind === 'text' ? out.body : JSON.stringify(out));
    }
    expect(fs.readdirSync(marks), JSON.stringify(bodies)).toEqual([]);
    expect(bodies[0]).toBe(' M a.txt');
    expect(bodies[1]).toContain('+more');
    expect(bodies[8]).toContain('-more');
    expect(execFileSync('git', ['log', '--oneline'], { cwd: ws.root, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'false' } }).trim().split('\n')).toHaveLength(2);
  });
});
