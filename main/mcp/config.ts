/**
 * MCP server configuration in the format people already have (Claude Code's `.mcp.json`):
 *
 *   { "mcpServers": { "NAME": { "command": "npx", "args": ["-y", "pkg"], "env": { "K": "V" } },
 *                     "NAME2": { "type": "http", "url": "https://…/mcp", "headers": { "Authorization": "Bearer ${TOKEN}" } } } }
 *
 * `type` is `stdio` (the default when `command` is given), `http` (Streamable HTTP, falling back to
 * the older HTTP+SSE transport) or `sse`. `${VAR}` and `${VAR:-default}` in command, args, env, cwd,
 * url and headers are read from Keel's environment. Two files are read: the person's own
 * (`<data folder>/mcp.json`) and the workspace's `.mcp.json`.
 *
 * A stdio entry may add Keel's own `"sandbox": {"writeWorkspace": true, "allowedDomains": ["api.example.com"]}`:
 * the server runs in the command sandbox, the workspace read-only and no network unless its entry
 * says so (and a workspace file's entry says so only once the person approved the file as it is).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../core/workspace/files.js';

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
  transport: Transport;
}

export interface ConfigFile {
  file: string;
  scope: Scope;
  exists: boolean;
  /** SHA-256 of the file's bytes ('' when there is none): a workspace file is approved by it. */
  hash: string;
  servers: ServerConfig[];
  /** What is wrong with the file or an entry, each naming the file; a bad entry is left out, the others kept. */
  problems: string[];
}

export const WORKSPACE_FILE = '.mcp.json';
export const USER_FILE = 'mcp.json';

/**
 * A server name becomes part of each tool's name (`mcp__NAME__TOOL`), so it holds letters, digits,
 * `-` and single `_` only: `__` separates the server from the tool.
 */
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

export function readConfigFile(file: string, scope: Scope, env: NodeJS.ProcessEnv = process.env): ConfigFile {
  const absolute = path.resolve(file);
  const out: ConfigFile = { file: absolute, scope, exists: false, hash: '', servers: [], problems: [] };
  let raw: Buffer;
  try {
    raw = fs.readFileSync(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return out;
    out.problems.push(`The MCP configuration ${absolute} cannot be read (${code ?? (err as Error).message}); its servers are not started.`);
    return out;
  }
  out.exists = true;
  out.hash = sha256(raw);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    out.problems.push(`The MCP configuration ${absolute} is not valid JSON (${(err as Error).message}); its servers are not started.`);
    return out;
  }
  const servers = isObject(json) ? json.mcpServers : undefined;
  if (!isObject(servers)) {
    out.problems.push(`The MCP configuration ${absolute} has no "mcpServers" object; no servers are started from it.`);
    return out;
  }
  for (const [name, entry] of Object.entries(servers)) {
    try {
      out.servers.push({ name: checkName(name), scope, file: absolute, transport: readEntry(entry, env) });
    } catch (err) {
      out.problems.push(`The MCP server "${name}" in ${absolute} is left out: ${(err as Error).message}.`);
    }
  }
  return out;
}

function checkName(name: string): string {
  if (!SERVER_NAME.test(name)) throw new Error('a server name may hold only letters, digits, "-" and single "_"');
  return name;
}

function readEntry(entry: unknown, env: NodeJS.ProcessEnv): Transport {
  if (!isObject(entry)) throw new Error('its entry must be an object');
  const type = entry.type ?? (entry.url !== undefined ? 'http' : 'stdio');
  const expand = (value: string, where: string) => expandVars(value, env, where);
  if (type === 'stdio') {
    if (typeof entry.command !== 'string' || entry.command.trim() === '') throw new Error('"command" must be a non-empty string');
    const args = stringList(entry.args, 'args').map((a, i) => expand(a, `args[${i}]`));
    const out: Transport = { type, command: expand(entry.command, 'command'), args, env: stringMap(entry.env, 'env', expand) };
    if (entry.cwd !== undefined) {
      if (typeof entry.cwd !== 'string') throw new Error('"cwd" must be a string');
      out.cwd = expand(entry.cwd, 'cwd');
    }
    if (entry.sandbox !== undefined) out.sandbox = readSandbox(entry.sandbox);
    return out;
  }
  if (type === 'http' || type === 'sse' || type === 'streamable-http') {
    if (typeof entry.url !== 'string') throw new Error('"url" must be a string');
    const url = expand(entry.url, 'url');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`"url" ${JSON.stringify(url)} is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`"url" must be http or https, not ${parsed.protocol}`);
    return { type: type === 'sse' ? 'sse' : 'http', url, headers: stringMap(entry.headers, 'headers', expand) };
  }
  throw new Error(`"type" ${JSON.stringify(type)} is not one Keel knows (stdio, http, sse)`);
}

/** How a stdio server's sandbox reads in a line (the Servers tab and `keel mcp`): empty for the default. */
export function describeSandbox(sandbox: ServerSandbox | undefined): string {
  const parts = [
    ...(sandbox?.writeWorkspace ? ['writes the workspace'] : []),
    ...(sandbox?.allowedDomains?.length ? [`network: ${sandbox.allowedDomains.join(', ')}`] : []),
  ];
  return parts.length > 0 ? ` [sandbox: ${parts.join('; ')}]` : '';
}

/**
 * The entry's `sandbox`, exactly: an unknown key or a wrong type is an error (the entry is left
 * out), never ignored, so a typo cannot quietly give a server less (or more) than was meant.
 */
function readSandbox(value: unknown): ServerSandbox {
  if (!isObject(value)) throw new Error('"sandbox" must be an object');
  const unknown = Object.keys(value).filter((k) => k !== 'writeWorkspace' && k !== 'allowedDomains');
  if (unknown.length > 0) throw new Error(`"sandbox" holds ${unknown.map((k) => JSON.stringify(k)).join(', ')}; it takes "writeWorkspace" and "allowedDomains"`);
  const out: ServerSandbox = {};
  if (value.writeWorkspace !== undefined && typeof value.writeWorkspace !== 'boolean') throw new Error('"sandbox.writeWorkspace" must be true or false');
  if (value.writeWorkspace === true) out.writeWorkspace = true;
  const domains = stringList(value.allowedDomains, 'sandbox.allowedDomains');
  if (domains.length > 0) out.allowedDomains = domains;
  return out;
}

/** `${VAR}` and `${VAR:-default}`; a variable that is not set and has no default is an error naming it. */
function expandVars(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_whole, name: string, fallback?: string) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    throw new Error(`${where} uses \${${name}}, which is not set`);
  });
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new Error(`"${field}" must be a list of strings`);
  return value;
}

function stringMap(value: unknown, field: string, expand: (v: string, where: string) => string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value) || Object.values(value).some((v) => typeof v !== 'string')) throw new Error(`"${field}" must be an object of strings`);
  return Object.fromEntries(Object.entries(value as Record<string, string>).map(([k, v]) => [k, expand(v, `${field}.${k}`)]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
