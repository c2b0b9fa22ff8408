/** What runs on this machine, as a test that starts processes checks it (/proc). */
import fs from 'node:fs';

/** The processes whose command line is `line`. */
export const pidsRunning = (line: string): number[] => fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).filter((e) => {
  try {
    return fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') === line;
  } catch {
    return false;
  }
}).map(Number);
