/**
 * Tools from outside Keel: MCP servers' tools, as the core sees them. main/mcp implements
 * ExternalTools; the core never imports it (the session gets one through SessionDeps).
 */
import { fill, mcpConfig } from '../config.js';
import type { RawOutput, ToolSpec } from './types.js';

const { value: PREFIX, separator: SEP } = mcpConfig.prefix;

/** What the permission gate needs to know of an external tool, as its server lists it now. */
export interface ExternalToolInfo {
  server: string;
  /** The tool's name as the server lists it. */
  tool: string;
  /** The server marks the tool `readOnlyHint` (a claim: it counts only when the person trusts the server). */
  readOnly: boolean;
  /** The server's `openWorldHint` (undefined: not given, taken as true). */
  openWorld?: boolean;
  /** The person trusts this server's hints. */
  trusted: boolean;
}

/** Instructions a server gave when it was initialized. */
export interface ServerInstructions {
  server: string;
  text: string;
}

export interface ExternalTools {
  /** Every tool the connected servers list now, named `mcp__SERVER__TOOL`: a new session's list takes them. */
  specs(): ToolSpec[];
  /**
   * The non-empty instructions of the servers connected now; with a session's tool list, only of
   * servers that list has tools of (a server that joined later is not the session's).
   */
  instructions(sessionTools?: readonly ToolSpec[]): ServerInstructions[];
  /**
   * A tool of the session's list as its server lists it now, or the unavailable text (a refusal
   * to answer the model with) when the server is not connected or no longer lists the tool.
   */
  describe(name: string): ExternalToolInfo | RawOutput;
  /** Runs a call (already approved). Failures come back as error results, never as throws. */
  call(name: string, args: Record<string, unknown>, o: { sessionId: number; signal?: AbortSignal }): Promise<RawOutput>;
}

/** A session-list name for a server's tool: `mcp__SERVER__TOOL`. */
export function externalToolName(server: string, tool: string): string {
  return `${PREFIX}${server}${SEP}${tool}`;
}

/** The server and tool part of an `mcp__SERVER__TOOL` name (server names never hold the separator), or undefined. */
export function parseExternalName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(PREFIX)) return undefined;
  const rest = name.slice(PREFIX.length);
  const at = rest.indexOf(SEP);
  if (at <= 0 || at + SEP.length >= rest.length) return undefined;
  return { server: rest.slice(0, at), tool: rest.slice(at + SEP.length) };
}

/** The answer of a listed tool whose server is not connected (`state` says how it stands). */
export function unavailable(name: string, server: string, state: string): RawOutput {
  return { kind: 'error', message: fill(mcpConfig.unavailable.not_connected, { name, server, state }) };
}

/** The answer of a listed tool its server no longer lists. */
export function notListed(name: string, server: string): RawOutput {
  return { kind: 'error', message: fill(mcpConfig.unavailable.not_listed, { name, server }) };
}
