/** Everything main pushes to the UI, over either transport. Types only. */
import type { ApprovalAnswer } from '../core/approvalAnswers.js';
import type { RequestRow } from '../core/state/types.js';
import type { ApprovalView, ToolView } from './views.js';

/** Everything main pushes. */
export type KeelEvent =
  | { type: 'session-changed'; sessionId: number }
  /** Sessions were created or deleted outside this window (by `keel` on the same store). */
  | { type: 'sessions-changed' }
  | { type: 'message'; sessionId: number; sent: string }
  | { type: 'text'; sessionId: number; delta: string }
  /** A call starts (before any approval it needs): `id` is the id its result will have. */
  | { type: 'tool-started'; sessionId: number; id: string; name: string; args: unknown }
  | { type: 'tool'; sessionId: number; tool: ToolView }
  | { type: 'request'; sessionId: number; request: RequestRow }
  | { type: 'turn-ended'; sessionId: number }
  | { type: 'approval'; approval: ApprovalView }
  | { type: 'approval-answered'; approvalId: number; answer: ApprovalAnswer }
  | { type: 'model-progress'; path: string; fraction: number }
  | { type: 'model-loaded'; path: string }
  | { type: 'error'; sessionId?: number; message: string }
  /** A workspace's MCP server changed state, tools (list_changed) or error: read mcpServers again. */
  | { type: 'mcp-changed'; workspace: string }
  /** A background shell of the session started or ended: read shells again. */
  | { type: 'shells-changed'; sessionId: number }
  /**
   * A subagent of the session (its `task` call) is waiting for a place, running, or has ended; while it
   * runs, its own messages, text, tools and requests come as events of `childId`.
   */
  | { type: 'subagent'; sessionId: number; childId: number; state: 'waiting' | 'running' | 'answered' | 'failed' }
  | { type: 'mcp-progress'; sessionId: number; tool: string; progress: number; total?: number; message?: string };
