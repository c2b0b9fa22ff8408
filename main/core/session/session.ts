import fs from 'node:fs';
import { insertResult } from '../hygiene/insert.js';
import { compactionText } from '../hygiene/compactionTable.js';
import type { Inserted, TableEntry } from '../hygiene/types.js';
import { validateArgs } from '../validate.js';
import { buildSystemPrompt, modeText, readInstructions } from '../prompts/buildSystemPrompt.js';
import { fill, mcpConfig } from '../config.js';
import { parseExternalName, unavailable, type ExternalTools, type ServerInstructions } from '../tools/external.js';
import { formatPlan } from '../tools/planWrite.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { CommandRunner } from '../tools/commandRunner.js';
import type { ToolContext } from '../tools/types.js';
import { ToolError, type PlanItem, type RawOutput, type ToolSpec } from '../types.js';
import { passExternalGate, passGate, type PermissionOptions } from '../permissions/approval.js';
import { lastTold, localDate, messageWithNotes } from './notes.js';
import { applyToTurn, restoreKnownHashes, restoreTurns } from './restore.js';
import { deleteProblem, lastPlanNote } from './takeBack.js';
import { builtinSpecs, sessionToolList } from './toolList.js';
import type { Mode, Note, ReplyCall, ReplyRow, SessionKind, SessionRow, SessionStore, Turn } from './types.js';

export interface SessionDeps {
  store: SessionStore;
  tools: ToolRegistry;
  promptsDir: string;
  /** The clock: the date note's only source. */
  now: () => Date;
  /** The permission gate's inputs: the person's rules and who approves. */
  permissions?: PermissionOptions;
  /** Runs bash's commands: the OS sandbox (main/sandbox). Without one, every command not judged read-only asks. */
  commands?: CommandRunner;
  /**
   * Tools from MCP servers (main/mcp), for the workspace's servers as they stand now. A new
   * session's list takes what they list; without it, a listed MCP tool answers its unavailable text.
   */
  external?: ExternalTools;
}

export interface NewSession {
  root: string;
  kind: SessionKind;
  mode?: Mode;
  title?: string;
  model?: string;
}

/** A session's misuse by its caller (not the model's): undo with nothing to undo, say. */
export class SessionError extends Error {}

/**
 * One session: its turns, the dedupe table of the request being built, the kept system prompt,
 * notes, undo and compaction. It knows nothing of models: the engine (main/llm) asks it for the
 * system prompt and the history, and hands it the model's tool calls.
 */
export class Session {
  private constructor(
    private readonly deps: SessionDeps,
    private row: SessionRow,
    private readonly turns: Turn[],
    private nextNumber: number,
    private readonly known: Map<string, string>,
    /** The system prompt the first request since the last (re)build sent. */
    private promptAtFirstRequest: string | undefined,
    /** "Always for this session" approvals: tool and target. */
    private readonly grants = new Set<string>(),
  ) {}

  static create(deps: SessionDeps, opts: NewSession): Session {
    let root: string;
    try {
      root = fs.realpathSync.native(opts.root);
    } catch {
      throw new SessionError(`The workspace ${opts.root} does not exist.`);
    }
    if (!fs.statSync(root).isDirectory()) throw new SessionError(`The workspace ${root} is not a folder.`);
    const mode = opts.mode ?? 'ask';
    const servers = deps.external?.instructions() ?? [];
    const prompt = buildSystemPrompt({ promptsDir: deps.promptsDir, root, mode, kind: opts.kind, servers });
    const tools = sessionToolList(builtinSpecs(deps.promptsDir, deps.tools), deps.external?.specs() ?? []);
    const row = deps.store.createSession({
      kind: opts.kind, root, title: opts.title ?? '', mode, systemPrompt: prompt.text, promptMode: mode,
      promptInstructionsHash: prompt.instructionsHash, epoch: 0, plan: [], model: opts.model ?? '',
      promptDate: localDate(deps.now()), planNotePending: false, createdAt: deps.now().toISOString(), tools, serverInstructions: byServer(servers),
    });
    return new Session(deps, row, [], 1, new Map(), undefined);
  }

