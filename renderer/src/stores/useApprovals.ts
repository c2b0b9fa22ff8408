import { create } from 'zustand';
import type { ApprovalAnswer, ApprovalView } from '../../../main/contract.js';
import { getApi } from '../api.js';
import { report } from './useErrors.js';

interface ApprovalsState {
  /** Actions waiting for the person, across sessions, oldest first. */
  items: ApprovalView[];
  /** Answers being sent (their buttons are disabled meanwhile). */
  answering: Record<number, true>;
  load(): Promise<void>;
  add(approval: ApprovalView): void;
  remove(approvalId: number): void;
  answer(approvalId: number, answer: ApprovalAnswer, reason?: string): Promise<void>;
}

/** Approvals main asks for (`approval` events; `pendingApprovals()` after a reload). */
export const useApprovals = create<ApprovalsState>()((set, get) => ({
  items: [],
  answering: {},
  async load() {
    try {
      set({ items: await getApi().pendingApprovals() });
    } catch (err) {
      report(err);
    }
  },
  add: (approval) => set((s) => ({ items: [...s.items.filter((a) => a.approvalId !== approval.approvalId), approval] })),
  remove: (approvalId) =>
    set((s) => {
      const answering = { ...s.answering };
      delete answering[approvalId];
      return { items: s.items.filter((a) => a.approvalId !== approvalId), answering };
    }),
  async answer(approvalId, answer, reason) {
    set((s) => ({ answering: { ...s.answering, [approvalId]: true } }));
    try {
      await (reason?.trim() ? getApi().answerApproval(approvalId, answer, reason.trim()) : getApi().answerApproval(approvalId, answer));
      get().remove(approvalId);
    } catch (err) {
      report(err);
      set((s) => {
        const answering = { ...s.answering };
        delete answering[approvalId];
        return { answering };
      });
    }
  },
}));
