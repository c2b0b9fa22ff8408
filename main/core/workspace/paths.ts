import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../types.js';

/**
 * Resolves a path given by the model against the workspace root and follows every symlink
 * (realpath), also for a path that does not exist yet (its nearest existing ancestor is resolved).
 * The result is the file's identity. A path that resolves outside the root is refused, naming it.
 */
export function resolveInWorkspace(root: string, given: string): string {
  if (typeof given !== 'string' || given.length === 0) throw new ToolError('Error: the path is empty.');
  if (given.includes('\0')) throw new ToolError('Error: the path contains a NUL character.');
  const abs = resolveReal(path.resolve(root, given));
  if (!isInside(root, abs)) {
    throw new ToolError(`Error: ${abs} is outside the workspace ${root}; nothing was read or changed.`);
  }
  return abs;
}

export function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * realpath of the longest existing prefix, with the rest appended; dangling links are followed.
 * A link's target is taken relative to its folder's real path, as the system does.
 */
export function resolveReal(abs: string, depth = 0): string {
  if (depth > 40) throw new ToolError(`Error: too many levels of symbolic links at ${abs}.`);
  try {
    return fs.realpathSync.native(abs);
  } catch {
    // Not there (or a dangling link): resolve its folder, then this last part.
  }
  const parentGiven = path.dirname(abs);
  if (parentGiven === abs) return abs;
  const parent = resolveReal(parentGiven, depth);
  const here = path.join(parent, path.basename(abs));
  let link: string | undefined;
  try {
    if (fs.lstatSync(here).isSymbolicLink()) link = fs.readlinkSync(here);
  } catch {
    // does not exist at all
  }
  return link === undefined ? here : resolveReal(path.resolve(parent, link), depth + 1);
}
