/**
 * Issue 24 item 2: each tool declares its access, the gate and the approval read it, and a tool
 * without one cannot be registered. A new writing tool, registered here and offered by a real
 * Session, asks before it writes, naming the file its declared argument names.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SqliteStore } from '../../db/store.js';
import type { ApprovalRequest } from '../permissions/approval.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { Session } from '../session/session.js';
import type { Mode } from '../state/types.js';
import { externalAccess, type ToolAccess } from './access.js';
import { ToolRegistry } from './registry.js';
import { toolParameters } from './schema.js';
import { TOOL_NAMES, type Tool, type ToolName } from './types.js';

let tmp: string;
let root: string;
let prompts: string;
let store: SqliteStore;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-access-')));
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  prompts = path.join(tmp, 'prompts');
  fs.cpSync(DEFAULT_PROMPTS_DIR, prompts, { recursive: true });
  fs.writeFileSync(path.join(prompts, 'tools', 'stamp.md'), 'Appends a stamp line to a file.\n');
  store = new SqliteStore(path.join(tmp, 'k.db'));
});
afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A tool no one has seen: it appends a line to the file its `target` argument names. */
function stampTool(access: ToolAccess | undefined): Tool {
  return {
    name: 'stamp' as ToolName,
    parameters: toolParameters(z.strictObject({ target: z.string() })),
    access: access as ToolAccess,
    async run(args, ctx) {
      const abs = path.resolve(root, String(args.target));
      // The approval's preview runs it with dryRun: it must write nothing then (ToolContext.dryRun).
      if (ctx.dryRun) return { kind: 'text', body: `would stamp ${abs}` };
      fs.appendFileSync(abs, 'stamped\n');
      return { kind: 'text', body: `stamped ${abs}` };
    },
  };
}

const WRITES_TARGET: ToolAccess = { reads: false, writes: true, runs: false, network: false, paths: [{ arg: 'target', kind: 'path' }] };

describe('tool access declarations', () => {
  it('every built-in tool declares one, and only bash runs programs', () => {
    const registry = new ToolRegistry();
    expect(registry.names().sort()).toEqual([...TOOL_NAMES].sort());
    const runs = TOOL_NAMES.filter((n) => registry.get(n)!.access.runs);
    expect(runs).toEqual(['bash']);
    const writes = TOOL_NAMES.filter((n) => registry.get(n)!.access.writes).sort();
    expect(writes).toEqual(['apply_patch', 'bash', 'edit', 'multiedit', 'write']);
  });

  it('refuses a tool without a declaration, or with a broken one, at registration', () => {
    const registry = new ToolRegistry([]);
    expect(() => registry.register(stampTool(undefined))).toThrow(/The tool stamp cannot be registered: it declares no access/);
    expect(() => registry.register(stampTool({ ...WRITES_TARGET, writes: 'yes' } as never))).toThrow(/no boolean "writes"/);
    expect(() => registry.register(stampTool({ ...WRITES_TARGET, runs: true }))).toThrow(/names no "command" argument/);
    expect(() => registry.register(stampTool({ ...WRITES_TARGET, paths: [{ arg: 'target', kind: 'file' }] } as never))).toThrow(/path argument/);
    expect(registry.get('stamp')).toBeUndefined();
  });

  it('a new writing tool asks in ask mode, naming the file its declared argument names, and a deny changes nothing', async () => {
    const asked: ApprovalRequest[] = [];
    const session = (mode: Mode) => {
      const tools = new ToolRegistry();
      tools.register(stampTool(WRITES_TARGET));
      return Session.create({
        store, tools, promptsDir: prompts, now: () => new Date(),
        permissions: { approve: async (r) => { asked.push(r); return 'deny'; } },
      }, { root, kind: 'agent', mode });
    };
    const denied = await session('ask').calls.run('stamp', { target: 'a.txt' });
    expect(denied.text).toMatch(/the person denied stamp of .*a\.txt/);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ tool: 'stamp', paths: [path.join(root, 'a.txt')], reason: 'ask mode asks before edits' });
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    // plan mode refuses it outright; accept-edits lets an edit through.
    expect((await session('plan').calls.run('stamp', { target: 'a.txt' })).text).toMatch(/denied: stamp/);
    await session('accept-edits').calls.run('stamp', { target: 'a.txt' });
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\nstamped\n');
    expect(asked).toHaveLength(1);
  });

  it('gives an MCP tool what its hints claim only where the person trusts the server', () => {
    expect(externalAccess({ readOnly: true }, false)).toMatchObject({ writes: true, runs: true, network: true });
    expect(externalAccess({ readOnly: true }, true)).toMatchObject({ writes: false, runs: false, network: false });
    expect(externalAccess({ readOnly: false, openWorld: false }, true)).toMatchObject({ writes: true, network: false });
  });
});
