/**
 * The project files Keel finds for a workspace, each read by the module sessions read it with (no
 * second parser), so what the app and `keel doctor` show is what a session uses: instruction files
 * (buildSystemPrompt.ts), settings files with hooks and permission rules (hookSettings.ts), MCP
 * configuration (the hub, nothing started), custom commands (slashCommands.ts), skills
 * (skillFiles.ts) and subagent definitions (agentFiles.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProjectFilesView, ProjectFileView } from '../contract.js';
import { instructionFiles } from '../core/prompts/buildSystemPrompt.js';
import { listCommands } from '../core/prompts/slashCommands.js';
import { readSkills } from '../core/tools/skillFiles.js';
import { readAgents } from '../core/turn/agentFiles.js';
import { McpHub } from '../mcp/hub.js';
import { settingsFiles } from './hookSettings.js';
import { commandCaveats, commandGrant } from './commandGrants.js';

/** Every project file of workspace `root` (resolved) with its state; reads only, approves and starts nothing. */
export function projectFiles(dataFolder: string, root: string, home = os.homedir()): ProjectFilesView {
  const source = (file: string): ProjectFileView['source'] => (file.startsWith(root + path.sep) ? 'workspace' : 'person');
  const files: ProjectFileView[] = [];
  for (const { absPath } of instructionFiles(root, home)) {
    const problem = unreadable(absPath);
    if (problem === null) continue;
    files.push({ path: absPath, kind: 'instructions', source: source(absPath), ...(problem ? { state: 'problem', problem } : { state: 'read' }) });
  }
  for (const f of settingsFiles(dataFolder, root, home)) {
    const state = f.problem !== undefined ? 'problem' : f.source === 'person' ? 'read' : f.approved ? 'approved' : 'waiting';
    files.push({ path: f.file, kind: 'settings', source: f.source, state, ...(f.problem !== undefined && { problem: f.problem }) });
  }
  for (const f of new McpHub({ root, dataFolder }).configView().files.filter((f) => f.exists)) {
    const approvable = f.scope === 'workspace' && f.servers.length > 0;
    const state = f.broken ? 'problem' : f.needsApproval ? 'waiting' : approvable ? 'approved' : 'read';
    files.push({ path: f.file, kind: 'mcp', source: f.scope === 'workspace' ? 'workspace' : 'person', state, ...(f.problems.length > 0 && { problem: f.problems.join(' ') }) });
  }
  for (const c of listCommands(root, home)) {
    if (c.problem !== undefined) {
      files.push({ path: c.file, kind: 'command', source: source(c.file), state: 'problem', problem: c.problem });
      continue;
    }
    // It runs; what of its front matter does not (allowed-tools waiting for an approval, a model) is said beside it.
    const caveats = commandCaveats(commandGrant(dataFolder, c, root, home), c);
    files.push({ path: c.file, kind: 'command', source: source(c.file), state: 'read', ...(caveats.length > 0 && { problem: caveats.join('; ') }) });
  }
  const skills = readSkills(root, home);
  files.push(...byPath([
    ...skills.skills.map((s): ProjectFileView => ({ path: s.file, kind: 'skill', source: source(s.file), state: 'read' })),
    ...skills.problems.map((p) => problemRow(p, 'skill', source)),
  ]));
  const agents = readAgents(root, home);
  files.push(...byPath([
    ...agents.agents.map((a): ProjectFileView => ({ path: a.file, kind: 'agent', source: source(a.file), state: 'read' })),
    ...agents.problems.map((p) => problemRow(p, 'agent', source)),
  ]));
  return { workspace: root, files };
}

/** null: there is no such file; '': it can be read; else why it cannot (then a session reads nothing of it). */
function unreadable(file: string): string | null {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return null;
  if (!stat.isFile()) return `${file} is not a regular file; it was not read.`;
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return '';
  } catch (e) {
    return `${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); it was not read.`;
  }
}

/**
 * A skill's or agent's problem as its reader words it ("PATH: why") as a row of PATH. The path is
 * the longest prefix before a ": " that exists, so a path that itself holds ": " is kept whole.
 */
function problemRow(problem: string, kind: 'skill' | 'agent', source: (file: string) => ProjectFileView['source']): ProjectFileView {
  let file = '';
  for (let at = problem.indexOf(': '); at !== -1; at = problem.indexOf(': ', at + 1)) {
    if (fs.existsSync(problem.slice(0, at))) file = problem.slice(0, at);
  }
  file ||= problem.slice(0, Math.max(0, problem.indexOf(': ')));
  return { path: file, kind, source: source(file), state: 'problem', problem };
}

const byPath = (rows: ProjectFileView[]) => rows.sort((a, b) => a.path.localeCompare(b.path));
