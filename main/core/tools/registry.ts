import { checkAccess } from './access.js';
import { applyPatchTool } from './applyPatch.js';
import { bashTool } from './bash.js';
import { bashOutputTool } from './bashOutput.js';
import { killShellTool } from './killShell.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listTool } from './list.js';
import { multieditTool } from './multiedit.js';
import { planSubmitTool } from './planSubmit.js';
import { planUpdateTool } from './planUpdate.js';
import { planWriteTool } from './planWrite.js';
import { readTool } from './read.js';
import { recallTool } from './recall.js';
import { searchTool } from './search.js';
import { skillTool } from './skill.js';
import { taskTool } from './task.js';
import type { Tool, ToolName } from './types.js';
import { writeTool } from './write.js';

/** Every tool, by name: a missing one is a compile error. */
const ALL = {
  read: readTool, write: writeTool, edit: editTool, multiedit: multieditTool, apply_patch: applyPatchTool,
  list: listTool, glob: globTool, grep: grepTool, search: searchTool, bash: bashTool, recall: recallTool,
  plan_write: planWriteTool, plan_update: planUpdateTool, plan_submit: planSubmitTool,
  bash_output: bashOutputTool, kill_shell: killShellTool, task: taskTool, skill: skillTool,
} satisfies Record<ToolName, Tool<never>>;

/**
 * The tools a session offers. The list is fixed for the session's life (spec §10.4): a tool whose
 * requirement comes and goes (plan_submit) is offered throughout and answers its unavailable text;
 * one whose requirement is fixed at the session's start (skill: a skill exists) is left out of the
 * session's list where it is not met (state/toolList.ts).
 */
export class ToolRegistry {
  private readonly tools: Map<string, Tool>;

  constructor(names: readonly ToolName[] = Object.keys(ALL) as ToolName[]) {
    this.tools = new Map();
    for (const name of names) this.register(ALL[name] as unknown as Tool);
  }

  /**
   * Adds a tool. A tool must declare its access (the type says so; this checks it at run time
   * too, for a tool built outside the type system): one without is refused, never taken for a
   * reader. A name already registered is refused as well.
   */
  register(tool: Tool): void {
    checkAccess(tool.name, (tool as Partial<Tool>).access);
    if (this.tools.has(tool.name)) throw new Error(`The tool ${tool.name} is registered already.`);
    this.tools.set(tool.name, tool);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }
}
