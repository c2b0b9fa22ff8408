import { applyPatchTool } from './applyPatch.js';
import { bashTool } from './bash.js';
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
import type { Tool, ToolName } from './types.js';
import { writeTool } from './write.js';

/** Every tool, by name: a missing one is a compile error. */
const ALL = {
  read: readTool, write: writeTool, edit: editTool, multiedit: multieditTool, apply_patch: applyPatchTool,
  list: listTool, glob: globTool, grep: grepTool, search: searchTool, bash: bashTool, recall: recallTool,
  plan_write: planWriteTool, plan_update: planUpdateTool, plan_submit: planSubmitTool,
} satisfies Record<ToolName, Tool<never>>;

/**
 * The tools a session offers. The list is fixed for the session's life (spec §10.4): a tool whose
 * requirement comes and goes (plan_submit) is offered throughout and answers its unavailable text.
 */
export class ToolRegistry {
  private readonly tools: Map<string, Tool>;

  constructor(names: readonly ToolName[] = Object.keys(ALL) as ToolName[]) {
    this.tools = new Map(names.map((name) => [name, ALL[name] as unknown as Tool]));
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }
}
