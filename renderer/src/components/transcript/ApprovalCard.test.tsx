// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../../../main/contract.js';
import { setSlice, useKeel } from '../../stores/store.js';
import { fakeApi, resetStores } from '../../test/fakeApi.js';
import { ApprovalCard, destructiveParts } from './ApprovalCard.js';

afterEach(cleanup);
beforeEach(resetStores);

const approval: ApprovalView = {
  approvalId: 7, sessionId: 1, tool: 'bash', args: { command: 'npm install' }, paths: [], command: 'npm install',
  preview: 'npm install', reason: 'this command changes files',
};

describe('ApprovalCard', () => {
  it('denies with what the person typed for the model, on Enter in the reason field', async () => {
    const answers: unknown[][] = [];
    fakeApi({ answerApproval: async (...args) => void answers.push(args) });
    setSlice('approvals', { items: [approval] });
    render(<ApprovalCard approval={approval} />);
    fireEvent.change(screen.getByTestId('approval-reason'), { target: { value: ' use pnpm ' } });
    await act(async () => {
      fireEvent.keyDown(screen.getByTestId('approval-reason'), { key: 'Enter' });
    });
    expect(answers).toEqual([[7, 'deny', 'use pnpm']]);
    expect(useKeel.getState().approvals.items).toEqual([]);
  });

  it('denies without a reason when none was typed, and allows once', async () => {
    const answers: unknown[][] = [];
    fakeApi({ answerApproval: async (...args) => void answers.push(args) });
    render(<ApprovalCard approval={approval} />);
    await act(async () => {
      fireEvent.click(screen.getByTestId('approval-deny'));
    });
    await act(async () => {
      fireEvent.click(screen.getByTestId('approval-allow'));
    });
    expect(answers).toEqual([[7, 'deny'], [7, 'allow']]);
  });

  it('shows a disguised command, its path and reason with every control and bidi character named, never raw', () => {
    const raw = 'bash evil.sh\r\x1b[2Kls -la \u202Egnp.exe';
    render(<ApprovalCard approval={{ ...approval, command: raw, preview: raw, args: { command: raw }, paths: ['/w/x\u202Ey'], reason: 'why\x1b[0m' }} />);
    expect(screen.getByTestId('approval-command').textContent).toBe('bash evil.sh⟨CR⟩⟨ESC⟩[2Kls -la ⟨U+202E⟩gnp.exe');
    expect(screen.getAllByTestId('escaped-char').map((e) => e.textContent)).toEqual(['⟨ESC⟩', '⟨CR⟩', '⟨ESC⟩', '⟨U+202E⟩', '⟨U+202E⟩']);
    expect(screen.getByTestId('approval-path').textContent).toBe('→ /w/x⟨U+202E⟩y');
    expect(screen.getByTestId('approval-preview').textContent).toBe('bash evil.sh⟨CR⟩⟨ESC⟩[2Kls -la ⟨U+202E⟩gnp.exe');
    const card = screen.getByTestId('approval-card').textContent ?? '';
    expect(card).not.toMatch(/(?![\n\t])[\p{Cc}\u202E]/u);
  });

  it('says what "Always for this session" covers, and flags a command that deletes recursively', () => {
    render(<ApprovalCard approval={{ ...approval, command: 'rm -rf build && npm install', args: { command: 'rm -rf build && npm install' } }} />);
    expect(screen.getByTestId('approval-allow-session').title).toBe('Allows exactly this command line again, without asking, until this session ends; any other command is asked.');
    expect(screen.getAllByTestId('approval-destructive').map((e) => e.textContent)).toEqual(['deletes recursively, without asking']);
    cleanup();
    render(<ApprovalCard approval={{ ...approval, tool: 'mcp__memory__create_entities', server: 'memory', serverTool: 'create_entities', command: undefined }} />);
    expect(screen.getByTestId('approval-allow-session').title).toContain('create_entities of memory with any arguments');
    expect(screen.queryByTestId('approval-destructive')).toBeNull();
  });

  it('tells destructive command lines from ordinary ones', () => {
    for (const line of ['rm -rf /tmp/x', 'rm -fr x', 'rm -r -f x', 'rm -Rf x', 'sudo rm -rf --no-preserve-root /']) {
      expect(destructiveParts(line), line).toContain('deletes recursively, without asking');
    }
    expect(destructiveParts('git push --force origin main')).toEqual(['discards git history or changes']);
    expect(destructiveParts('git reset --hard HEAD~1')).toEqual(['discards git history or changes']);
    for (const line of ['rm a.txt', 'rm -r build', 'npm run format', 'git push origin main', 'ls -rf', 'grep -rf patterns.txt']) {
      expect(destructiveParts(line), line).toEqual([]);
    }
  });
});
