/**
 * Claude Code's permission rules as its settings files write them (`"permissions": {"allow": […],
 * "ask": […], "deny": […]}` of "Bash(npm run test:*)", "Read(./.env)", "Edit", "mcp__github__create_issue"),
 * read into Keel's rules (types.ts) with the meaning Claude Code documents: a tool name alone covers
 * every use of the tool; a command is matched whole ("Bash(npm run build)") or by its first words
 * ("Bash(npm run test:*)", "Bash(npm run *)"); a file rule is a gitignore-style pattern ("//abs",
 * "~/home", "/from-the-root", "./here", "*.env" at any depth). A rule Keel cannot express (a `*`
 * inside a command, WebFetch's domains, a tool Keel has not) is kept as written with why it is
 * ignored, so the person sees it; it is never dropped in silence. Other keys of `permissions`
 * (defaultMode, additionalDirectories…) are Claude Code's own and are ignored.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { hooksConfig, mcpConfig } from '../config.js';
import { fieldPath } from '../zodIssues.js';
import type { Decision, Rule } from './types.js';

/** One rule as the file writes it, and what Keel made of it. */
export interface FileRule {
  action: Decision;
  /** The rule as written, e.g. "Bash(npm run test:*)". */
  written: string;
  /** Keel's rules it stands for (one Claude Code tool can be several of Keel's); empty when ignored. */
  rules: Rule[];
  /** Why Keel does not use it; set exactly when `rules` is empty. */
  ignored?: string;
}

/** A `permissions` key Keel cannot read: the message names the file and the field. */
export class PermissionSettingsError extends Error {}

const ACTIONS = ['deny', 'ask', 'allow'] as const;
const Lists = z.object(Object.fromEntries(ACTIONS.map((a) => [a, z.array(z.string({ error: 'expected a rule as text' })).optional()])) as Record<Decision, z.ZodOptional<z.ZodArray<z.ZodString>>>);

/**
 * The rules of one settings file's parsed JSON (its `permissions` key; none without one), deny
 * first, then ask, then allow. Throws PermissionSettingsError naming the file and the field when
 * `permissions` or a list in it is not what Claude Code writes, or a rule is not `Tool` or `Tool(specifier)`.
 */
export function parsePermissions(json: unknown, file: string, home = os.homedir()): FileRule[] {
  const permissions = json !== null && typeof json === 'object' ? (json as { permissions?: unknown }).permissions : undefined;
  if (permissions === undefined) return [];
  if (permissions === null || typeof permissions !== 'object' || Array.isArray(permissions)) {
    throw new PermissionSettingsError(`${file}: permissions: expected an object of allow, ask and deny lists; nothing in it was loaded.`);
  }
  const parsed = Lists.safeParse(permissions);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PermissionSettingsError(`${file}: ${fieldPath(['permissions', ...issue.path])}: ${issue.message}; nothing in it was loaded.`);
  }
  return ACTIONS.flatMap((action) => (parsed.data[action] ?? []).map((written, i) => {
    const rule = readRule(action, written, home);
    if (typeof rule === 'string') throw new PermissionSettingsError(`${file}: permissions.${action}[${i}]: ${JSON.stringify(written)} ${rule}; nothing in it was loaded.`);
    return rule;
  }));
}

/**
 * A slash command's `allowed-tools` (Claude Code's rule syntax, as its settings files' allow lists
 * write it) as allow rules, each entry with what Keel made of it. Unlike a settings file, a command
 * is not refused for an entry that is not a rule: that entry is listed as ignored with why, since
 * leaving it out only makes the command ask more.
 */
export function allowedToolRules(written: readonly string[], home = os.homedir()): FileRule[] {
  return written.map((w) => {
    const rule = readRule('allow', w, home);
    return typeof rule === 'string' ? { action: 'allow', written: w, rules: [], ignored: `it ${rule}` } : rule;
  });
}

