import type { OpenCheckpoints } from '../checkpoints/types.js';
import type { ExternalTools } from '../tools/external.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { CommandRunner } from '../tools/commandRunner.js';
import type { Shells } from '../tools/shells.js';
import type { PermissionOptions } from '../permissions/approval.js';
import type { HookSet } from '../hooks/settings.js';
import type { ToolSpec } from '../types.js';
import type { SubagentRunner } from '../tools/types.js';
import type { FileSource } from '../tools/fileSource.js';
import type { Mode, SessionKind, SessionRow, SessionStore } from './types.js';

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
  /** The process's background shells (bash `run_in_background`); without them, bash refuses to start one. */
  shells?: Shells;
  /**
   * Tools from MCP servers (main/mcp), for the workspace's servers as they stand now. A new
   * session's list takes what they list; without it, a listed MCP tool answers its unavailable text.
   */
  external?: ExternalTools;
  /**
   * Records the workspace per turn (main/checkpoints), so a rewind can put files back. Without it,
   * rewinds are conversation only.
   */
  checkpoints?: OpenCheckpoints;
  /**
   * The hooks a session in workspace `root` runs (contract.md, Hooks): the person's, then an
   * approved workspace's, as they stand at each event (main/app/hookSettings.ts reads them).
   */
  hooks?: (root: string) => readonly HookSet[];
  /** Runs the `task` tool's subagents for a session (core/turn/subagents.ts); without it, `task` answers that none can run here. */
  subagents?: (parent: SessionRow) => SubagentRunner;
  /** The editor's buffers a session's file tools use (keel acp, by session id); without them, the disk. */
  files?: (sessionId: number) => FileSource | undefined;
}

export interface NewSession {
  root: string;
  kind: SessionKind;
  mode?: Mode;
  title?: string;
  model?: string;
  /** A subagent's session: its parent, and the system prompt, its date and the tool list it keeps for its life (core/turn/subagents.ts). */
  child?: { parentId: number; systemPrompt: string; promptDate: string; tools: ToolSpec[] };
}

/** A session's misuse by its caller (not the model's): undo with nothing to undo, say. */
export class SessionError extends Error {}
