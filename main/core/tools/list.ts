import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { resolveInWorkspace } from '../workspace/paths.js';
import { fileError } from '../workspace/files.js';
import { linkTargetInside, statPath } from '../workspace/walk.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';
import { READS_PATH } from './access.js';
import { withoutDenied } from './denied.js';

export const ListArgs = z.strictObject({
  path: z.string().describe('The folder to list (default: the workspace root).').optional(),
});
export type ListArgs = z.infer<typeof ListArgs>;

/**
 * One folder's entries, one absolute path per line, sorted by name (code-unit order); folders end
 * with `/`. Every entry is shown, `.git` and `node_modules` too. A symlink is shown under its own
 * name, typed by its target; one whose target is missing or outside the workspace is left out.
 */
export const listTool: Tool<ListArgs> = {
  name: 'list',
  access: READS_PATH,
  parameters: toolParameters(ListArgs),
  async run(args, ctx) {
    const abs = resolveInWorkspace(ctx.root, args.path ?? '.');
    if (!statPath(abs).isDirectory()) {
      throw new ToolError(`Error: ${abs} is a file, not a folder; use read to see its content.`);
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch (err) {
      throw fileError(abs, err);
    }
    const folders = new Set<string>();
    const found: string[] = [];
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = path.join(abs, entry.name);
      let isFolder = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        const target = linkTargetInside(ctx.root, full);
        if (!target) continue;
        isFolder = target.isDirectory();
      }
      found.push(full);
      if (isFolder) folders.add(full);
    }
    const shown = withoutDenied(ctx, found);
    const lines = shown.files.map((f) => (folders.has(f) ? f + '/' : f));
    return { kind: 'text', body: (lines.length ? lines.join('\n') : `(empty folder ${abs})`) + shown.note };
  },
};
