/**
 * The answers a person can give an approval request, and what they said with one. A leaf module
 * with no imports, below every folder of the core that asks (tools, permissions, hooks), so the UI
 * contract (bundled into the preload script and the renderer) can check answers against the same
 * list the approval code uses.
 */
export const APPROVAL_ANSWERS = ['allow', 'allow-session', 'deny'] as const;
export type ApprovalAnswer = (typeof APPROVAL_ANSWERS)[number];

/** An answer, and what the person told the model with a denial ("use pnpm"). */
export interface ApprovalDecision {
  answer: ApprovalAnswer;
  reason?: string;
}

/** An approver's answer, and what the person said with it as a sentence for the model ('' for nothing). */
export function readDecision(decision: ApprovalAnswer | ApprovalDecision): { answer: ApprovalAnswer; said: string } {
  const { answer, reason } = typeof decision === 'string' ? { answer: decision, reason: undefined } : decision;
  return { answer, said: reason?.trim() ? ` They said: ${reason.trim()}` : '' };
}
