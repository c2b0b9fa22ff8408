import { describe, expect, it } from 'vitest';
import type { Mode } from '../session/types.js';
import { decide, type GateInput, type Rule } from './gate.js';

const root = '/w/proj';
const edit = (mode: Mode, rules: Rule[] = [], paths = ['/w/proj/src/a.ts']): GateInput =>
  ({ tool: 'edit', paths, mode, root, rules, protectedFolders: ['/home/me/.keel'], sandboxed: true });
const bash = (mode: Mode, command: string, rules: Rule[] = []): GateInput =>
  ({ tool: 'bash', paths: [], command, mode, root, rules, protectedFolders: [], sandboxed: true });

describe('the permission gate', () => {
  it('lets readers through in every mode', () => {
    for (const mode of ['ask', 'plan'] as const) expect(decide({ ...edit(mode), tool: 'read' }).decision).toBe('allow');
  });

  it('follows each mode for edits and commands', () => {
    expect(['ask', 'accept-edits', 'plan', 'auto'].map((m) => decide(edit(m as Mode)).decision)).toEqual(['ask', 'allow', 'deny', 'allow']);
    expect(['ask', 'accept-edits', 'plan', 'auto'].map((m) => decide(bash(m as Mode, 'npm test')).decision)).toEqual(['ask', 'ask', 'deny', 'allow']);
    expect(['ask', 'accept-edits', 'plan', 'auto'].map((m) => decide(bash(m as Mode, 'git diff')).decision)).toEqual(['allow', 'allow', 'allow', 'allow']);
  });

  it('asks for network and for what it cannot judge, even in auto mode', () => {
    expect(decide(bash('auto', 'curl http://example.com')).decision).toBe('ask');
    expect(decide(bash('auto', 'echo $(cat secret)')).decision).toBe('ask');
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
      ({ tool: 'mcp__fs__write_file', paths: [], mode, root, rules, protectedFolders: [], sandboxed: true, mcp: { server: 'fs', readOnly, trusted } });
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
