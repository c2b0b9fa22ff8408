import type { ApprovalAnswer, ApprovalView, KeelEvent } from '../contract.js';
import type { ApprovalDecision, ApprovalRequest } from '../core/permissions/approval.js';

/**
 * The gate's questions, put to the person through the UI: each waits here, with an id, until it is
 * answered (or denied when its session stops or the app closes). The model never sees or answers one.
 */
export class ApprovalBroker {
  private readonly waiting = new Map<number, { view: ApprovalView; resolve: (decision: ApprovalDecision) => void }>();
  private next = 1;

  constructor(private readonly emit: (event: KeelEvent) => void) {}

  readonly approve = (request: ApprovalRequest): Promise<ApprovalDecision> => new Promise((resolve) => {
    const view: ApprovalView = { approvalId: this.next++, ...request };
    this.waiting.set(view.approvalId, { view, resolve });
    this.emit({ type: 'approval', approval: view });
  });

  answer(approvalId: number, answer: ApprovalAnswer, reason?: string): void {
    const pending = this.waiting.get(approvalId);
    if (!pending) throw new Error(`No approval ${approvalId} is waiting.`);
    this.waiting.delete(approvalId);
    pending.resolve({ answer, reason });
    this.emit({ type: 'approval-answered', approvalId, answer });
  }

  pending(): ApprovalView[] {
    return [...this.waiting.values()].map((p) => p.view);
  }

  /** Denies what waits for one session, or for all. */
  denyAll(sessionId?: number): void {
    for (const [id, pending] of this.waiting) if (sessionId === undefined || pending.view.sessionId === sessionId) this.answer(id, 'deny');
  }
}
