import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView, ToolView } from '../contract.js';
import { callPaths, endedUpdate, filesBefore, historyUpdates, planUpdate, toolKind } from './updates.js';

const tool = (over: Partial<ToolView>): ToolView => ({ number: 1, id: '#0001', name: 'read', args: {}, text: '[#0001]\nok', ...over });

describe('ACP updates from Keel views', () => {
  it('gives each tool its ACP kind, MCP tools `other`', () => {
    expect(['read', 'grep', 'apply_patch', 'bash', 'task', 'mcp__gh__create_issue'].map(toolKind)).toEqual(['read', 'search', 'edit', 'execute', 'think', 'other']);
  });

  it('names the files a call will change as the gate reads them, a patch by its headers', () => {
    const root = '/w';
    expect(callPaths('edit', { path: 'src/a.ts', old_string: 'x', new_string: 'y' }, root)).toEqual(['/w/src/a.ts']);
    expect(callPaths('apply_patch', { patch: '--- a/b.ts\n+++ b/b.ts\n@@ -1 +1 @@\n-x\n+y\n' }, root)).toEqual(['/w/b.ts']);
    expect(callPaths('bash', { command: 'ls' }, root)).toEqual([]);
  });

  it('ends an error result as failed, and a changed file with its diff before the result; a file left as it was has none', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-acp-updates-'));
    try {
      const changed = path.join(dir, 'a.txt');
      const same = path.join(dir, 'b.txt');
      fs.writeFileSync(changed, 'one\n');
      fs.writeFileSync(same, 'two\n');
      const before = filesBefore([changed, same, path.join(dir, 'new.txt')]);
      fs.writeFileSync(changed, 'uno\n');
      fs.writeFileSync(path.join(dir, 'new.txt'), 'fresh\n');
      expect(endedUpdate(tool({ name: 'apply_patch', text: '[#0001]\npatched' }), before)).toMatchObject({
        status: 'completed',
        content: [
          { type: 'diff', path: changed, oldText: 'one\n', newText: 'uno\n' },
          { type: 'diff', path: path.join(dir, 'new.txt'), oldText: null, newText: 'fresh\n' },
          { type: 'content', content: { type: 'text', text: '[#0001]\npatched' } },
        ],
      });
      expect(endedUpdate(tool({ text: '[#0001]\nError: no such file /w/x' }))).toMatchObject({ status: 'failed' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replays a session without the turns taken back, and its plan with ACP statuses', () => {
    const view = {
      summary: { workspace: '/w' }, plan: [{ text: 'a', status: 'done' }, { text: 'b', status: 'doing' }, { text: 'c', status: 'todo' }],
      turns: [
        { seq: 1, status: 'undone', words: 'gone', notes: [], parts: [{ type: 'text', text: 'never' }] },
        { seq: 2, status: 'done', words: 'hi', notes: [], parts: [{ type: 'tool', tool: tool({}) }, { type: 'text', text: 'hello' }] },
      ],
    } as unknown as SessionView;
    expect(historyUpdates(view).map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk', 'plan']);
    expect(planUpdate(view.plan)).toEqual({ sessionUpdate: 'plan', entries: [
      { content: 'a', priority: 'medium', status: 'completed' },
      { content: 'b', priority: 'medium', status: 'in_progress' },
      { content: 'c', priority: 'medium', status: 'pending' },
    ] });
  });
});
