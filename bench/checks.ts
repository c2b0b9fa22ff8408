/**
 * A bench's own checks, one source for every bench: the problems its checks found are named on
 * stderr, one a line, and the bench exits 1; with none it exits 0. Figures are printed elsewhere and
 * never asserted: these are the checks that the run measured what it says it measured.
 */
export function checkProblems(bench: string, problems: readonly string[]): 0 | 1 {
  if (problems.length === 0) return 0;
  const shown = problems.slice(0, 40);
  const more = problems.length - shown.length;
  process.stderr.write(
    `${bench}: ${problems.length} check problem${problems.length === 1 ? '' : 's'}:\n${shown.map((p) => `  - ${p}\n`).join('')}` +
      (more > 0 ? `  … and ${more} more\n` : ''),
  );
  return 1;
}
