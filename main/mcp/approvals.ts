/**
 * What the person decided about MCP servers, kept in Keel's data folder (`mcp-approvals.json`):
 * which workspace files' servers may run (by the file's content hash: any change asks again, so a
 * cloned or edited repository never starts programs by itself), and which servers' read-only hints
 * the person trusts (by name and exact launch entry: a changed command or URL is another server).
 */
import fs from 'node:fs';
import path from 'node:path';
import { stableJson } from '../core/hygiene/stableJson.js';
import { sha256 } from '../core/workspace/files.js';
import type { ServerConfig } from './config.js';

interface Stored {
  /** Absolute path of a workspace file → the SHA-256 of the content approved. */
  files: Record<string, string>;
  /** Server keys (see serverKey) the person trusts. */
  trusted: string[];
}

export const APPROVALS_FILE = 'mcp-approvals.json';

/** A server's identity for trust: its name and launch entry. */
export function serverKey(server: ServerConfig): string {
  return `${server.name} ${sha256(stableJson(server.transport)).slice(0, 16)}`;
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
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files: {}, trusted: [] };
      throw new Error(`Keel cannot read its MCP approvals ${this.file}: ${(err as Error).message}.`);
    }
    try {
      const json = JSON.parse(text) as Partial<Stored>;
      return { files: { ...json.files }, trusted: Array.isArray(json.trusted) ? json.trusted : [] };
    } catch (err) {
      throw new Error(`Keel's MCP approvals ${this.file} are not valid JSON (${(err as Error).message}); fix or delete the file. It was left untouched.`);
    }
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
