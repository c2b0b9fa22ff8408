/**
 * MCP server configuration in the format people already have (Claude Code's `.mcp.json`):
 *
 *   { "mcpServers": { "NAME": { "command": "npx", "args": ["-y", "pkg"], "env": { "K": "V" } },
 *                     "NAME2": { "type": "http", "url": "https://…/mcp", "headers": { "Authorization": "Bearer ${TOKEN}" } } } }
 *
 * `type` is `stdio` (the default when `command` is given), `http` (Streamable HTTP, falling back to
 * the older HTTP+SSE transport) or `sse`. `${VAR}` and `${VAR:-default}` in command, args, env, cwd,
 * url and headers are filled in as expand.ts says: from Keel's environment for the person's own
 * file, from the variables the person allowed for the entry for a workspace's. Two files are read:
 * the person's own (`<data folder>/mcp.json`) and the workspace's `.mcp.json`, each opened as
 * configFile.ts says and checked with zod; every problem names the file and the field.
 *
 * A stdio entry may add Keel's own `"sandbox": {"writeWorkspace": true, "allowedDomains": ["api.example.com"]}`:
 * the server runs in the command sandbox, the workspace read-only and no network unless its entry
 * says so (and a workspace file's entry says so only once the person approved the file as it is).
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeIssue, fieldPath } from '../core/zodIssues.js';
import { sha256 } from '../core/workspace/files.js';
import { parseJson, readConfigText } from './configFile.js';
import { expand, masked, MissingVariable, variablesIn, type VariableSource } from './expand.js';

/** What a stdio server's sandbox allows beyond reading (main/mcp/sandboxed.ts): absent, nothing. */
export interface ServerSandbox {
  /** It may write the workspace (never `.git`), as a command `auto` lets through. */
  writeWorkspace?: true;
  /** The domains it may reach (`example.com`, `*.example.com`), through the sandbox's proxy. */
  allowedDomains?: string[];
}

export type Transport =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string; sandbox?: ServerSandbox }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

/** Where a server's entry comes from: the person's file, the workspace's, or a file named on the command line. */
export type Scope = 'user' | 'workspace' | 'given';

export interface ServerConfig {
  name: string;
  scope: Scope;
  file: string;
  /** What runs: the entry with its variables filled in (as written while `missing` says one is not given). */
  transport: Transport;
  /** The entry as written, nothing filled in: what is shown, and what trust is given to (default: `transport`). */
  entry?: Transport;
  /** What the entry will receive, line by line, each value from a variable masked (approvals show it). */
  receives?: string[];
  /** Why it cannot start: a variable it uses is not given (not set, or not allowed for a workspace's entry). */
  missing?: string;
}

export interface ConfigFile {
  file: string;
  scope: Scope;
  exists: boolean;
  /** SHA-256 of the file's bytes ('' when there is none or it cannot be used). */
  hash: string;
  servers: ServerConfig[];
  /** What is wrong with the file or an entry, each naming the file; a bad entry is left out, the others kept. */
  problems: string[];
  /** The file itself cannot be used (not JSON, no `mcpServers`, not a regular file…): nothing in it runs, nothing is approved. */
  broken: boolean;
}

export interface ReadOptions {
  /** Where variables are read (default: Keel's environment). */
  env?: NodeJS.ProcessEnv;
  /** The variables the person allowed for a workspace entry (default: none). Ignored for the person's own files. */
  allowed?: (server: string) => ReadonlySet<string>;
  /** A workspace file must stay inside this folder (resolved; default: the file's own folder). */
  within?: string;
}

export const WORKSPACE_FILE = '.mcp.json';
export const USER_FILE = 'mcp.json';

/**
 * A server name becomes part of each tool's name (`mcp__NAME__TOOL`), so it holds letters, digits,
 * `-` and single `_` only: `__` separates the server from the tool.
 */
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

