import type { ApprovalAnswer, ApprovalView } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';

export interface ApprovalsSlice {
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
export function approvalsSlice({ get, set, call }: SliceContext<ApprovalsSlice>): ApprovalsSlice {
  const done = (approvalId: number) =>
    set((s) => {
      const answering = { ...s.answering };
      delete answering[approvalId];
      return { answering };
    });
  return {
    items: [],
    answering: {},
    async load() {
      const got = await call((api) => api.pendingApprovals());
      if (got.ok) set({ items: got.value });
    },
    add: (approval) => set((s) => ({ items: [...s.items.filter((a) => a.approvalId !== approval.approvalId), approval] })),
    remove(approvalId) {
      set((s) => ({ items: s.items.filter((a) => a.approvalId !== approvalId) }));
      done(approvalId);
    },
    async answer(approvalId, answer, reason) {
      set((s) => ({ answering: { ...s.answering, [approvalId]: true } }));
      const why = reason?.trim();
      const got = await call((api) => (why ? api.answerApproval(approvalId, answer, why) : api.answerApproval(approvalId, answer)));
      if (got.ok) get().remove(approvalId);
      else done(approvalId);
    },
  };
}
