/**
 * What the person decided about MCP servers, kept in Keel's data folder (`mcp-approvals.json`):
 * which workspace files' servers may run (by the approval hash: the file's content and the
 * workspace files its entries run, runs.ts; any change asks again, so a cloned or edited
 * repository never starts programs by itself), which variables each workspace entry may read
 * (expand.ts), and which servers' read-only hints the person trusts (by name and exact entry as
 * written: a changed command or URL is another server).
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { stableJson } from '../core/hygiene/stableJson.js';
import { sha256 } from '../core/workspace/files.js';
import { describeIssues, type ServerConfig } from './config.js';

const storedSchema = z.object({
  /** Absolute path of a workspace file → the approval hash approved. */
  files: z.record(z.string(), z.string({ error: 'must be a string' })).default({}),
  /** Absolute path of a workspace file → server name → the variables its entry may read. */
  env: z.record(z.string(), z.record(z.string(), z.array(z.string({ error: 'must be a string' })))).default({}),
  /** Server keys (see serverKey) the person trusts. */
  trusted: z.array(z.string({ error: 'must be a string' })).default([]),
});
type Stored = z.infer<typeof storedSchema>;

export const APPROVALS_FILE = 'mcp-approvals.json';

/** A server's identity for trust: its name and launch entry. */
export function serverKey(server: ServerConfig): string {
  return `${server.name} ${sha256(stableJson(server.entry ?? server.transport)).slice(0, 16)}`;
}

export class McpApprovals {
  readonly file: string;

  constructor(dataFolder: string) {
    this.file = path.join(dataFolder, APPROVALS_FILE);
  }

  /** The stored decisions; a file Keel cannot read is an error naming it (and it is never overwritten). */
  private read(): Stored {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files: {}, env: {}, trusted: [] };
      throw new Error(`Keel cannot read its MCP approvals ${this.file}: ${(err as Error).message}.`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new Error(`Keel's MCP approvals ${this.file} are not valid JSON (${(err as Error).message}); fix or delete the file. It was left untouched.`);
    }
    const parsed = storedSchema.safeParse(json);
    if (!parsed.success) throw new Error(`Keel's MCP approvals ${this.file} are wrong: ${describeIssues(parsed.error)}; fix or delete the file. It was left untouched.`);
    return parsed.data;
  }

  private write(stored: Stored): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(`${this.file}.tmp`, JSON.stringify(stored, null, 2) + '\n');
    fs.renameSync(`${this.file}.tmp`, this.file);
  }

  /** Whether the workspace file's servers may run with the file as it is now. */
  isApproved(file: string, hash: string): boolean {
    return hash !== '' && this.read().files[file] === hash;
  }

  approve(file: string, hash: string): void {
    const stored = this.read();
    stored.files[file] = hash;
    this.write(stored);
  }

  /** The variables the workspace file's entry `server` may read. */
  allowedEnv(file: string, server: string): ReadonlySet<string> {
    return new Set(this.read().env[file]?.[server] ?? []);
  }

  /** Lets the file's entry `server` read these variables too (kept with what it had). */
  allowEnv(file: string, server: string, variables: readonly string[]): void {
    const stored = this.read();
    const had = stored.env[file]?.[server] ?? [];
    stored.env[file] = { ...stored.env[file], [server]: [...new Set([...had, ...variables])].sort() };
    this.write(stored);
  }

  trusts(server: ServerConfig): boolean {
    return this.read().trusted.includes(serverKey(server));
  }

  setTrusted(server: ServerConfig, trusted: boolean): void {
    const stored = this.read();
    const key = serverKey(server);
    stored.trusted = stored.trusted.filter((k) => k !== key);
    if (trusted) stored.trusted.push(key);
    this.write(stored);
  }
}