const strings = z.array(z.string({ error: 'must be a string' }), { error: 'must be a list of strings' });
const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of strings' });
const sandboxSchema = z.strictObject({
  writeWorkspace: z.boolean({ error: 'must be true or false' }).optional(),
  allowedDomains: strings.optional(),
}, { error: 'must be an object' });
const stdioSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string({ error: 'must be a non-empty string' }).trim().min(1, { error: 'must be a non-empty string' }),
  args: strings.optional(),
  env: stringMap.optional(),
  cwd: z.string({ error: 'must be a string' }).optional(),
  sandbox: sandboxSchema.optional(),
});
const httpSchema = z.object({
  type: z.enum(['http', 'sse', 'streamable-http']).optional(),
  url: z.string({ error: 'must be a string' }),
  headers: stringMap.optional(),
});
const fileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown(), { error: 'must be an object of servers' }) }, { error: 'must be an object' });

export function readConfigFile(file: string, scope: Scope, o: ReadOptions = {}): ConfigFile {
  const absolute = path.resolve(file);
  const out: ConfigFile = { file: absolute, scope, exists: false, hash: '', servers: [], problems: [], broken: false };
  const fail = (why: string) => {
    out.broken = true;
    out.problems.push(`The MCP configuration ${absolute} ${why}; its servers are not started.`);
    return out;
  };
  const within = scope === 'workspace' ? o.within ?? realFolder(absolute) : undefined;
  const read = readConfigText(absolute, within);
  if (read.kind === 'missing') return out;
  out.exists = true;
  if (read.kind === 'refused') return fail(read.why);
  const json = parseJson(read.bytes);
  if (!json.ok) return fail(json.why);
  const parsed = fileSchema.safeParse(json.value);
  if (!parsed.success) {
    const hasServers = json.value !== null && typeof json.value === 'object' && 'mcpServers' in json.value;
    return fail(hasServers ? `is wrong: ${describeIssues(parsed.error)}` : 'has no "mcpServers" object');
  }
  out.hash = sha256(read.bytes);
  readEntries(out, parsed.data.mcpServers, o);
  return out;
}

/**
 * Servers an editor passed over ACP (`session/new`'s `mcpServers`), as a file of the `given` scope:
 * the person configured them in their editor, so they run as their own file's would. `label` stands
 * where a file's path would (in problems and views).
 */
export function editorConfig(label: string, entries: Record<string, unknown>, o: ReadOptions = {}): ConfigFile {
  const out: ConfigFile = { file: label, scope: 'given', exists: true, hash: '', servers: [], problems: [], broken: false };
  readEntries(out, entries, o);
  return out;
}

/** Each entry checked and filled in; one that is wrong is a problem naming it, the others kept. */
function readEntries(out: ConfigFile, entries: Record<string, unknown>, o: ReadOptions): void {
  for (const [name, value] of Object.entries(entries)) {
    try {
      if (!SERVER_NAME.test(name)) throw new Error('a server name may hold only letters, digits, "-" and single "_"');
      const source: VariableSource = { env: o.env ?? process.env, allowed: out.scope === 'workspace' ? o.allowed?.(name) ?? new Set() : undefined };
      out.servers.push({ name, scope: out.scope, file: out.file, ...readEntry(value, source) });
    } catch (err) {
      out.problems.push(`The MCP server "${name}" in ${out.file} is left out: ${(err as Error).message}.`);
    }
  }
}

/** The entry as written, what runs, and what it receives. */
function readEntry(value: unknown, source: VariableSource): Omit<ServerConfig, 'name' | 'scope' | 'file'> {
  const entry = asWritten(value);
  const receives = receivedLines(entry, source);
  try {
    return { entry, transport: mapStrings(entry, (v, where) => expand(v, source, where)), receives };
  } catch (err) {
    if (!(err instanceof MissingVariable)) throw err;
    return { entry, transport: entry, receives, missing: err.message };
  }
}

