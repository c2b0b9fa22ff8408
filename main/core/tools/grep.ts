import path from 'node:path';
import { z } from 'zod';
import { readTextFile } from '../workspace/files.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { splitLines } from '../workspace/text.js';
import { relativeSlash, statPath, walkFiles } from '../workspace/walk.js';
import { compileGlob } from './glob.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';
import { READS_PATH } from './access.js';
import { withoutDenied } from './denied.js';

export const GrepArgs = z.strictObject({
  pattern: z.string().describe('A JavaScript regular expression, matched against each line.'),
  path: z.string().describe('A file or folder to search (default: the workspace root).').optional(),
  include: z.string().describe('Only files whose name or relative path matches this glob, such as `*.ts`.').optional(),
});
export type GrepArgs = z.infer<typeof GrepArgs>;

/**
 * Lines matching a JavaScript regular expression, `ABS:LINE: text`, files sorted, lines in order.
 * `path` is a file or a folder (default the root); `include` is a glob matched against the file's
 * name or its path relative to `path`. Binary and non-UTF-8 files are skipped silently.
 */
export const grepTool: Tool<GrepArgs> = {
  name: 'grep',
  access: READS_PATH,
  parameters: toolParameters(GrepArgs),
  async run(args, ctx) {
    const regex = compileRegex(args.pattern);
    const target = resolveInWorkspace(ctx.root, args.path ?? '.');
    const isFolder = statPath(target).isDirectory();
    const base = isFolder ? target : path.dirname(target);
    const walked = withoutDenied(ctx, isFolder ? walkFiles(ctx.root, target) : [target]);
    let files = walked.files;
    if (args.include !== undefined) {
      const included = compileGlob(args.include);
      files = files.filter((f) => included(path.basename(f)) || included(relativeSlash(base, f)));
    }
    const out: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = readTextFile(file).text;
      } catch (err) {
        if (err instanceof ToolError) continue;
        throw err;
      }
      splitLines(text).forEach((line, i) => {
        if (regex.test(line)) out.push(`${file}:${i + 1}: ${line}`);
      });
    }
    return { kind: 'text', body: (out.length ? out.join('\n') : `No matches for ${args.pattern} in ${target}.`) + walked.note };
  },
};

/** The pattern as a RegExp without flags (no `g`, so `test` keeps no state between lines). */
function compileRegex(pattern: string): RegExp {
  if (typeof pattern !== 'string' || pattern === '') throw new ToolError('Error: the pattern is empty.');
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new ToolError(`Error: ${pattern} is not a valid regular expression: ${(err as Error).message}.`);
  }
}
