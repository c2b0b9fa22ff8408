import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveReal } from '../workspace/paths.js';
import type { Mode } from '../state/types.js';
import { externalAccess, READS_PATH, WRITES_PATH } from '../tools/access.js';
import { bashTool } from '../tools/bash.js';
import { decide, type GateInput, type Rule } from './gate.js';

const root = '/w/proj';
const edit = (mode: Mode, rules: Rule[] = [], paths = ['/w/proj/src/a.ts']): GateInput =>
  ({ tool: 'edit', access: WRITES_PATH, paths, mode, root, rules, protectedFolders: ['/home/me/.keel'], sandboxed: true });
const bash = (mode: Mode, command: string, rules: Rule[] = []): GateInput =>
  ({ tool: 'bash', access: bashTool.access, paths: [], command, mode, root, rules, protectedFolders: [], sandboxed: true });

describe('the permission gate', () => {
  it('lets readers through in every mode', () => {
    for (const mode of ['ask', 'plan'] as const) expect(decide({ ...edit(mode), tool: 'read', access: READS_PATH }).decision).toBe('allow');
  });

  it('follows each mode for edits and commands', () => {
    expect(['ask', 'accept-edits', 'plan', 'auto'].map((m) => decide(edit(m as Mode)).decision)).toEqual(['ask', 'allow', 'deny', 'allow']);
    expect(['ask', 'accept-edits', 'plan', 'auto'].map((m) => decide(bash(m as Mode, 'npm test')).decision)).toEqual(['ask', 'ask', 'deny', 'allow']);
    expect(['ask', 'accept-edits', 'plan', 'auto'].map((m) => decide(bash(m as Mode, 'git diff')).decision)).toEqual(['allow', 'allow', 'allow', 'allow']);
  });

  it('asks for network in every mode, and for what it cannot judge outside auto', () => {
    expect(decide(bash('auto', 'curl http://example.com')).decision).toBe('ask');
    expect(['ask', 'accept-edits', 'plan', 'auto'].map((m) => decide(bash(m as Mode, 'echo $(cat secret)')).decision)).toEqual(['ask', 'ask', 'deny', 'allow']);
  });

  it('checks rules deny → ask → allow, and a deny holds in every mode', () => {
    const rules: Rule[] = [
      { action: 'allow', tool: 'edit', pattern: 'src/**' },
      { action: 'deny', tool: 'edit', pattern: 'src/secret.ts' },
      { action: 'ask', tool: 'bash', pattern: 'npm publish' },
    ];
    expect(decide(edit('auto', rules, ['/w/proj/src/secret.ts'])).decision).toBe('deny');
    expect(decide(edit('ask', rules, ['/w/proj/src/a.ts'])).decision).toBe('allow');
    expect(decide(bash('auto', 'npm publish --tag x', rules)).decision).toBe('ask');
  });

  it('denies every change in plan mode whatever any rule says', () => {
    expect(decide(edit('plan', [{ action: 'allow', tool: '*' }])).decision).toBe('deny');
    expect(decide(bash('plan', 'make', [{ action: 'allow', tool: 'bash', pattern: 'make' }])).decision).toBe('deny');
  });

  it('asks before writing .git internals or Keel\'s own data, even in auto mode', () => {
    expect(decide(edit('auto', [], ['/w/proj/.git/config'])).decision).toBe('ask');
    expect(decide(edit('auto', [], ['/home/me/.keel/keel.db'])).decision).toBe('ask');
    expect(decide(bash('auto', 'rm -rf .git')).decision).toBe('ask');
    expect(decide(bash('auto', 'cp hook .git/hooks/pre-commit')).decision).toBe('ask');
    expect(decide({ ...bash('auto', 'rm -rf /home/me/.keel/state'), protectedFolders: ['/home/me/.keel'] }).decision).toBe('ask');
    expect(decide(bash('auto', 'rm -rf build/tmp')).decision).toBe('allow');
  });

  describe('MCP tools', () => {
    const MODES: Mode[] = ['ask', 'accept-edits', 'plan', 'auto'];
    const mcp = (mode: Mode, readOnly: boolean, trusted: boolean, rules: Rule[] = []): GateInput =>
      ({ tool: 'mcp__fs__write_file', access: externalAccess({ readOnly }, trusted), paths: [], mode, root, rules, protectedFolders: [], sandboxed: true, mcp: { server: 'fs', readOnly, trusted } });
    const each = (readOnly: boolean, trusted: boolean, rules: Rule[] = []) => MODES.map((m) => decide(mcp(m, readOnly, trusted, rules)).decision);

    it('asks in ask and accept-edits unless a trusted server marks the tool read-only; plan runs read-only tools only', () => {
      expect(each(false, false)).toEqual(['ask', 'ask', 'deny', 'allow']);
      expect(each(false, true)).toEqual(['ask', 'ask', 'deny', 'allow']);
      expect(each(true, false)).toEqual(['ask', 'ask', 'ask', 'allow']);
      expect(each(true, true)).toEqual(['allow', 'allow', 'allow', 'allow']);
      expect(decide(mcp('ask', true, false)).reason).toMatch(/fs marks it read-only, but the person has not trusted that server/);
      expect(decide(mcp('plan', false, true)).reason).toMatch(/plan mode runs only MCP tools that fs marks read-only/);
    });

    it('follows rules naming the tool, its server or every tool, and a deny holds even for a trusted read-only tool', () => {
      expect(each(true, true, [{ action: 'deny', tool: 'mcp__fs' }])).toEqual(['deny', 'deny', 'deny', 'deny']);
      expect(each(true, true, [{ action: 'ask', tool: 'mcp__fs__write_file' }])).toEqual(['ask', 'ask', 'ask', 'ask']);
      expect(each(false, false, [{ action: 'allow', tool: 'mcp__fs__write_file' }])).toEqual(['allow', 'allow', 'deny', 'allow']);
      expect(each(false, false, [{ action: 'deny', tool: '*' }])).toEqual(['deny', 'deny', 'deny', 'deny']);
      // Another server's name, or a rule with a path pattern, says nothing about this call.
      expect(each(false, false, [{ action: 'allow', tool: 'mcp__f' }, { action: 'deny', tool: '*', pattern: '**' }])).toEqual(['ask', 'ask', 'deny', 'allow']);
    });
  });
});

