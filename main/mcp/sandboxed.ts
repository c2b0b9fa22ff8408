/**
 * The launch hook the app and the command line give their hubs: every stdio MCP server runs in the
 * same OS sandbox as a command (main/sandbox). It reads what a command may read (never `~/.ssh`,
 * the person's denyRead list or Keel's data folder), writes only its own temp folder unless its
 * entry says `"sandbox": {"writeWorkspace": true}` (then the workspace, never `.git`, as a command
 * `auto` lets through), and reaches no network but the domains its entry lists
 * (`"sandbox": {"allowedDomains": [...]}`) — the person's command list is not theirs.
 *
 * Where no sandbox can run (Windows, a Linux without bubblewrap): a server of the person's own
 * file (or one named on the command line) runs as configured, as their own shell would run it; a
 * workspace file's server does not start, and says why. Of Keel's data folder a server reads and writes
 * only its own data folder and, when Keel fetched it (packages.ts), its package folder (dataFolder.ts).
 * An approval was given for a sandboxed
 * server, and a cloned repository's program must not run with the person's whole account.
 */
import fs from 'node:fs';
import type { SandboxOptions } from '../sandbox/policy.js';
import { sandboxCommand, sandboxStatus } from '../sandbox/runner.js';
import type { WrapLaunch } from './connection.js';
import { dataEnv, packageFolderOf, serverDataFolder } from './dataFolder.js';

export function sandboxedLaunch(options: SandboxOptions): WrapLaunch {
  return async (command, args, server) => {
    const status = await sandboxStatus();
    if (status.kind !== 'sandboxed') {
      if (server.scope !== 'workspace') return { command, args };
      throw new Error(`it was not started: no sandbox can run here (${status.reason}), and a workspace's MCP server runs only in the sandbox (put it in your own mcp.json to run it without one).`);
    }
    const sandbox = server.transport.type === 'stdio' ? server.transport.sandbox : undefined;
    const own = serverDataFolder(options.dataFolder, server);
    fs.mkdirSync(own, { recursive: true, mode: 0o700 });
    const pkg = packageFolderOf(options.dataFolder, command);
    const launch = await sandboxCommand(command, args, {
      ...options,
      // Its package (fetched for an `npx -y` line) and its data folder lie in Keel's data folder: the one
      // part of it the server reads, and may write. (A readable parent would cover a writable child.)
      writable: [own, ...(pkg ? [pkg] : [])],
      root: server.root,
      access: sandbox?.writeWorkspace ? 'workspace-write' : 'read-only',
      allowedDomains: sandbox?.allowedDomains ?? [],
    });
    return { ...launch, env: dataEnv(own), writable: [own, ...(pkg ? [pkg] : []), ...(sandbox?.writeWorkspace ? [server.root] : [])] };
  };
}

