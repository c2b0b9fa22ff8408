/**
 * What a tool may do, declared beside its schema: the gate decides by it, the approval names the
 * files by it. A tool that declares nothing is refused at registration (registry.ts), never taken
 * for a reader. An MCP tool's comes from its server's annotations, as far as the person trusts them.
 */

/** How an argument names the files a call touches: one path, or the file names of a unified diff. */
export interface PathArgument {
  arg: string;
  kind: 'path' | 'patch';
}

export interface ToolAccess {
  /** Reads files (or stored results). */
  reads: boolean;
  /** Changes files. */
  writes: boolean;
  /** Runs programs: the command line is the argument `command` names. */
  runs: boolean;
  /** Reaches the network. */
  network: boolean;
  /** The arguments naming the files it touches. */
  paths: readonly PathArgument[];
  /** For a tool that runs programs: the argument holding the command line. */
  command?: string;
}

/** A reader of files named by `path` (read, list, glob, grep, search). */
export const READS_PATH: ToolAccess = { reads: true, writes: false, runs: false, network: false, paths: [{ arg: 'path', kind: 'path' }] };
/** A writer of the file named by `path` (write, edit, multiedit). */
export const WRITES_PATH: ToolAccess = { reads: true, writes: true, runs: false, network: false, paths: [{ arg: 'path', kind: 'path' }] };
/** Touches nothing outside the session (the plan, stored results). */
export const SESSION_ONLY: ToolAccess = { reads: false, writes: false, runs: false, network: false, paths: [] };

/** Whether a call of this tool can change anything: only such calls go through the gate's modes. */
export const changesAnything = (a: ToolAccess) => a.writes || a.runs || a.network;

/**
 * Checks a declaration at registration: every field present and of its type, and a tool that runs
 * programs names its command argument. Throws, naming the tool and the field.
 */
export function checkAccess(tool: string, access: unknown): asserts access is ToolAccess {
  const fail = (what: string): never => {
    throw new Error(`The tool ${tool} cannot be registered: ${what}. Every tool declares what it may do (reads, writes, runs, network, paths).`);
  };
  if (!access || typeof access !== 'object') fail('it declares no access');
  const a = access as Record<string, unknown>;
  for (const flag of ['reads', 'writes', 'runs', 'network']) if (typeof a[flag] !== 'boolean') fail(`its access has no boolean "${flag}"`);
  if (!Array.isArray(a.paths)) fail('its access has no "paths" list');
  for (const p of a.paths as unknown[]) {
    const arg = p as Partial<PathArgument>;
    if (typeof arg?.arg !== 'string' || (arg.kind !== 'path' && arg.kind !== 'patch')) fail(`its access has a path argument that is not {arg, kind: 'path' | 'patch'}`);
  }
  if (a.runs === true && typeof a.command !== 'string') fail('it runs programs but names no "command" argument');
}

/**
 * An MCP tool's access: what its server's annotations claim where the person trusts that server
 * (`readOnlyHint`: reads only; `openWorldHint: false`: no network), and everything otherwise (a
 * hint is the server's claim, worth what the server is).
 */
export function externalAccess(hints: { readOnly: boolean; openWorld?: boolean }, trusted: boolean): ToolAccess {
  if (!trusted) return { reads: true, writes: true, runs: true, network: true, paths: [] };
  return { reads: true, writes: !hints.readOnly, runs: !hints.readOnly, network: hints.openWorld !== false && !hints.readOnly, paths: [] };
}

/** The access in a few words, for an approval: "writes files, runs programs". */
export function describeAccess(a: ToolAccess): string {
  const parts = [a.writes && 'writes files', a.runs && 'runs programs', a.network && 'reaches the network'].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : a.reads ? 'reads only' : 'touches nothing outside the session';
}
