/**
 * The sandbox's programs, looked up on PATH by Keel itself: a file that is there and executable,
 * found without starting a process, so the answer does not depend on how busy the machine is
 * (the library's own lookup runs `which` under a 1 s timeout).
 */
import fs from 'node:fs';
import path from 'node:path';

/** The programs bubblewrap sandboxing needs on Linux, and what the library calls each in its configuration. */
const PROGRAMS = [['bwrap', 'bubblewrap (bwrap)'], ['socat', 'socat'], ['rg', 'ripgrep (rg)']] as const;

/** The first executable `name` on `PATH`, absolute, or undefined. */
export function onPath(name: string, PATH = process.env.PATH ?? ''): string | undefined {
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      if (fs.statSync(candidate).isFile()) {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface SandboxPrograms {
  /** The library's configuration naming each program by its path (no lookup left to it). */
  config: { bwrapPath?: string; socatPath?: string; ripgrep?: { command: string } };
  /** The programs not found, in the words the person installs them by. */
  missing: string[];
  /** The programs found, for a message. */
  found: string;
}

export function findSandboxPrograms(PATH = process.env.PATH ?? ''): SandboxPrograms {
  const [bwrap, socat, rg] = PROGRAMS.map(([name]) => onPath(name, PATH));
  const missing = PROGRAMS.filter((_, i) => ![bwrap, socat, rg][i]).map(([, words]) => words);
  return {
    config: { ...(bwrap ? { bwrapPath: bwrap } : {}), ...(socat ? { socatPath: socat } : {}), ...(rg ? { ripgrep: { command: rg } } : {}) },
    missing,
    found: [bwrap, socat, rg].filter(Boolean).join(', '),
  };
}