  /**
   * Resumes a stored session: it sends the system prompt and tool list it kept, byte for byte. A
   * session stored before lists were kept had the built-in tools only, read on every request: its
   * list is built from them now, once, and stored.
   */
  static open(deps: SessionDeps, id: number): Session {
    let row = deps.store.getSession(id);
    if (!row) throw new SessionError(`No session ${id} in the store.`);
    if (row.tools === undefined) {
      const tools = builtinSpecs(deps.promptsDir, deps.tools);
      deps.store.updateSession(id, { tools });
      row = { ...row, tools };
    }
    const results = deps.store.listResults(id);
    const turns = restoreTurns(deps.store.listTurns(id), deps.store.listReplies(id), results);
    return new Session(deps, row, turns, deps.store.lastResultNumber(id) + 1, restoreKnownHashes(results), undefined);
  }

  get id(): number { return this.row.id; }
  get kind(): SessionKind { return this.row.kind; }
  get root(): string { return this.row.root; }
  get mode(): Mode { return this.row.mode; }
  get plan(): PlanItem[] { return this.row.plan; }
  get epoch(): number { return this.row.epoch; }
  get systemPrompt(): string { return this.row.systemPrompt; }
  get promptDate(): string { return this.row.promptDate; }
  get model(): string { return this.row.model; }
  /** Whether the person changed the plan since a message last carried it (kept in the store). */
  get planNotePending(): boolean { return this.row.planNotePending; }
  /** The tool list every request of this session sends: the same objects, in the same order, for its whole life. */
  get tools(): readonly ToolSpec[] { return this.row.tools ?? []; }

  /** The system prompt a request sends. The first request after a (re)build fixes the reference. */
  systemPromptForRequest(): string {
    this.promptAtFirstRequest ??= this.row.systemPrompt;
    return this.row.systemPrompt;
  }

  /** Whether the system prompt is byte-equal to what the first request since its (re)build sent. */
  systemPromptUnchanged(): boolean {
    return this.promptAtFirstRequest === undefined || this.promptAtFirstRequest === this.row.systemPrompt;
  }

  /** Turns the next request carries: this epoch's, not taken back. */
  history(): Turn[] {
    return this.turns.filter((t) => t.epoch === this.row.epoch && t.status !== 'undone');
  }

  /** The dedupe table: full results the request being built carries (spec §2). */
  table(): TableEntry[] {
    const open = this.openTurn();
    const carried = this.kind === 'chat' ? (open ? [open] : []) : this.history();
    return carried.flatMap((t) => t.entries);
  }

  private openTurn(): Turn | undefined {
    const last = this.turns[this.turns.length - 1];
    return last && last.status === 'open' && last.epoch === this.row.epoch ? last : undefined;
  }

  private startTurn(): Turn {
    const row = this.deps.store.insertTurn({
      sessionId: this.row.id, seq: this.turns.length + 1, epoch: this.row.epoch, status: 'open', notes: [],
      createdAt: this.deps.now().toISOString(),
    });
    const turn: Turn = { ...row, replies: [], entries: [], reads: [], calls: 0 };
    this.turns.push(turn);
    return turn;
  }

  /** A tool call as the model made it: validated, run, turned into its inserted text, stored. */
  async callTool(name: string, args: unknown, signal?: AbortSignal): Promise<Inserted> {
    return this.insert(name, args, await this.run(name, args, signal));
  }

  /** A call the model made that could not be read (malformed arguments): answered with an error. */
  rejectCall(name: string, args: unknown, problem: string): Promise<Inserted> {
    return this.insert(name, args, { kind: 'error', message: `Error: ${problem}` });
  }

  private async insert(name: string, args: unknown, raw: RawOutput): Promise<Inserted> {
    const turn = this.openTurn() ?? this.startTurn();
    this.systemPromptForRequest();
    const inserted = insertResult({ number: this.nextNumber, tool: name, args, raw, table: this.table() });
    this.deps.store.insertResult({
      sessionId: this.row.id, number: inserted.number, turnId: turn.id, tool: name, args: JSON.stringify(args ?? null),
      kind: inserted.kind, pathGiven: inserted.read?.pathGiven, pathResolved: inserted.read?.absPath,
      fileHash: inserted.read?.hash, lineStart: inserted.read?.start, lineEnd: inserted.read?.end,
      lineTotal: inserted.read?.total, files: inserted.wrote && JSON.stringify(inserted.wrote),
      argsKey: inserted.entry?.kind === 'result' ? inserted.entry.argsKey : undefined,
      body: inserted.body, inserted: inserted.text, createdAt: this.deps.now().toISOString(),
    }, raw.kind === 'text' ? raw.attachments : undefined);
    this.nextNumber++;
    applyToTurn(turn, inserted);
    if (inserted.read) this.known.set(inserted.read.absPath, inserted.read.hash);
    for (const f of inserted.wrote ?? []) {
      if (f.hash) this.known.set(f.absPath, f.hash);
      else this.known.delete(f.absPath);
    }
    return inserted;
  }