/** Claude Code's tool name → the Keel tools a rule on it covers, from the hooks' one table of names. */
const KEEL_TOOLS: Record<string, string[]> = (() => {
  const names: Record<string, string[]> = {};
  for (const [keel, claude] of Object.entries(hooksConfig.claude_names.value as Record<string, string>)) (names[claude] ??= []).push(keel);
  // Claude Code applies Edit rules to every tool that edits files, and Read rules to the tools that read them.
  names.Edit = [...names.Edit, 'multiedit', 'write', 'apply_patch'];
  names.Read = [...names.Read, 'grep', 'glob', 'list', 'search'];
  for (const claude of Object.keys(names)) names[claude] = [...new Set(names[claude])];
  return names;
})();
const COMMAND_TOOLS = new Set(['Bash']);
const FILE_TOOLS = new Set(['Read', 'Edit', 'MultiEdit', 'Write', 'Glob', 'Grep', 'LS']);

/** One rule, or why it is not a rule at all (a malformed file). */
function readRule(action: Decision, written: string, home: string): FileRule | string {
  const m = /^([A-Za-z][\w*-]*)(?:\((.*)\))?$/s.exec(written.trim());
  if (!m) return 'is not a rule: Claude Code writes Tool or Tool(specifier)';
  const [, tool, given] = m;
  const specifier = given?.trim();
  const whole = specifier === undefined || specifier === '' || specifier === '*';
  const ignored = (why: string): FileRule => ({ action, written, rules: [], ignored: why });
  const made = (rules: Rule[]): FileRule => ({ action, written, rules });
  if (tool.startsWith(mcpConfig.prefix.value)) {
    if (!whole) return ignored('Keel matches MCP tools by name only, with no specifier');
    // mcp__server and mcp__server__* cover every tool of the server, as Keel's `mcp__SERVER` rule does.
    const name = tool.endsWith(`${mcpConfig.prefix.separator}*`) ? tool.slice(0, -(mcpConfig.prefix.separator.length + 1)) : tool;
    return name.includes('*') ? ignored('Keel matches MCP tools by their whole name or their server') : made([{ action, tool: name }]);
  }
  const tools = KEEL_TOOLS[tool];
  if (!tools) return ignored(`Keel has no tool that Claude Code's ${tool} stands for`);
  if (whole) return made(tools.map((t) => ({ action, tool: t })));
  if (COMMAND_TOOLS.has(tool)) {
    const command = commandPattern(specifier);
    return typeof command === 'string' ? ignored(command) : made(tools.map((t) => ({ action, tool: t, ...command })));
  }
  if (FILE_TOOLS.has(tool)) {
    const patterns = filePatterns(specifier, home);
    return made(tools.flatMap((t) => patterns.map((pattern) => ({ action, tool: t, pattern }))));
  }
  return ignored(`Keel's ${tools.join(', ')} rules take no specifier`);
}

/**
 * A command specifier as Keel's pattern: "npm run test:*" and "npm run *" are the command's first
 * words (a prefix, word by word); one without `*` is the whole command. Any other `*` (in the middle,
 * or glued to a word as in "ls*", which Claude Code lets match "lsof") is a text wildcard Keel's
 * word rules cannot express: why, as text.
 */
function commandPattern(specifier: string): { pattern: string; exact?: true } | string {
  const prefix = /^(.*?)(?::\*| \*)$/s.exec(specifier);
  const words = (prefix ? prefix[1] : specifier).trim();
  if (words.includes('*')) return 'Keel matches a command by its first words or as a whole, and this rule has a * wildcard elsewhere';
  if (words === '') return 'the command is empty';
  return prefix ? { pattern: words } : { pattern: words, exact: true };
}

/**
 * A file specifier (gitignore's rules, as Claude Code reads them) as Keel's globs, which match a
 * path relative to the workspace root or absolute: "//abs" is absolute, "~/x" in the home folder,
 * "/x" and "./x" from the root, a pattern with no other slash at any depth; each also covers what
 * is below it when it names a folder.
 */
function filePatterns(specifier: string, home: string): string[] {
  let glob: string;
  if (specifier.startsWith('//')) glob = specifier.slice(1);
  else if (specifier === '~' || specifier.startsWith('~/')) glob = path.posix.join(home, specifier.slice(1));
  else if (specifier.startsWith('/')) glob = specifier.slice(1);
  else if (specifier.startsWith('./')) glob = specifier.slice(2);
  else glob = specifier.replace(/\/$/, '').includes('/') ? specifier : `**/${specifier}`;
  glob = glob.replace(/\/+$/, '') || '**';
  return glob.endsWith('/**') ? [glob] : [glob, `${glob}/**`];
}
