import fs from 'node:fs';
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { z } from 'zod';
import { fileError } from '../workspace/files.js';
import { commitChange, inFileEol, openForChange, type Editable } from './fileChange.js';
import { writeShown } from './fileSource.js';
import { toolParameters } from './schema.js';
import { ToolError, type FileChange, type Tool, type ToolContext } from './types.js';

const Args = z.strictObject({ patch: z.string().describe('A unified diff; a/ and b/ prefixes are stripped.') });
type Args = z.infer<typeof Args>;

interface Planned { target: Editable; action: 'create' | 'modify' | 'delete'; newText: string }

/**
 * Applies a unified diff (git style) over one or more files. Every file is checked before any is
 * written: all or nothing. `--- /dev/null` creates a file, `+++ /dev/null` deletes one.
 */
export const applyPatchTool: Tool<Args> = {
  name: 'apply_patch',
  access: { reads: true, writes: true, runs: false, network: false, paths: [{ arg: 'patch', kind: 'patch' }] },
  parameters: toolParameters(Args),
  async run(args, ctx) {
    let patches: StructuredPatch[];
    try {
      patches = parsePatch(args.patch);
    } catch (err) {
      throw new ToolError(`Error: the patch could not be parsed: ${(err as Error).message}. Nothing was changed.`);
    }
    patches = patches.filter((p) => p.hunks.length > 0 || p.oldFileName || p.newFileName);
    if (patches.length === 0) throw new ToolError('Error: the patch holds no file changes. Nothing was changed.');
    const planned: Planned[] = [];
    for (const p of patches) planned.push(await plan(p, ctx));
    const seen = new Set<string>();
    for (const p of planned) {
      if (seen.has(p.target.absPath)) throw new ToolError(`Error: the patch changes ${p.target.absPath} twice. Nothing was changed.`);
      seen.add(p.target.absPath);
    }
    return { kind: 'change', files: await commitAll(planned) };
  },
};

function stripPrefix(name: string | undefined): string | undefined {
  if (name === undefined || name === '' || name === '/dev/null') return undefined;
  return name.replace(/^[ab]\//, '');
}

async function plan(patch: StructuredPatch, ctx: ToolContext): Promise<Planned> {
  const oldPath = stripPrefix(patch.oldFileName);
  const newPath = stripPrefix(patch.newFileName);
  if (!oldPath && !newPath) throw new ToolError('Error: a file in the patch names no path (--- and +++ lines). Nothing was changed.');
  if (oldPath && newPath && oldPath !== newPath) {
    throw new ToolError(`Error: the patch renames ${oldPath} to ${newPath}; renames are not supported. Nothing was changed.`);
  }
  const action = !oldPath ? 'create' : !newPath ? 'delete' : 'modify';
  const target = await openForChange(ctx, (newPath ?? oldPath)!, action !== 'create');
  if (action === 'create' && target.file) {
    throw new ToolError(`Error: the patch creates ${target.absPath}, which already exists. Nothing was changed.`);
  }
  const result = applyPatch(target.text, patch);
  if (result === false) {
    throw new ToolError(`Error: the patch does not apply to ${target.absPath}: its context or removed lines differ from the file. Nothing was changed.`);
  }
  if (action === 'delete' && result !== '') {
    throw new ToolError(`Error: the patch deletes ${target.absPath} but does not remove all of its lines. Nothing was changed.`);
  }
  return { target, action, newText: result };
}

/** Writes every planned change; if one fails, those already written are put back as they were. */
async function commitAll(planned: Planned[]): Promise<FileChange[]> {
  const done: Planned[] = [];
  const changes: FileChange[] = [];
  try {
    for (const p of planned) {
      changes.push(p.action === 'delete' ? remove(p.target) : await commitChange(p.target, inFileEol(p.target, p.newText)));
      done.push(p);
    }
    return changes;
  } catch (err) {
    for (const p of done.reverse()) {
      if (p.target.file) await writeShown(p.target.absPath, p.target.file.raw, p.target.files);
      else fs.rmSync(p.target.absPath, { force: true });
    }
    throw err;
  }
}

function remove(target: Editable): FileChange {
  try {
    if (!target.dryRun) fs.unlinkSync(target.absPath);
  } catch (err) {
    throw fileError(target.absPath, err);
  }
  return { pathGiven: target.pathGiven, absPath: target.absPath, action: 'deleted', before: target.text, after: '', hash: '' };
}