  private async run(name: string, args: unknown, signal?: AbortSignal): Promise<RawOutput> {
    const listed = this.tools.some((t) => t.name === name);
    const external = listed ? parseExternalName(name) : undefined;
    if (external) return this.runExternal(name, external.server, args, signal);
    const tool = listed ? this.deps.tools.get(name) : undefined;
    if (!tool) {
      return { kind: 'error', message: `Error: there is no tool "${name}". The tools are: ${this.tools.map((t) => t.name).join(', ')}.` };
    }
    const problem = validateArgs(tool.parameters, args);
    if (problem) return { kind: 'error', message: `Error: invalid arguments for ${name}: ${problem}.` };
    const ctx = this.toolContext(signal);
    try {
      const gate = await passGate({ sessionId: this.id, mode: this.mode }, tool, args as Record<string, unknown>, ctx, this.deps.permissions ?? {}, this.grants);
      return gate.kind === 'refused' ? gate.output : await tool.run(args as Record<string, unknown>, { ...ctx, access: gate.access });
    } catch (err) {
      if (err instanceof ToolError) return { kind: 'error', message: err.message };
      return { kind: 'error', message: `Error: ${name} failed: ${(err as Error)?.message ?? String(err)}` };
    }
  }

  /**
   * An MCP tool of the session's list: its server answers it, after the gate; a server that is not
   * there answers the unavailable text without asking anyone (there is nothing to approve).
   */
  private async runExternal(name: string, server: string, args: unknown, signal?: AbortSignal): Promise<RawOutput> {
    if (!args || typeof args !== 'object' || Array.isArray(args)) return { kind: 'error', message: fill(mcpConfig.texts.not_object, { name }) };
    const external = this.deps.external;
    if (!external) return unavailable(name, server, 'not configured here');
    const info = external.describe(name);
    if ('kind' in info) return info;
    const gate = await passExternalGate({ sessionId: this.id, mode: this.mode, root: this.row.root }, name, info, args as Record<string, unknown>, this.deps.permissions ?? {}, this.grants);
    return gate.kind === 'refused' ? gate.output : external.call(name, args as Record<string, unknown>, { sessionId: this.row.id, signal });
  }

  private toolContext(signal?: AbortSignal): ToolContext {
    return {
      root: this.row.root,
      knownHash: (absPath) => this.known.get(absPath),
      storedBody: (number) => this.deps.store.getResult(this.row.id, number)?.body,
      plan: this.row.plan,
      setPlan: (items) => this.updateRow({ plan: items }),
      mode: this.row.mode,
      signal,
      commands: this.deps.commands,
      askPerson: async (preview, reason) => {
        const approve = this.deps.permissions?.approve;
        return approve?.({ sessionId: this.row.id, tool: 'plan_submit', args: {}, paths: [], preview, reason });
      },
      setMode: (mode) => this.setMode(mode),
    };
  }

  private updateRow(fields: Partial<SessionRow>): void {
    this.deps.store.updateSession(this.row.id, fields);
    this.row = { ...this.row, ...fields };
  }

  /** The model's reply ended: the open turn is complete. */
  endReply(): void {
    const open = this.openTurn();
    if (!open) return;
    open.status = 'done';
    this.deps.store.updateTurn(open.id, { status: 'done' });
  }

  /** The person changed the permission mode; the model hears of it as a note on the next message. */
  setMode(mode: Mode): void {
    if (mode !== this.row.mode) this.updateRow({ mode });
  }

  /** The person edited the plan; the next message carries it as a note (stored until then). */
  setPlanByPerson(items: PlanItem[]): void {
    this.updateRow({ plan: items, planNotePending: true });
  }

