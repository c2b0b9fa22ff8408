import picomatch from 'picomatch';
import { z } from 'zod';
import { resolveInWorkspace } from '../workspace/paths.js';
import { relativeSlash, statPath, walkFiles } from '../workspace/walk.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';
import { READS_PATH } from './access.js';
import { withoutDenied } from './denied.js';

export const GlobArgs = z.strictObject({
  pattern: z.string().describe('A glob such as `**/*.ts`, matched against paths relative to `path`.'),
  path: z.string().describe('The folder to search (default: the workspace root).').optional(),
});
export type GlobArgs = z.infer<typeof GlobArgs>;

/**
 * Files whose path relative to `path` (default the root) matches `pattern` (picomatch, dot files
 * included), one absolute path per line, sorted. Folders in loop.json tools.glob.ignore are not
 * walked.
 */
export const globTool: Tool<GlobArgs> = {
  name: 'glob',
  access: READS_PATH,
  parameters: toolParameters(GlobArgs),
  async run(args, ctx) {
    const base = resolveInWorkspace(ctx.root, args.path ?? '.');
    const isMatch = compileGlob(args.pattern);
    if (!statPath(base).isDirectory()) throw new ToolError(`Error: ${base} is a file, not a folder.`);
    const { files: found, note } = withoutDenied(ctx, walkFiles(ctx.root, base).filter((file) => isMatch(relativeSlash(base, file))));
    return { kind: 'text', body: (found.length ? found.join('\n') : `No files match ${args.pattern} in ${base}.`) + note };
  },
};

/** A picomatch matcher (`dot: true`); an empty or unusable pattern is a ToolError. */
export function compileGlob(pattern: string): (candidate: string) => boolean {
  if (typeof pattern !== 'string' || pattern === '') throw new ToolError('Error: the glob pattern is empty.');
  try {
    return picomatch(pattern, { dot: true });
  } catch (err) {
    throw new ToolError(`Error: ${pattern} is not a valid glob pattern: ${(err as Error).message}`);
  }
}
