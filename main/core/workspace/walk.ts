import fs from 'node:fs';
import path from 'node:path';
import { toolConfig } from '../config.js';
import { fileError } from './files.js';
import { isInside } from './paths.js';

/**
 * The files below `start` (an absolute, resolved folder inside `root`), for glob, grep and search:
 * absolute paths, sorted in code-unit order, so every run over the same tree gives the same text.
 *
 * - Folders named in loop.json `tools.glob.ignore` are not entered (the start folder always is).
 * - Symlinked folders are never followed: everything inside the workspace is reachable by its real
 *   path already, so following them would only add duplicates, cycles, or files outside the root.
 * - A symlinked file is kept, under its own name, only when its target is a file inside `root`.
 * - An unreadable subfolder is skipped, never an error.
 */
export function walkFiles(
  root: string,
  start: string,
  ignore: readonly string[] = toolConfig.glob.ignore,
): string[] {
  const skip = new Set(ignore);
  const files: string[] = [];
  const visit = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) visit(abs);
      } else if (entry.isFile()) {
        if (!isWriteLeftover(entry.name)) files.push(abs);
      } else if (entry.isSymbolicLink() && linkTargetInside(root, abs)?.isFile()) {
        files.push(abs);
      }
    }
  };
  visit(start);
  return files.sort();
}

/**
 * A temporary file of atomicWrite (`.NAME.keel-PID-XXXXXXXX.tmp`) that a crash left behind: not
 * the person's file, so searches and listings of many files leave it out.
 */
export function isWriteLeftover(name: string): boolean {
  return /^\..+\.keel-\d+-[0-9a-f]{8}\.tmp$/.test(name);
}

/** The stats of a symlink's target when it exists and lies inside `root`; undefined otherwise. */
export function linkTargetInside(root: string, abs: string): fs.Stats | undefined {
  try {
    const real = fs.realpathSync.native(abs);
    return isInside(root, real) ? fs.statSync(real) : undefined;
  } catch {
    return undefined;
  }
}

/** stat that reports a failure as the ToolError naming the absolute path. */
export function statPath(abs: string): fs.Stats {
  try {
    return fs.statSync(abs);
  } catch (err) {
    throw fileError(abs, err);
  }
}

/** A path relative to `base`, with `/` separators, as glob patterns are matched against. */
export function relativeSlash(base: string, abs: string): string {
  return path.relative(base, abs).split(path.sep).join('/');
}
