import { buildSystemPrompt } from '../prompts/buildSystemPrompt.js';
import type { ServerInstructions } from '../tools/external.js';
import { readSkills, type Skill } from '../tools/skillFiles.js';
import type { SessionDeps } from './deps.js';
import { lastTold, localDate } from './notes.js';
import type { SessionRecord } from './record.js';
import type { SessionKind, SessionRow, Mode, Turn } from './types.js';

/**
 * The kept system prompt: built once when the session is made, sent byte for byte, rebuilt only
 * where everything is read again anyway (after a compaction, or a move to another model). It
 * remembers what the first request since the last (re)build sent, so a change can be seen.
 */
export class KeptPrompt {
  /** The system prompt the first request since the last (re)build sent. */
  private atFirstRequest: string | undefined;

  constructor(
    private readonly deps: Pick<SessionDeps, 'promptsDir' | 'now' | 'external'>,
    private readonly record: SessionRecord,
    private readonly history: () => Turn[],
  ) {}

  /** The system prompt a request sends. The first request after a (re)build fixes the reference. */
  forRequest(): string {
    this.atFirstRequest ??= this.record.row.systemPrompt;
    return this.record.row.systemPrompt;
  }

  /** Whether the system prompt is byte-equal to what the first request since its (re)build sent. */
  unchanged(): boolean {
    return this.atFirstRequest === undefined || this.atFirstRequest === this.record.row.systemPrompt;
  }

  /** Builds the system prompt again, with the row's other changes (a new epoch, a new model). The date templates see moves with it. */
  rebuild(fields: Partial<Pick<SessionRow, 'epoch' | 'model'>> = {}): void {
    const row = this.record.row;
    // A server that is not connected now keeps the instructions the model last got from it: its tools are still listed.
    const told = lastTold(this.history(), { mode: row.promptMode, instructionsHash: row.promptInstructionsHash, servers: row.serverInstructions }).servers;
    const servers = { ...told, ...byServer(this.deps.external?.instructions(row.tools) ?? []) };
    // The skills are read again with everything else, but listed only where the session's fixed tool list can load them.
    const skills = row.tools?.some((t) => t.name === 'skill') ? readSkills(row.root).skills : [];
    const prompt = buildSystemPrompt({
      promptsDir: this.deps.promptsDir, root: row.root, mode: row.mode, kind: row.kind,
      servers: Object.entries(servers).map(([server, text]) => ({ server, text })), skills,
    });
    this.record.update({
      ...fields, systemPrompt: prompt.text, promptMode: row.mode, promptInstructionsHash: prompt.instructionsHash,
      promptDate: localDate(this.deps.now()), serverInstructions: servers,
    });
    this.atFirstRequest = undefined;
  }
}

/** The prompt fields of a new session's row: its system prompt as built now (listing `skills`), and what it was built with. */
export function newPromptFields(
  deps: Pick<SessionDeps, 'promptsDir' | 'now' | 'external'>, root: string, mode: Mode, kind: SessionKind, skills: readonly Skill[] = [],
): Pick<SessionRow, 'systemPrompt' | 'promptMode' | 'promptInstructionsHash' | 'promptDate' | 'serverInstructions'> {
  const servers = deps.external?.instructions() ?? [];
  const prompt = buildSystemPrompt({ promptsDir: deps.promptsDir, root, mode, kind, servers, skills });
  return {
    systemPrompt: prompt.text, promptMode: mode, promptInstructionsHash: prompt.instructionsHash,
    promptDate: localDate(deps.now()), serverInstructions: byServer(servers),
  };
}

function byServer(list: readonly ServerInstructions[]): Record<string, string> {
  return Object.fromEntries(list.map((s) => [s.server, s.text]));
}
