/**
 * The actions whose cache break is priced before it is paid (price.ts `BreakAction`), as values:
 * the contract checks the app's `price` call against this list. Values only, importing nothing.
 */
export const PRICED_ACTIONS = ['take back', 'delete', 'compact', 'switch model', 'new tool list'] as const;
export type PricedActionKind = (typeof PRICED_ACTIONS)[number];
