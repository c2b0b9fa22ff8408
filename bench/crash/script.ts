/** What the kill loop's child writes and the parent checks: files whose every line names their version. */

/** The files the child writes, relative to the workspace. */
export const CRASH_FILES = ['a.txt', 'b.txt', 'c.txt'] as const;

/** A session holds at most this many results before the child starts a new one (reopening stays quick). */
export const RESULTS_PER_SESSION = 300;

/** The content of version `tag` with `lines` lines: every line names the version, the count and its index. */
export function versionContent(tag: string, lines: number): string {
  let out = '';
  for (let i = 0; i < lines; i++) out += `v=${tag} n=${lines} i=${i} ${'x'.repeat(8 + (i % 9))}\n`;
  return out;
}

/**
 * The version a file's content is, when it is one version whole (every line present, in order,
 * naming the same version and count, and nothing else); undefined for a torn or foreign content.
 */
export function wholeVersion(content: string): string | undefined {
  const m = /^v=(\S+) n=(\d+) i=0 /.exec(content);
  if (!m) return undefined;
  return content === versionContent(m[1], Number(m[2])) ? m[1] : undefined;
}
