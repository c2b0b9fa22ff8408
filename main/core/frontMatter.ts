/**
 * Front matter as Claude Code's Markdown files carry it (agents, skills): a block between `---` lines
 * at the top, of top-level `key: value` lines, then the body. Read by hand, not by a YAML parser:
 * only the forms those files use (a scalar, `[a, b]`, a block list of `- a` lines, a `|`/`>` block)
 * are needed, and a leaf of the core takes no package for it.
 */

export type Field = string | string[];

export interface FrontMatter {
  fields: Record<string, Field>;
  /** The text after the closing `---` line. */
  body: string;
  /** Lines of the block (1-based, counted from the line after the opening `---`) that are none of the forms above. */
  stray: number[];
}

/** The front matter of `text`, or undefined when it does not start with a closed `---` block. */
export function splitFrontMatter(text: string): FrontMatter | undefined {
  const m = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return undefined;
  return { ...readFields(m[1]), body: text.slice(m[0].length) };
}

function readFields(yaml: string): Pick<FrontMatter, 'fields' | 'stray'> {
  const fields: Record<string, Field> = {};
  const stray: number[] = [];
  const lines = yaml === '' ? [] : yaml.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^([A-Za-z_][\w-]*):[ \t]*(.*)$/.exec(lines[i]);
    if (!m) {
      if (lines[i].trim() !== '' && !lines[i].trimStart().startsWith('#')) stray.push(i + 1);
      continue;
    }
    const [, key, rest] = m;
    const block: string[] = [];
    while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]) || /^-\s/.test(lines[i + 1]) || lines[i + 1].trim() === '')) block.push(lines[++i]);
    const items = block.filter((l) => /^\s*-\s/.test(l));
    if (rest.trim() === '' && items.length > 0) fields[key] = items.map((l) => unquote(l.replace(/^\s*-\s+/, '')));
    else if (/^[|>][+-]?$/.test(rest.trim())) fields[key] = block.map((l) => l.trim()).join(rest.trim().startsWith('|') ? '\n' : ' ').trim();
    else fields[key] = [rest, ...block.map((l) => l.trim())].join(' ').trim();
  }
  return { fields, stray };
}

/** A field as one string (a list joined by commas); undefined when absent or empty. */
export function scalar(f: Field | undefined): string | undefined {
  if (f === undefined) return undefined;
  const s = unquote(Array.isArray(f) ? f.join(', ') : f);
  return s === '' ? undefined : s;
}

/** A field as a list: a YAML list, `[a, b]` or a comma list. */
export function list(f: Field): string[] {
  const items = Array.isArray(f) ? f : f.trim().replace(/^\[(.*)\]$/, '$1').split(',');
  return items.map(unquote).filter((s) => s !== '');
}

function unquote(s: string): string {
  const t = s.trim();
  return /^(["']).*\1$/.test(t) ? t.slice(1, -1) : t;
}