describe('the gate as issue 13 fixed it', () => {
  it('asks for every command that is not read-only where no sandbox can run, auto included', () => {
    const bare = (mode: Mode, command: string, rules: Rule[] = []) => decide({ ...bash(mode, command, rules), sandboxed: false });
    expect(['ask', 'accept-edits', 'auto'].map((m) => bare(m as Mode, 'npm test').decision)).toEqual(['ask', 'ask', 'ask']);
    expect(bare('auto', 'npm test', [{ action: 'allow', tool: 'bash', pattern: 'npm test' }]).decision).toBe('ask');
    expect(bare('auto', 'git diff')).toMatchObject({ decision: 'allow', access: 'read-only' });
    expect(bare('plan', 'npm test').decision).toBe('deny');
    expect(bare('auto', 'rm x', [{ action: 'deny', tool: 'bash', pattern: 'rm' }]).decision).toBe('deny');
  });

  it('gives read-only access to read-only commands, workspace-write to auto, git-write to a rule', () => {
    expect(decide(bash('ask', 'ls'))).toMatchObject({ decision: 'allow', access: 'read-only' });
    expect(decide(bash('auto', 'npm test'))).toMatchObject({ decision: 'allow', access: 'workspace-write' });
    expect(decide(bash('ask', 'npm test', [{ action: 'allow', tool: 'bash', pattern: 'npm test' }]))).toMatchObject({ decision: 'allow', access: 'git-write' });
  });

  it('matches a deny rule on every program a line may run', () => {
    const deny: Rule[] = [{ action: 'deny', tool: 'bash', pattern: 'rm' }];
    for (const command of ['rm -rf x', '/bin/rm -rf x', String.raw`\rm x`, 'ls; rm x', 'ls && ./rm x', 'sudo rm x', 'xargs rm < list', `bash -c 'rm x'`, 'find . -exec rm {} ;', 'echo $(rm x)']) {
      expect([command, decide(bash('auto', command, deny)).decision]).toEqual([command, 'deny']);
    }
    expect(decide(bash('auto', 'npm run rmdir', deny)).decision).toBe('allow');
    const ask: Rule[] = [{ action: 'ask', tool: 'bash', pattern: 'npm publish' }];
    expect(decide(bash('auto', 'npm test; npm publish --tag x', ask)).decision).toBe('ask');
  });

  it('allows by rule only when every simple command is allowed or read-only, the program named exactly', () => {
    const allow: Rule[] = [{ action: 'allow', tool: 'bash', pattern: 'npm test' }];
    expect(decide(bash('ask', 'npm test && rm -rf ~', allow)).decision).toBe('ask');
    expect(decide(bash('ask', 'npm test; curl http://x', allow)).decision).toBe('ask');
    expect(decide(bash('ask', './npm test', allow)).decision).toBe('ask');
    expect(decide(bash('ask', 'npm test -- --watch=false && git status', allow))).toMatchObject({ decision: 'allow', reason: 'rule: allow bash npm test' });
  });

  it('asks before git changes the repository, in auto mode too, unless a rule allows it', () => {
    for (const command of ['git commit -m x', 'git branch -D main', 'git checkout -- .', 'git reset --hard', 'git tag v1']) {
      expect([command, decide(bash('auto', command)).decision]).toEqual([command, 'ask']);
    }
    expect(decide(bash('auto', 'git commit -m x', [{ action: 'allow', tool: 'bash', pattern: 'git commit' }])).decision).toBe('allow');
  });
});

