/**
 * What the person's deny rules keep from a reading tool that walks folders (grep, glob, list, search):
 * those files are left out, and the result says how many, so the model knows the listing is not all.
 */
import type { ToolContext } from './types.js';

export function withoutDenied(ctx: ToolContext, files: string[]): { files: string[]; note: string } {
  if (!ctx.hidden) return { files, note: '' };
  const kept = files.filter((f) => !ctx.hidden!(f));
  const left = files.length - kept.length;
  return { files: kept, note: left === 0 ? '' : `\n(${left} ${left === 1 ? 'file' : 'files'} left out: the person's deny rules keep ${left === 1 ? 'it' : 'them'} from this tool.)` };
}
