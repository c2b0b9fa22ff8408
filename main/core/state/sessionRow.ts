import fs from 'node:fs';
import { SessionError, type NewSession, type SessionDeps } from './deps.js';
import { readSkills } from '../tools/skillFiles.js';
import { newPromptFields } from './prompt.js';
import { restoreKnownHashes, restoreTurns } from './restore.js';
import { builtinSpecs, sessionToolList } from './toolList.js';
import type { SessionRow, Turn } from './types.js';

/**
 * A new session's row, stored: the workspace resolved (it must be a folder), the system prompt
 * and the tool list built now, once, for the session's whole life (with the skills there are now).
 */
export function createSessionRow(deps: SessionDeps, opts: NewSession): SessionRow {
  let root: string;
  try {
    root = fs.realpathSync.native(opts.root);
  } catch {
    throw new SessionError(`The workspace ${opts.root} does not exist.`);
  }
  if (!fs.statSync(root).isDirectory()) throw new SessionError(`The workspace ${root} is not a folder.`);
  const mode = opts.mode ?? 'ask';
  // The skills are read once, here: the prompt lists them and the tool list offers `skill` from the same reading.
  const { skills } = readSkills(root);
  const prompt = newPromptFields(deps, root, mode, opts.kind, skills);
  const tools = opts.child?.tools ?? sessionToolList(builtinSpecs(deps.promptsDir, deps.tools, { skills: skills.length > 0 }), deps.external?.specs() ?? []);
  return deps.store.createSession({
    ...(opts.child && { parentId: opts.child.parentId }),
    kind: opts.kind, root, title: opts.title ?? '', mode, systemPrompt: opts.child?.systemPrompt ?? prompt.systemPrompt, promptMode: prompt.promptMode,
    promptInstructionsHash: prompt.promptInstructionsHash, epoch: 0, plan: [], model: opts.model ?? '',
    promptDate: opts.child?.promptDate ?? prompt.promptDate, planNotePending: false, createdAt: deps.now().toISOString(), tools, serverInstructions: prompt.serverInstructions,
  });
}

/** A stored session as it resumes: its row, its turns, the next result number and what it knew of each file. */
export interface StoredSession {
  row: SessionRow;
  turns: Turn[];
  nextNumber: number;
  known: Map<string, string>;
}

/**
 * Reads a stored session back. It sends the system prompt and tool list it kept, byte for byte. A
 * session stored before lists were kept had the built-in tools only, read on every request: its
 * list is built from them now, once, and stored.
 */
export function readStoredSession(deps: SessionDeps, id: number): StoredSession {
  let row = deps.store.getSession(id);
  if (!row) throw new SessionError(`No session ${id} in the store.`);
  if (row.tools === undefined) {
    const tools = builtinSpecs(deps.promptsDir, deps.tools);
    deps.store.updateSession(id, { tools });
    row = { ...row, tools };
  }
  const results = deps.store.listResults(id);
  return {
    row, turns: restoreTurns(deps.store.listTurns(id), deps.store.listReplies(id), results),
    nextNumber: deps.store.lastResultNumber(id) + 1, known: restoreKnownHashes(results),
  };
}
