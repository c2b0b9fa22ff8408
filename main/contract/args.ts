/** The argument shapes several contract methods share (contract.ts and its blocks). Values only. */

export const SESSION_ID = { type: 'integer', minimum: 1 } as const;
/** A turn's number in its session (TurnView.seq). */
export const SEQ = { type: 'integer', minimum: 1 } as const;
export const TEXT = { type: 'string' } as const;
export const PATH = { type: 'string' } as const;
export const FLAG = { type: 'boolean' } as const;
