import type { ElidedMark } from './cap.js';

/**
 * The dedupe table (spec §2, §6) is the set of full results in the request being built. The
 * session derives it from the turns that request carries; hygiene only reads it.
 */
export type TableEntry =
  /** A full read: its file (absolute, resolved), content hash and the lines it showed. */
  | { kind: 'read'; number: number; absPath: string; hash: string; start: number; end: number }
  /** A full listing or search (dedupe.by_result): its tool, arguments as sorted-key JSON, body. */
  | { kind: 'result'; number: number; tool: string; argsKey: string; body: string };

/** A full read, as the compaction table (§7) and the store need it. */
export interface ReadRecord {
  number: number;
  pathGiven: string;
  absPath: string;
  hash: string;
  start: number;
  end: number;
  total: number;
}

export type ResultKind = 'full' | 'stub' | 'same' | 'error' | 'recall' | 'change';

/** What insertion produced: the text the model gets, and what is stored in full. */
export interface Inserted {
  number: number;
  kind: ResultKind;
  /** The text inserted into the request, bracket first. */
  text: string;
  /** The stored body: the result without its bracket line, uncapped; for a stub the text it stands for. */
  body: string;
  /** The entry this result adds to the dedupe table, if it is a full read or listing. */
  entry?: TableEntry;
  /** Set for every read (full or stub): the file the call saw. `full` tells which. */
  read?: ReadRecord & { full: boolean };
  /** Files whose content the session now knows (edits, writes, patches): hash '' = deleted. */
  wrote?: { absPath: string; hash: string }[];
  /**
   * Files the call changed that its result shows no diff of (a command, an MCP tool, a hook run for
   * the call): the session's own change, never the person's. Only the instruction file is watched.
   */
  touched?: { absPath: string; hash: string }[];
  /** Where the text's elided line stands, when the body was capped (spec §3): known as it is made. */
  elided?: ElidedMark;
}
