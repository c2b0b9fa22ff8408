/**
 * Each stdio MCP server's own writable data folder, kept across sessions inside Keel's data:
 * `<data folder>/mcp-data/<name>-<key>`, the key from the file that configures it (the person's own
 * file is one owner for every workspace; a workspace's file is its own). In the sandbox it is the one
 * part of Keel's data the server may write, with its package folder (a server from `npx -y` writes
 * beside its code, as it would in npx's cache: server-memory's memory.jsonl); the XDG folders point
 * into it, so servers that keep state where the XDG spec says find a writable place.
 */
import path from 'node:path';
import { sha256 } from '../core/workspace/files.js';
import type { ServerConfig } from './config.js';
import { packageCache } from './packages.js';

export function serverDataFolder(dataFolder: string, server: Pick<ServerConfig, 'name' | 'scope' | 'file'>): string {
  const owner = server.scope === 'user' ? 'user' : server.file;
  const safe = server.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40);
  return path.join(dataFolder, 'mcp-data', `${safe}-${sha256(JSON.stringify([owner, server.name])).slice(0, 12)}`);
}

/** The prepared package folder a program Keel fetched lies in (`mcp-packages/<manager>/<key>`), or undefined. */
export function packageFolderOf(dataFolder: string, program: string): string | undefined {
  const rel = path.relative(packageCache(dataFolder), program).split(path.sep);
  if (rel.length < 3 || rel[0] === '..' || path.isAbsolute(rel[0])) return undefined;
  return path.join(packageCache(dataFolder), rel[0], rel[1]);
}

/** The environment that points a server's XDG folders into its data folder (the entry's own env still wins). */
export function dataEnv(folder: string): Record<string, string> {
  return { XDG_DATA_HOME: path.join(folder, 'data'), XDG_STATE_HOME: path.join(folder, 'state'), XDG_CACHE_HOME: path.join(folder, 'cache'), XDG_CONFIG_HOME: path.join(folder, 'config') };
}
