import { describe, expect, it } from 'vitest';
import { contextConfig, fill } from '../core/config.js';
import { CodexItems, exitCode } from './commands/codexItems.js';

const texts = contextConfig.texts;

describe("Codex's command_execution exit code, read from bash's status line", () => {
  it.each([
    ['hi', 0],
    ['', 0],
    ['1 failed\n[exit code 1]', 1],
    [`boom\n[exit code 2]\n${fill(texts.sandbox_refused, { what: 'write /etc/x' })}\n[git check: a note]`, 2],
    [`slow\n${fill(texts.timed_out, { ms: 1000 })}`, null],
    [`big\n${fill(texts.output_stopped, { bytes: 8000000 })}`, null],
    ['[killed by SIGTERM]', null],
    // A line of the output that only looks like a status line, followed by more output, is output.
    ['[exit code 9]\nthen more', 0],
  ])('%j → %s', (output, code) => {
    expect(exitCode(output)).toBe(code);
  });

  it('a bash call whose approval was not given is declined, with no exit code', () => {
    const items = new CodexItems('/nowhere');
    const call = { name: 'bash', args: { command: 'rm -rf build' }, number: 4 };
    const text = '[#0004]\nError: the person denied the command "rm -rf build". Nothing was run.';
    expect(items.completed(call, { number: 4, kind: 'error', text, body: text }, true)).toEqual({
      type: 'command_execution', id: '#0004', command: 'rm -rf build', aggregated_output: 'Error: the person denied the command "rm -rf build". Nothing was run.',
      exit_code: null, status: 'declined',
    });
  });

  it("a background command and Keel's other tools have no Codex item", () => {
    const items = new CodexItems('/nowhere');
    expect(items.started({ name: 'bash', args: { command: 'npm run dev', run_in_background: true }, number: 1 })).toBeUndefined();
    expect(items.started({ name: 'read', args: { path: 'a.txt' }, number: 2 })).toBeUndefined();
  });
});
