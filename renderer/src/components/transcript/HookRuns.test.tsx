// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookRunView, ToolView } from '../../../../main/contract.js';
import { resetStores } from '../../test/fakeApi.js';
import { ToolCall } from './ToolCall.js';

afterEach(cleanup);
beforeEach(resetStores);

const FILE = '/code/ledger-api/.keel/settings.json';
const run = (o: Partial<HookRunView>): HookRunView => ({ event: 'PostToolUse', command: 'npx tsc --noEmit 1>&2 || exit 2', file: FILE, exit: 0, stdout: '', stderr: '', ms: 840, ...o });
const tool = (o: Partial<ToolView>): ToolView => ({ number: 3, id: '#0003', name: 'edit', args: { path: 'src/app.ts' }, text: '[#0003 src/app.ts sha 1c9e04ab] Edited.', ...o });
const show = (t: ToolView) => render(<ToolCall row={{ seq: 1, index: 0, tool: t }} />);

describe('hook runs on a tool result', () => {
  it("names each hook, how it ended and what it printed, below the result as the model got it", () => {
    show(tool({
      text: '[#0003 src/app.ts sha 1c9e04ab] Edited.\n\n[PostToolUse hook exited 2]\nsrc/app.ts(3,1): error TS2304',
      hooks: [
        run({ exit: 2, stderr: 'src/app.ts(3,1): error TS2304\n', stdout: 'checked 1 file\n' }),
        run({ command: 'sleep 60', exit: null, problem: 'it did not finish within 30 s and was stopped', ms: 30004 }),
        run({ command: 'yes', exit: null, problem: 'its stdout passed 65536 bytes and it was stopped', stdout: 'y\ny\n' }),
        run({ command: './missing.sh', exit: null, problem: 'it could not start: spawn bash ENOENT', ms: 2 }),
        run({ command: 'prettier --check .', exit: 1, stderr: 'warn\n' }),
      ],
    }));
    const runs = screen.getAllByTestId('hook-run');
    expect(runs).toHaveLength(5);
    expect(runs[0].textContent).toContain('PostToolUse hook npx tsc --noEmit 1>&2 || exit 2 exited 2 · 840 ms · ' + FILE);
    expect(within(runs[0]).getByTestId('hook-stderr').textContent).toBe('src/app.ts(3,1): error TS2304');
    expect(within(runs[0]).getByTestId('hook-stdout').textContent).toBe('checked 1 file');
    expect(runs[0].textContent).toContain('Its stderr follows the result the model got.');
    expect(within(runs[1]).getByTestId('hook-ending').textContent).toBe('did not finish: it did not finish within 30 s and was stopped');
    expect(within(runs[2]).getByTestId('hook-ending').textContent).toBe('did not finish: its stdout passed 65536 bytes and it was stopped');
    expect(within(runs[3]).getByTestId('hook-ending').textContent).toBe('did not finish: it could not start: spawn bash ENOENT');
    expect(within(runs[3]).queryByTestId('hook-stderr')).toBeNull();
    expect(within(runs[4]).getByTestId('hook-ending').textContent).toBe('exited 1');
    expect(runs[4].textContent).toContain('The model was told nothing of it.');
    expect(screen.getByTestId('tool-result-0003').textContent).toContain('[PostToolUse hook exited 2]');
    expect(screen.queryByTestId('tool-blocked')).toBeNull();
  });

  it('marks a call a PreToolUse hook blocked, which a denied call is not', () => {
    show(tool({
      name: 'bash', args: { command: 'rm -rf build' }, text: '[#0003]\nBlocked by a PreToolUse hook: no deletes here',
      hooks: [run({ event: 'PreToolUse', command: './guard.sh', exit: 2, stderr: 'no deletes here\n', blocked: true })],
    }));
    expect(screen.getByTestId('tool-blocked').textContent).toBe('blocked by a hook');
    const [blocked] = screen.getAllByTestId('hook-run');
    expect(blocked.className).toContain('blocked');
    expect(within(blocked).getByTestId('hook-ending').textContent).toBe('blocked the call (exit 2)');
    expect(blocked.textContent).toContain('The tool did not run');
    cleanup();

    show(tool({ name: 'bash', args: { command: 'rm -rf build' }, text: '[#0003]\nError: the person denied this command. Nothing was changed.' }));
    expect(screen.queryByTestId('tool-blocked')).toBeNull();
    expect(screen.queryByTestId('hook-runs')).toBeNull();
  });

  it("shows a hook's command and output with their hidden characters named", () => {
    show(tool({ hooks: [run({ command: 'bash evil.sh\rls -la', exit: 2, stderr: 'ok\u202e\n' })] }));
    const [one] = screen.getAllByTestId('hook-run');
    expect(one.textContent).toContain('bash evil.sh⟨CR⟩ls -la');
    expect(within(one).getByTestId('hook-stderr').textContent).toBe('ok⟨U+202E⟩');
  });
});
