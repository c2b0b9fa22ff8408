/**
 * The answers a person can give an approval request. A leaf module with no imports, so the UI
 * contract (bundled into the preload script and the renderer) can check answers against the same
 * list the approval code uses.
 */
export const APPROVAL_ANSWERS = ['allow', 'allow-session', 'deny'] as const;
export type ApprovalAnswer = (typeof APPROVAL_ANSWERS)[number];
