import { hooksConfig } from '../config.js';

const CLAUDE_NAMES: Record<string, string> = hooksConfig.claude_names.value;

/**
 * Whether a group's matcher matches a tool (contract.md, Hooks): a regular expression against the
 * whole name, Keel's (`edit`) or Claude Code's for the same tool (`Edit`); an empty matcher, and
 * Claude Code's `*`, match every tool. MCP tools are named `mcp__SERVER__TOOL` in Keel as in Claude
 * Code, so `mcp__github__.*` means the same in both.
 */
export function matches(matcher: string, tool: string): boolean {
  if (matcher === '' || matcher === '*') return true;
  const whole = new RegExp(`^(?:${matcher})$`);
  const claude = CLAUDE_NAMES[tool];
  return whole.test(tool) || (claude !== undefined && whole.test(claude));
}
