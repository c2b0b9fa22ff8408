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
 * workspace file's server does not start, and says why. A server run from a package Keel fetched
 * (packages.ts) reads it in Keel's package cache, the one part of the data folder it may read. An approval was given for a sandboxed
 * server, and a cloned repository's program must not run with the person's whole account.
 */
import type { SandboxOptions } from '../sandbox/policy.js';
import { sandboxCommand, sandboxStatus } from '../sandbox/runner.js';
import type { WrapLaunch } from './connection.js';
import { packageCache } from './packages.js';

export function sandboxedLaunch(options: SandboxOptions): WrapLaunch {
  return async (command, args, server) => {
    const status = await sandboxStatus();
    if (status.kind !== 'sandboxed') {
      if (server.scope !== 'workspace') return { command, args };
      throw new Error(`it was not started: no sandbox can run here (${status.reason}), and a workspace's MCP server runs only in the sandbox (put it in your own mcp.json to run it without one).`);
    }
    const sandbox = server.transport.type === 'stdio' ? server.transport.sandbox : undefined;
    return sandboxCommand(command, args, {
      ...options,
      // The packages Keel fetched for `npx -y` lines lie in the data folder: readable, never writable.
      readable: [...(options.readable ?? []), packageCache(options.dataFolder)],
      root: server.root,
      access: sandbox?.writeWorkspace ? 'workspace-write' : 'read-only',
      allowedDomains: sandbox?.allowedDomains ?? [],
    });
  };
}