  /**
   * A person's message: starts a turn (ending a reply still open) and appends the notes it needs:
   * the date when the history carries no date or another one, the mode when it differs from what
   * the model was last told, an edited instruction file, a plan the person changed.
   * Returns the message as sent.
   */
  userMessage(words: string, opts: { date?: string; mode?: Mode } = {}): { sent: string; notes: Note[] } {
    if (opts.mode) this.setMode(opts.mode);
    const open = this.openTurn();
    if (open && (open.calls > 0 || open.words !== undefined)) this.endReply();
    const told = lastTold(this.history(), {
      mode: this.row.promptMode, instructionsHash: this.row.promptInstructionsHash, servers: this.row.serverInstructions,
    });
    const date = opts.date ?? localDate(this.deps.now());
    const notes: Note[] = [];
    if (told.date !== date) notes.push({ kind: 'date', date });
    if (told.mode !== this.row.mode) notes.push({ kind: 'mode', mode: this.row.mode, body: modeText(this.deps.promptsDir, this.row.mode) });
    const instructions = readInstructions(this.row.root);
    if (instructions.hash !== told.instructionsHash) notes.push({ kind: 'instructions', ...instructions });
    if (this.row.planNotePending) notes.push({ kind: 'plan', body: formatPlan(this.row.plan) });
    for (const s of sortedServers(this.deps.external?.instructions(this.row.tools) ?? [])) {
      if (told.servers[s.server] !== s.text) notes.push({ kind: 'server', server: s.server, body: s.text });
    }

    const turn = this.openTurn() ?? this.startTurn();
    turn.words = words;
    turn.notes = notes;
    this.deps.store.updateTurn(turn.id, { words, notes });
    // Cleared only once the message holding the note is stored: a crash between repeats it, never loses it.
    if (this.row.planNotePending) this.updateRow({ planNotePending: false });
    this.systemPromptForRequest();
    return { sent: messageWithNotes(words, notes), notes };
  }

  /** Takes back the last completed turn: its messages and results leave the request. */
  undo(): Turn {
    const open = this.openTurn();
    if (open && (open.calls > 0 || open.words !== undefined)) throw new SessionError('A reply is still running; stop it before undoing.');
    const last = this.history().filter((t) => t.status === 'done').pop();
    if (!last) throw new SessionError('There is no completed turn to undo since the session began or was last compacted.');
    this.takeBack([last]);
    return last;
  }

  /**
   * Rewinds to the person's message of turn `seq`: that turn and every later one are taken back,
   * as an undo takes back one (their messages, replies and results leave the request, so the
   * dedupe table and the compaction table; files on disk stay as they are). Sending the message
   * again, or another text, is an edit and resend. Returns the turns taken back, oldest first.
   */
  rewindTo(seq: number): Turn[] {
    const history = this.history();
    const at = history.findIndex((t) => t.seq === seq);
    if (at < 0) throw new SessionError(this.notInHistory(seq));
    const later = history.slice(at);
    if (later.some((t) => t.status === 'open')) throw new SessionError('A reply is still running; stop it before rewinding.');
    this.takeBack(later);
    return later;
  }

  /**
   * Deletes one completed turn, keeping those after it: it is taken back as an undo takes back
   * the last (its reads leave the compaction table, spec §7). Refused where a later result would
   * then name a result the request no longer carries (see deleteProblem).
   */
  deleteTurn(seq: number): Turn {
    const history = this.history();
    const turn = history.find((t) => t.seq === seq);
    if (!turn) throw new SessionError(this.notInHistory(seq));
    if (turn.status === 'open') throw new SessionError('A reply is still running; stop it before deleting a turn.');
    const later = history.filter((t) => t.seq > seq);
    const problem = deleteProblem(turn, later, this.deps.store.listResults(this.row.id));
    if (problem) throw new SessionError(`Turn ${seq} cannot be deleted: ${problem}.`);
    this.takeBack([turn]);
    return turn;
  }

  private notInHistory(seq: number): string {
    const seqs = this.history().map((t) => t.seq);
    const range = seqs.length === 0 ? 'there are none' : `they are ${seqs.join(', ')}`;
    return `There is no turn ${seq} in the history since the session began or was last compacted (${range}).`;
  }

