// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setSlice } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { PlanPanel } from './PlanPanel.js';

afterEach(cleanup);
beforeEach(resetStores);

describe('PlanPanel', () => {
  it("edits the plan's steps, order and status, and saves it through main; main's view then says the model hears of it", async () => {
    let view = sessionView({ plan: [{ text: 'Read the parser', status: 'done' }, { text: 'Fix it', status: 'todo' }] });
    const saved: unknown[][] = [];
    fakeApi({
      openSession: async () => view,
      setPlan: async (id: number, items: unknown) => {
        saved.push([id, items]);
        view = sessionView({ plan: items as typeof view.plan, planPending: true });
      },
    });
    setSlice('transcript', { sessionId: 1, view });
    render(<PlanPanel />);
    expect(screen.queryByTestId('plan-pending')).toBeNull();
    expect((screen.getByTestId('plan-save') as HTMLButtonElement).disabled).toBe(true);

    fireEvent.change(screen.getByTestId('plan-status-2'), { target: { value: 'doing' } });
    fireEvent.change(screen.getByTestId('plan-text-2'), { target: { value: 'Fix the off-by-one  ' } });
    fireEvent.click(screen.getByTestId('plan-add'));
    // An empty step cannot be saved.
    expect((screen.getByTestId('plan-save') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByTestId('plan-text-3'), { target: { value: 'Test it' } });
    fireEvent.click(screen.getByLabelText('Move step 3 up'));
    fireEvent.click(screen.getByTestId('plan-remove-1'));
    await act(async () => fireEvent.click(screen.getByTestId('plan-save')));

    expect(saved).toEqual([[1, [{ text: 'Test it', status: 'todo' }, { text: 'Fix the off-by-one', status: 'doing' }]]]);
    expect(screen.getByTestId('plan-pending').textContent).toBe('the model hears of your change with your next message');
    expect((screen.getByTestId('plan-text-1') as HTMLInputElement).value).toBe('Test it');
  });

  it('discards unsaved changes', () => {
    fakeApi();
    setSlice('transcript', { sessionId: 1, view: sessionView({ plan: [{ text: 'One', status: 'todo' }] }) });
    render(<PlanPanel />);
    fireEvent.change(screen.getByTestId('plan-text-1'), { target: { value: 'Changed' } });
    fireEvent.click(screen.getByTestId('plan-discard'));
    expect((screen.getByTestId('plan-text-1') as HTMLInputElement).value).toBe('One');
  });
});
