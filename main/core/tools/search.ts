import path from 'node:path';
import { z } from 'zod';
import { toolConfig } from '../config.js';
import { readTextFile } from '../workspace/files.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { statPath, walkFiles } from '../workspace/walk.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';
import { READS_PATH } from './access.js';
import { withoutDenied } from './denied.js';

export const SearchArgs = z.strictObject({
  query: z.string().describe('Words to look for in file names and contents.'),
  path: z.string().describe('A file or folder to search (default: the workspace root).').optional(),
});
export type SearchArgs = z.infer<typeof SearchArgs>;

/**
 * Files ranked by the query's words (split on whitespace, case-insensitive, counted as substrings):
 * each occurrence in the file's name scores 10, each in its content 1. Files scoring 0 are left
 * out; ties go by path; at most loop.json tools.search.max_results lines, `ABS (score N)`.
 * Binary and non-UTF-8 files score by name only.
 */
export const searchTool: Tool<SearchArgs> = {
  name: 'search',
  access: READS_PATH,
  parameters: toolParameters(SearchArgs),
  async run(args, ctx) {
    const words = typeof args.query === 'string' ? args.query.toLowerCase().split(/\s+/).filter(Boolean) : [];
    if (words.length === 0) throw new ToolError('Error: the query has no words.');
    const target = resolveInWorkspace(ctx.root, args.path ?? '.');
    const { files, note } = withoutDenied(ctx, statPath(target).isDirectory() ? walkFiles(ctx.root, target) : [target]);
    const scored: { file: string; score: number }[] = [];
    for (const file of files) {
      const score = scoreFile(file, words);
      if (score > 0) scored.push({ file, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const lines = scored.slice(0, toolConfig.search.max_results).map((s) => `${s.file} (score ${s.score})`);
    return { kind: 'text', body: (lines.length ? lines.join('\n') : `No files match ${args.query} in ${target}.`) + note };
  },
};

function scoreFile(file: string, words: string[]): number {
  const name = path.basename(file).toLowerCase();
  let content = '';
  try {
    content = readTextFile(file).text.toLowerCase();
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
  }
  return words.reduce((sum, w) => sum + 10 * occurrences(name, w) + occurrences(content, w), 0);
}

/** Non-overlapping occurrences of `word` in `text`. */
function occurrences(text: string, word: string): number {
  let count = 0;
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + word.length)) count++;
  return count;
}
