/**
 * The tools of the stock and naive harnesses: Keel's whole tool list offered (toolSchemas); the
 * four the script calls (read, grep, bash, edit) run as Keel's real tools in the harness's own copy
 * of the workspace, their output given back plainly, as a simple harness would: numbered lines for
 * a read, the text of a search or a command, the diff of an edit. No ids, no stubs for unchanged re-reads: that is Keel's hygiene, not theirs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChatModelFunctions } from 'node-llama-cpp';
import { diffHunks } from '../../main/core/hygiene/diff.js';
import { builtinSpecs } from '../../main/core/state/toolList.js';
import { ToolRegistry } from '../../main/core/tools/registry.js';
import { bashTool } from '../../main/core/tools/bash.js';
import { editTool } from '../../main/core/tools/edit.js';
import { grepTool } from '../../main/core/tools/grep.js';
import { readTool } from '../../main/core/tools/read.js';
import { makeContext } from '../../test/toolContext.js';
import { ToolError, type JsonSchema, type RawOutput, type Tool } from '../../main/core/tools/types.js';
import { TOOL_PARAMS, type ToolName } from './script.js';

const TOOLS: Record<ToolName, Tool> = {
  read: readTool as unknown as Tool,
  grep: grepTool as unknown as Tool,
  bash: bashTool as unknown as Tool,
  edit: editTool as unknown as Tool,
};

/** A fresh folder holding the workspace files (`/tmp/LABEL-XXXXXX/taskq`: the same length for every harness). */
export function makeWorkspace(files: Record<string, string>, label: string): { root: string; remove(): void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`)));
  const root = path.join(dir, 'taskq');
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  return { root, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The tool list every harness offers: Keel's whole built-in list, in its order, with Keel's
 * descriptions — the same session, so the same tools are described to the model and the prompts are
 * the same size. The scripted tools' parameters are cut to exactly those the script passes:
 * node-llama-cpp's function-call grammar makes every listed property required, in order (the other
 * tools are never called, so their full schemas stay).
 */
export function toolSchemas(promptsDir: string): Record<string, { description: string; params: JsonSchema }> {
  const out: Record<string, { description: string; params: JsonSchema }> = {};
  for (const spec of builtinSpecs(promptsDir, new ToolRegistry())) {
    const scripted = TOOL_PARAMS[spec.name as ToolName] as readonly string[] | undefined;
    const schema = spec.parameters as JsonSchema;
    const full = schema.properties ?? {};
    const params: JsonSchema = scripted
      ? { type: 'object', properties: Object.fromEntries(scripted.map((key) => [key, { type: 'string', description: full[key]?.description }])), required: [...scripted] }
      : schema;
    out[spec.name] = { description: spec.description, params };
  }
  return out;
}

export async function runPlainTool(root: string, name: string, args: Record<string, unknown>): Promise<string> {
  const tool = TOOLS[name as ToolName];
  if (!tool) return `Error: no tool ${name}.`;
  let raw: RawOutput;
  try {
    raw = await tool.run(args, makeContext(root));
  } catch (err) {
    if (err instanceof ToolError) return err.message;
    throw err;
  }
  switch (raw.kind) {
    case 'read': return raw.lines.map((line, i) => `${raw.start + i}: ${line}`).join('\n');
    case 'text': return raw.body;
    case 'change': return raw.files.map((f) => diffHunks(f.before, f.after)).join('\n');
    case 'error': return raw.message;
    default: return JSON.stringify(raw);
  }
}

/** The same tools as node-llama-cpp function definitions (for rendering). */
export function plainFunctions(promptsDir: string): ChatModelFunctions {
  return Object.fromEntries(Object.entries(toolSchemas(promptsDir)).map(([name, s]) => [name, { description: s.description, params: s.params as never }]));
}
