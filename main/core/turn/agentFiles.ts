import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { subagentsConfig } from '../config.js';
import { list, scalar, splitFrontMatter } from '../frontMatter.js';

/**
 * An agent the `task` tool can run, as Claude Code writes one: a Markdown file whose front matter
 * has `name`, `description`, `tools` (a comma list or a YAML list; all of the parent's when absent)
 * and `model`; its body is the agent's own instructions.
 */
export interface AgentDefinition {
  name: string;
  description: string;
  tools?: string[];
  model?: string;
  instructions: string;
  file: string;
}

/**
 * The agents defined for workspace `root`: each folder of loop.json `subagents.folders` in the
 * workspace, then in the home folder. A name found again is the first one's; a file that cannot be
 * read as an agent is named in `problems` and left out.
 */
export function readAgents(root: string, home = os.homedir()): { agents: AgentDefinition[]; problems: string[] } {
  const agents = new Map<string, AgentDefinition>();
  const problems: string[] = [];
  for (const base of [root, home]) {
    for (const folder of subagentsConfig.folders) {
      const dir = path.join(base, folder);
      let names: string[];
      try {
        names = fs.readdirSync(dir).filter((n) => n.endsWith('.md')).sort();
      } catch {
        continue;
      }
      for (const name of names) {
        const file = path.join(dir, name);
        try {
          const agent = parseAgent(fs.readFileSync(file, 'utf8'), file);
          if (!agents.has(agent.name)) agents.set(agent.name, agent);
        } catch (e) {
          problems.push(`${file}: ${(e as Error).message}`);
        }
      }
    }
  }
  return { agents: [...agents.values()], problems };
}

/** One agent file: front matter between `---` lines, then the instructions. */
export function parseAgent(text: string, file: string): AgentDefinition {
  const front = splitFrontMatter(text);
  if (!front) throw new Error('it has no front matter (--- lines with name and description)');
  const { fields } = front;
  const name = scalar(fields.name);
  if (!name) throw new Error('its front matter has no name');
  if (!/^[\w.-]+$/.test(name)) throw new Error(`its name "${name}" is not a word (letters, digits, - _ .)`);
  const tools = fields.tools === undefined ? undefined : list(fields.tools);
  const model = scalar(fields.model);
  return {
    name, description: scalar(fields.description) ?? '', ...(tools && { tools }), ...(model && { model }),
    instructions: front.body.trim(), file,
  };
}

/** Claude Code's tool names, as Keel's: an agent file copied from Claude Code names its tools so. */
const CLAUDE_TOOLS: Record<string, string> = {
  Read: 'read', Write: 'write', Edit: 'edit', MultiEdit: 'multiedit', Glob: 'glob', Grep: 'grep', LS: 'list',
  Bash: 'bash', BashOutput: 'bash_output', KillShell: 'kill_shell', KillBash: 'kill_shell', TodoWrite: 'plan_write',
};

/**
 * The tools an agent is given, from the parent's list (the same specs, in the same order, so the
 * child's prompt shares the parent's bytes as far as it can): those its definition names (Keel's
 * names, Claude Code's, or an MCP tool's full name), all of the parent's when it names none, the
 * read-only ones for the general agent. Never `task`: a subagent runs no subagents.
 */
export function agentTools<T extends { name: string }>(parentTools: readonly T[], agent: AgentDefinition | undefined): T[] {
  const wanted = agent === undefined
    ? new Set<string>(subagentsConfig.readOnlyTools)
    : agent.tools && new Set(agent.tools.map((t) => CLAUDE_TOOLS[t] ?? t));
  return parentTools.filter((t) => t.name !== 'task' && (!wanted || wanted.has(t.name)));
}