describe('guards on real paths', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-gate-')));
    fs.mkdirSync(path.join(dir, 'ws', '.git', 'hooks'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'data-real'));
    fs.symlinkSync(path.join(dir, 'data-real'), path.join(dir, 'data'));
    fs.symlinkSync('.git', path.join(dir, 'ws', 'g'));
    fs.symlinkSync(path.join(dir, 'data-real'), path.join(dir, 'ws', 'stash'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const inWs = (command: string, o: Partial<GateInput> = {}): GateInput => ({
    ...bash('auto', command), root: path.join(dir, 'ws'), protectedFolders: [path.join(dir, 'data')], realpath: resolveReal, ...o,
  });

  it('finds .git behind a symlink, and the data folder under either of its names', () => {
    expect(decide(inWs('cp x g/hooks/pre-commit')).decision).toBe('ask');
    expect(decide(inWs(`touch ${dir}/data-real/keel.db`)).decision).toBe('ask');
    expect(decide(inWs(`rm -rf ${dir}/data/state`)).decision).toBe('ask');
    expect(decide(inWs('rm -rf stash/state')).decision).toBe('ask');
    expect(decide(inWs('rm -rf build')).decision).toBe('allow');
  });

  it('asks before a read-only command names a secret, or a folder holding one for a program that reads folders', () => {
    const home = path.join(dir, 'home');
    const secrets = { home, deniedReads: [path.join(home, '.ssh'), path.join(dir, 'data-real')] };
    expect(decide(inWs('cat ~/.ssh/id_rsa', secrets)).decision).toBe('ask');
    expect(decide(inWs('head -c 100 ../home/.ssh/id_rsa', secrets)).decision).toBe('ask');
    expect(decide(inWs('cat stash/keel.db', secrets)).decision).toBe('ask');
    expect(decide(inWs('grep -r BEGIN ~', secrets)).decision).toBe('ask');
    expect(decide(inWs(`rg PRIVATE ${dir}`, secrets)).decision).toBe('ask');
    expect(decide(inWs('ls ~', secrets))).toMatchObject({ decision: 'allow', access: 'read-only' });
    expect(decide(inWs('cat README.md', secrets))).toMatchObject({ decision: 'allow', access: 'read-only' });
  });
});
