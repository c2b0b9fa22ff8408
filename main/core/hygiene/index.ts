export { insertResult, type InsertInput } from './insert.js';
export { compactionTable, compactionText } from './compactionTable.js';
export { capBody } from './cap.js';
export { diffHunks } from './diff.js';
export { formatId, parseId } from './ids.js';
export { stableJson } from './stableJson.js';
export type { Inserted, ReadRecord, ResultKind, TableEntry } from './types.js';