/** The entry checked by its schema, nothing filled in; a wrong field throws naming it. */
function asWritten(value: unknown): Transport {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('its entry must be an object');
  const raw = value as Record<string, unknown>;
  const type = raw.type ?? (raw.url !== undefined ? 'http' : 'stdio');
  if (type === 'stdio') {
    const e = check(stdioSchema, raw);
    const out: Transport = { type: 'stdio', command: e.command, args: e.args ?? [], env: e.env ?? {} };
    if (e.cwd !== undefined) out.cwd = e.cwd;
    if (e.sandbox !== undefined) {
      out.sandbox = {};
      if (e.sandbox.writeWorkspace === true) out.sandbox.writeWorkspace = true;
      if (e.sandbox.allowedDomains?.length) out.sandbox.allowedDomains = e.sandbox.allowedDomains;
    }
    return out;
  }
  if (type === 'http' || type === 'sse' || type === 'streamable-http') {
    const e = check(httpSchema, raw);
    // The scheme is checked on the text as written: a variable cannot turn it into another.
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(e.url)?.[1]?.toLowerCase();
    if (scheme !== 'http' && scheme !== 'https') throw new Error(scheme ? `"url" must be http or https, not ${scheme}:` : `"url" ${JSON.stringify(e.url)} is not an http or https URL`);
    return { type: type === 'sse' ? 'sse' : 'http', url: e.url, headers: e.headers ?? {} };
  }
  throw new Error(`"type" ${JSON.stringify(type)} is not one Keel knows (stdio, http, sse)`);
}

function check<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(describeIssues(parsed.error));
  return parsed.data;
}

/** zod's issues as `"field" must …`, the field spelled as in the file (`args[1]`, `sandbox.allowedDomains`). */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => {
    const field = fieldPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return `"${field}" holds ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}; it takes ${keysOf(field)}`;
    }
    if (issue.code === 'invalid_value' && field === 'type') return `"type" is not one Keel knows (stdio, http, sse)`;
    return describeIssue(issue);
  }).join('; ');
}

function keysOf(field: string): string {
  return field === 'sandbox' ? '"writeWorkspace" and "allowedDomains"' : 'other keys';
}

/** The entry with `fn` applied to every string a variable may appear in. */
function mapStrings(t: Transport, fn: (value: string, where: string) => string): Transport {
  const map = (m: Record<string, string>, field: string) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, fn(v, `${field}.${k}`)]));
  if (t.type !== 'stdio') return { ...t, url: fn(t.url, 'url'), headers: map(t.headers, 'headers') };
  const out: Transport = { ...t, command: fn(t.command, 'command'), args: t.args.map((a, i) => fn(a, `args[${i}]`)), env: map(t.env, 'env') };
  if (t.cwd !== undefined) out.cwd = fn(t.cwd, 'cwd');
  return out;
}

/**
 * What the entry will receive: every env and header value, and every other string that names a
 * variable, as written and as filled in with the variables' values masked.
 */
function receivedLines(t: Transport, source: VariableSource): string[] {
  const lines: string[] = [];
  mapStrings(t, (value, where) => {
    const always = where.startsWith('env.') || where.startsWith('headers.');
    if (always || variablesIn(value).length > 0) {
      lines.push(variablesIn(value).length > 0 ? `${where}: ${value} → ${masked(value, source)}` : `${where}: ${value}`);
    }
    return value;
  });
  return lines;
}

/** How a stdio server's sandbox reads in a line (the Servers tab and `keel mcp`): empty for the default. */
export function describeSandbox(sandbox: ServerSandbox | undefined): string {
  const parts = [
    ...(sandbox?.writeWorkspace ? ['writes the workspace'] : []),
    ...(sandbox?.allowedDomains?.length ? [`network: ${sandbox.allowedDomains.join(', ')}`] : []),
  ];
  return parts.length > 0 ? ` [sandbox: ${parts.join('; ')}]` : '';
}

function realFolder(file: string): string {
  try {
    return fs.realpathSync.native(path.dirname(file));
  } catch {
    return path.dirname(file);
  }
}
