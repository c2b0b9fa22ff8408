import fs from 'node:fs';
import { contextConfig, fill } from '../config.js';
import { instructionFiles, instructionHashes, modeText, readInstructions, type InstructionFile } from '../prompts/buildSystemPrompt.js';
import type { ServerInstructions } from '../tools/external.js';
import { formatPlan } from '../tools/planWrite.js';
import type { MessageSection } from '../engine/types.js';
import type { Mode, Note, SessionRow, Turn } from './types.js';

/** What the model was last told, read from the history the next request carries. */
export interface Told {
  date?: string;
  mode: Mode;
  /** Each instruction file's hash as the model last had it (absent: it had none of it). */
  instructions: Record<string, string>;
  /** Each MCP server's instructions as the model last got them (system prompt or note). */
  servers: Record<string, string>;
}

/**
 * What the history tells, turn by turn: each turn's notes (on its message, first), then the files
 * its carried results wrote. The model's own change of an instruction file (`root`'s, by absolute
 * path) is told by its diff, so it counts as told as a note would.
 */
export function lastTold(
  history: readonly Turn[], prompt: { mode: Mode; instructionsHash: string; servers?: Record<string, string> }, root?: string,
): Told {
  const told: Told = { mode: prompt.mode, instructions: instructionHashes(prompt.instructionsHash), servers: { ...prompt.servers } };
  const files = root === undefined ? [] : instructionPaths(root);
  for (const turn of history) {
    for (const note of turn.notes) {
      if (note.kind === 'date') told.date = note.date;
      if (note.kind === 'mode') told.mode = note.mode;
      if (note.kind === 'instructions') told.instructions[note.path] = note.hash;
      if (note.kind === 'server') told.servers[note.server] = note.body;
    }
    for (const file of turn.wrote) {
      const named = files.find((f) => f.absPath === file.absPath);
      if (named) told.instructions[named.path] = file.hash;
    }
  }
  return told;
}

/**
 * The instruction files as they are now, each as the file tools name it (absolute, resolved where it
 * exists) with the hash a note would carry ('' when there is none).
 */
export function instructionsNow(root: string): { path: string; absPath: string; hash: string }[] {
  const hashes = new Map(readInstructions(root).map((i) => [i.path, i.hash]));
  return instructionPaths(root).map((f) => ({ ...f, hash: hashes.get(f.path) ?? '' }));
}

/** The instruction files, each at the absolute path the file tools name it by (resolved where it exists); nothing read. */
function instructionPaths(root: string): InstructionFile[] {
  return instructionFiles(root).map((f) => {
    try {
      return { path: f.path, absPath: fs.realpathSync.native(f.absPath) };
    } catch {
      return f;
    }
  });
}

/** The files a revert note will name: those pending and these, once each, sorted. */
export function withReverted(pending: readonly string[] | undefined, paths: readonly string[]): string[] {
  return [...new Set([...(pending ?? []), ...paths])].sort();
}

/** What the next message's notes are worked out from. */
export interface NoteInputs {
  row: SessionRow;
  /** The turns the request carries (what the model was told is read from their notes). */
  history: readonly Turn[];
  /** The person's local date now. */
  date: string;
  promptsDir: string;
  /** The MCP servers' instructions as they stand now. */
  servers: readonly ServerInstructions[];
}

/**
 * The notes a person's message carries (spec §10.3): the date when the history carries no date or
 * another one, the mode when it differs from what the model was last told, an instruction file
 * that differs from what the model last had of it (the prompt, a note, or its own change in the
 * history: so only an edit the session did not make), a plan the person changed, an MCP server's
 * instructions the model has not had.
 */
export function messageNotes({ row, history, date, promptsDir, servers }: NoteInputs): Note[] {
  const prompt = { mode: row.promptMode, instructionsHash: row.promptInstructionsHash, servers: row.serverInstructions };
  const told = lastTold(history, prompt, row.root);
  const notes: Note[] = [];
  if (told.date !== date) notes.push({ kind: 'date', date });
  if (told.mode !== row.mode) notes.push({ kind: 'mode', mode: row.mode, body: modeText(promptsDir, row.mode) });
  for (const i of readInstructions(row.root)) if (i.hash !== (told.instructions[i.path] ?? '')) notes.push({ kind: 'instructions', ...i });
  if (row.planNotePending) notes.push({ kind: 'plan', body: formatPlan(row.plan) });
  if (row.revertedPending?.length) notes.push({ kind: 'reverted', paths: row.revertedPending });
  for (const s of sortedServers(servers)) {
    if (told.servers[s.server] !== s.text) notes.push({ kind: 'server', server: s.server, body: s.text });
  }
  return notes;
}

function sortedServers(list: readonly ServerInstructions[]): ServerInstructions[] {
  return [...list].sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
}

/** The message as sent: the person's words, then each note as its own paragraph. */
export function messageWithNotes(words: string, notes: readonly Note[]): string {
  return messageSections(words, notes).map((s) => s.text).join(contextConfig.note.separator);
}

/** The message's two pieces as the context view names them: the words, then the notes (each present where it is not empty). */
export function messageSections(words: string, notes: readonly Note[]): MessageSection[] {
  const paragraphs = noteTexts(notes);
  return [
    ...(words === '' ? [] : [{ kind: 'words' as const, text: words }]),
    ...(paragraphs.length === 0 ? [] : [{ kind: 'notes' as const, text: paragraphs.join(contextConfig.note.separator) }]),
  ];
}

/** Each note as the message carries it, in order (a note with no text is not carried). */
export function noteTexts(notes: readonly Note[]): string[] {
  return notes.map(noteText).filter((p) => p !== '');
}

function noteText(note: Note): string {
  const c = contextConfig.note;
  switch (note.kind) {
    case 'date':
      return fill(c.date, { date: note.date });
    case 'mode':
      return fill(c.mode, { mode: note.mode, body: note.body });
    case 'instructions':
      return fill(c.instructions, { path: note.path, body: note.body });
    case 'plan':
      return fill(c.plan, { body: note.body });
    case 'server':
      return fill(c.server, { server: note.server, body: note.body });
    case 'hook':
      return fill(c.hook, { body: note.body });
    case 'reverted':
      return fill(c.reverted, { paths: note.paths.join(', ') });
  }
}

/** A local calendar date, YYYY-MM-DD. */
export function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
