/**
 * What each access level lets a command do, as @anthropic-ai/sandbox-runtime configuration
 * (one source: the runner for bash and `sandboxCommand` for MCP servers both use it).
 */
import path from 'node:path';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import type { CommandAccess } from '../core/tools/commandRunner.js';

/** The person's side of the sandbox: settings.json `sandbox`, and where Keel keeps its data. */
export interface SandboxOptions {
  /** Keel's data folder: never read or written by a command. */
  dataFolder: string;
  /** More paths no command may read (`~/` is the home folder). */
  denyRead?: readonly string[];
  /** Domains approved commands may reach (`example.com`, `*.example.com`, `host:443`); none by default. */
  allowedDomains?: readonly string[];
  /** The home folder (default: the user's). */
  home?: string;
  /** Folders inside the data folder a command may still read, never write (nothing secret: MCP's package cache). */
  readable?: readonly string[];
}

/**
 * The library writes these without being asked (its scratch folder and two log folders in the
 * home folder); Keel denies them, so a read-only command writes nothing but its own temp folder.
 */
export function libraryWritePaths(home: string): string[] {
  return ['/tmp/claude', '/private/tmp/claude', path.join(home, '.npm', '_logs'), path.join(home, '.claude', 'debug')];
}

export interface CommandPolicy {
  /** The workspace root, resolved. */
  root: string;
  access: CommandAccess;
  /** The command's private temporary folder (its TMPDIR), resolved. */
  tmp: string;
  /** deniedReads of the runner: absolute, spelled and resolved. */
  deniedReads: readonly string[];
  /** Keel's data folder, spelled and resolved. */
  dataFolders: readonly string[];
  home: string;
  /** SandboxOptions.readable, spelled and resolved. */
  readable?: readonly string[];
}

/** Where a command may write, and the carve-outs inside that it may not (commandRunner.ts says what each access allows). */
export function writeRules(p: CommandPolicy): { allow: string[]; deny: string[] } {
  const git = path.join(p.root, '.git');
  const deny = [...libraryWritePaths(p.home), ...p.dataFolders];
  if (p.access === 'read-only') return { allow: [p.tmp], deny };
  const gitDeny = p.access === 'git-write' ? [path.join(git, 'hooks'), path.join(git, 'config')] : [git];
  return { allow: [p.root, p.tmp], deny: [...deny, ...gitDeny] };
}

/**
 * The per-command configuration: reads everywhere but the denied paths; writes as `writeRules`
 * says; the network is always routed through the library's filtering proxy, which allows no
 * domain unless the runner registers the person's list for an approved command.
 */
export function commandConfig(p: CommandPolicy): Partial<SandboxRuntimeConfig> {
  const { allow, deny } = writeRules(p);
  return {
    filesystem: { denyRead: [...p.deniedReads], allowRead: [...(p.readable ?? [])], allowWrite: allow, denyWrite: deny },
    network: { allowedDomains: [], deniedDomains: [] },
  };
}
