import { afterEach, describe, expect, it } from 'vitest';
import { parseHooks } from '../core/hooks/settings.js';
import type { RequestRow } from '../core/state/types.js';
import { unsandboxedRunner } from '../core/tools/commandRunner.js';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { formatCall } from './toolCalls.js';

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

const FEEDBACK = 'a.ts(2,14): error TS2322: Type string is not assignable to type number.';
const postHook = parseHooks({ hooks: { PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: `echo '${FEEDBACK}' >&2; exit 2` }] }] } }, '/settings.json', 'person');

/** The same scripted session, with or without the hook: its requests and the edit's inserted text. */
async function session(withHook: boolean): Promise<{ rows: RequestRow[]; edit: string }> {
  f = await engineFixture({
    files: { 'a.ts': 'export const a = 1;\nexport const b = 2;\n' },
    commands: unsandboxedRunner('test'),
    hooks: withHook ? () => [postHook] : undefined,
  });
  const call = (name: string, args: unknown) => formatCall(f!.syntax(), name, args);
  f.replies.push(
    call('read', { path: 'a.ts' }),
    call('edit', { path: 'a.ts', old_string: 'b = 2', new_string: 'b = "2"' }),
    'Changed.',
    call('read', { path: 'a.ts' }),
    'It reads as before.',
  );
  await f.agent.send('Make b a string.');
  await f.agent.send('Read it again.');
  const edit = f.events.find((e) => e.type === 'tool' && e.name === 'edit');
  const rows = f.agent.requests();
  await f.dispose();
  f = undefined;
  return { rows, edit: edit?.type === 'tool' ? edit.result.text : '' };
}

describe('a PostToolUse hook and the KV cache', { timeout: 180_000 }, () => {
  it('reuses the cache as a session without one: the feedback is only the result\'s own new tokens', async () => {
    const plain = await session(false);
    const hooked = await session(true);
    expect(hooked.edit).toBe(`${plain.edit}\n\n[PostToolUse hook exited 2]\n${FEEDBACK}`);
    expect(hooked.rows).toHaveLength(plain.rows.length);
    // Every request after the first reused all that the one before left in the cache, in both.
    for (const rows of [plain.rows, hooked.rows]) {
      expect(rows.filter((r) => r.cause || r.reusedTokens < r.cachedBefore)).toEqual([]);
    }
    // The same requests differ only by the feedback's tokens, once they carry it: read anew once, reused after.
    // Each is measured from its session's first request (the two workspaces' temporary paths tokenize apart).
    const grown = (rows: RequestRow[]) => rows.map((r) => r.promptTokens - rows[0].promptTokens);
    const [g0, g1] = [grown(plain.rows), grown(hooked.rows)];
    const extra = g1.map((n, i) => n - g0[i]);
    expect(extra[1]).toBe(0);
    const feedback = extra[2];
    expect(feedback).toBeGreaterThan(10);
    expect(extra.slice(2).every((n) => n === feedback)).toBe(true);
    expect(hooked.rows[2].newTokens - plain.rows[2].newTokens).toBe(feedback);
    for (let i = 3; i < hooked.rows.length; i++) expect(hooked.rows[i].newTokens).toBe(plain.rows[i].newTokens);
  });
});