  /**
   * Marks turns taken back. A plan change the person made travels again with the next message
   * when the message that carried it is among them, as the date and mode notes do.
   */
  private takeBack(turns: Turn[]): void {
    const carriedPlan = lastPlanNote(this.history());
    for (const turn of turns) {
      turn.status = 'undone';
      this.deps.store.updateTurn(turn.id, { status: 'undone' });
    }
    if (carriedPlan && turns.includes(carriedPlan) && !this.row.planNotePending) this.updateRow({ planNotePending: true });
  }

  /**
   * Spec §7: the model's reply to the compaction request becomes the summary: its words, the text
   * before any tool call (which is not run), as the engine read them in the model family's own
   * format (the core knows no call syntax). An empty summary fails and changes nothing. Otherwise the
   * summary and the table of the reads it covers replace the history, the system prompt is
   * rebuilt, the dedupe table is emptied, and ids go on.
   */
  compact(words: string): string {
    const summary = words.trim();
    if (summary === '') throw new SessionError('Compaction failed: the summary is empty; the session is unchanged.');
    this.endReply();
    const reads = this.history().flatMap((t) => t.reads);
    const text = compactionText(summary, reads);
    const epoch = this.row.epoch + 1;
    this.deps.store.insertCompaction({ sessionId: this.row.id, epoch, summary, text, createdAt: this.deps.now().toISOString() });
    this.rebuildPrompt({ epoch });
    return text;
  }

  /**
   * Builds the system prompt again: only where everything is read again anyway (after a
   * compaction, or when the session moves to another model). The date templates see moves with it.
   */
  rebuildPrompt(fields: Partial<Pick<SessionRow, 'epoch' | 'model'>> = {}): void {
    // A server that is not connected now keeps the instructions the model last got from it: its tools are still listed.
    const told = lastTold(this.history(), {
      mode: this.row.promptMode, instructionsHash: this.row.promptInstructionsHash, servers: this.row.serverInstructions,
    }).servers;
    const servers = { ...told, ...byServer(this.deps.external?.instructions(this.row.tools) ?? []) };
    const prompt = buildSystemPrompt({
      promptsDir: this.deps.promptsDir, root: this.row.root, mode: this.row.mode, kind: this.row.kind,
      servers: Object.entries(servers).map(([server, text]) => ({ server, text })),
    });
    this.updateRow({
      ...fields, systemPrompt: prompt.text, promptMode: this.row.mode, promptInstructionsHash: prompt.instructionsHash,
      promptDate: localDate(this.deps.now()), serverInstructions: servers,
    });
    this.promptAtFirstRequest = undefined;
  }

  /** Records a model reply of the open turn: its words, its calls with their result numbers, and its raw text (see ReplyRow). */
  recordReply(text: string, calls: ReplyCall[], raw?: string): ReplyRow {
    const turn = this.openTurn() ?? this.startTurn();
    const reply = this.deps.store.insertReply({
      sessionId: this.row.id, turnId: turn.id, seq: turn.replies.length + 1, text, ...(raw === undefined ? {} : { raw }), calls,
      createdAt: this.deps.now().toISOString(),
    });
    turn.replies.push(reply);
    return reply;
  }

  /**
   * The text a result was inserted as (what the model got). A result's text never changes once
   * stored, so each is read from the store once: a request carries every result of the history, and
   * reading them all again (with their full bodies) on every request cost time that grew with it.
   */
  insertedText(number: number): string {
    const kept = this.inserted.get(number);
    if (kept !== undefined) return kept;
    const row = this.deps.store.getResult(this.row.id, number);
    if (!row) throw new SessionError(`No result #${number} in session ${this.row.id}.`);
    this.inserted.set(number, row.inserted);
    return row.inserted;
  }

  /** Results' inserted text, by number, as read from the store (see insertedText). */
  private readonly inserted = new Map<number, string>();

  /** The summary and table the history starts with since the last compaction, if any. */
  compactedHistory(): string | undefined {
    return this.row.epoch === 0 ? undefined : this.deps.store.lastCompaction(this.row.id)?.text;
  }
}

function byServer(list: readonly ServerInstructions[]): Record<string, string> {
  return Object.fromEntries(list.map((s) => [s.server, s.text]));
}

function sortedServers(list: readonly ServerInstructions[]): ServerInstructions[] {
  return [...list].sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
}
