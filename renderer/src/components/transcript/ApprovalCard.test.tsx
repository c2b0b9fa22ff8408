// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../../../main/contract.js';
import { useApprovals } from '../../stores/useApprovals.js';
import { fakeApi, resetStores } from '../../test/fakeApi.js';
import { ApprovalCard } from './ApprovalCard.js';

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
    useApprovals.setState({ items: [approval] });
    render(<ApprovalCard approval={approval} />);
    fireEvent.change(screen.getByTestId('approval-reason'), { target: { value: ' use pnpm ' } });
    await act(async () => {
      fireEvent.keyDown(screen.getByTestId('approval-reason'), { key: 'Enter' });
    });
    expect(answers).toEqual([[7, 'deny', 'use pnpm']]);
    expect(useApprovals.getState().items).toEqual([]);
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
});
