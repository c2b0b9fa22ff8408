/**
 * Which project files Keel read for a workspace, and which wait for the person (issue 34): its
 * instruction files, settings files (hooks and permission rules), MCP configuration, custom
 * commands, skills and subagent definitions, each with its state. The Servers tab lists them and
 * `keel doctor` prints them (main/app/projectFiles.ts makes the list). Spread into CONTRACT
 * (main/contract.ts); values only from leaf modules.
 */
import { PATH } from './args.js';
import { takes } from './shape.js';

/** What a file is to Keel, with the words the app and `keel doctor` show for it. */
export const PROJECT_FILE_KINDS = {
  instructions: 'instructions',
  settings: 'settings',
  mcp: 'MCP servers',
  command: 'command',
  skill: 'skill',
  agent: 'subagent',
} as const;
export type ProjectFileKind = keyof typeof PROJECT_FILE_KINDS;

/**
 * `read`: used as it is (the person's own files, and a workspace's that need no approval);
 * `approved`: a workspace file the person approved as it is now; `waiting`: a workspace file
 * nothing of which is used until the person approves it; `problem`: nothing of it is used, and why.
 */
export type ProjectFileState = 'read' | 'approved' | 'waiting' | 'problem';

export interface ProjectFileView {
  /** Absolute: a skill's SKILL.md, or its folder when that has none. */
  path: string;
  kind: ProjectFileKind;
  /** The person's own (their home or Keel's data folder), or the workspace's. */
  source: 'person' | 'workspace';
  state: ProjectFileState;
  /** With `problem`, why nothing of it is used; otherwise what else is wrong in it (an MCP entry left out), when anything is. */
  problem?: string;
}

export interface ProjectFilesView {
  workspace: string;
  /** In the order instructions, settings, MCP, commands, skills, subagents; each kind in the order Keel reads it (skills and subagents by path). */
  files: ProjectFileView[];
}

export const PROJECT_FILE_CALLS = {
  /** Every project file Keel finds for the workspace, read as sessions read them, with its state; nothing is started or approved. */
  projectFiles: takes(PATH).as<(workspace: string) => Promise<ProjectFilesView>>(),
};
