/**
 * A cap on the processes of one sandboxed command, so a fork bomb stops: a `pids` cgroup of its
 * own where Keel may make one (cgroup v1's `pids` hierarchy, or Keel's own cgroup v2 folder with
 * the `pids` controller, as root or in a delegated user slice). The outer shell joins it before
 * it starts bubblewrap, so everything the command starts is in it. Where none can be made, the
 * command's `ulimit -u` (runner.ts) is the cap; it holds only for a user other than root.
 */
import fs from 'node:fs';
import path from 'node:path';

let parent: string | null | undefined;

/** The folder under which Keel can make a pids cgroup, or null. Found once per process. */
function pidsParent(): string | null {
  if (parent !== undefined) return parent;
  parent = null;
  let lines: string[] = [];
  try {
    lines = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return parent;
  }
  const v1 = lines.map((l) => /^\d+:([^:]*):(.*)$/.exec(l)).find((m) => m && m[1].split(',').includes('pids'));
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find(Boolean);
  const candidates = [
    ...(v1 ? [path.join('/sys/fs/cgroup/pids', v1[2]), path.join('/sys/fs/cgroup', v1[2])] : []),
    ...(v2 ? [path.join('/sys/fs/cgroup', v2[1]), path.join('/sys/fs/cgroup/unified', v2[1])] : []),
  ];
  for (const dir of candidates) {
    const probe = path.join(dir, `keel-probe-${process.pid}`);
    try {
      fs.mkdirSync(probe);
      const ok = fs.existsSync(path.join(probe, 'pids.max'));
      fs.rmdirSync(probe);
      if (ok) return (parent = dir);
    } catch {
      // not this one
    }
  }
  return parent;
}

export interface ProcessCap {
  /** The cgroup's folder: its `cgroup.procs` lists the command's processes. */
  dir: string;
  /** Shell text the outer line starts with: it moves that shell into the cgroup. */
  join: string;
  /** Removes the cgroup (its processes are gone once the sandbox's init has ended). */
  release(): void;
}

/** A cgroup that holds at most `max` processes for the command `id`, or undefined where none can be made. */
export function processCap(id: string, max: number): ProcessCap | undefined {
  const dir = pidsParent();
  if (!dir) return undefined;
  const own = path.join(dir, `keel-cmd-${id.replace(/[^A-Za-z0-9]/g, '')}`);
  try {
    fs.mkdirSync(own);
    fs.writeFileSync(path.join(own, 'pids.max'), String(max));
  } catch {
    removeDir(own);
    return undefined;
  }
  const procs = `'${path.join(own, 'cgroup.procs').replace(/'/g, `'"'"'`)}'`;
  return {
    dir: own,
    join: `echo $$ > ${procs} || exit 125; `,
    release() {
      // Still busy while the last process is being reaped: tried again a second later.
      if (!removeDir(own)) setTimeout(() => removeDir(own), 1000).unref();
    },
  };
}

function removeDir(dir: string): boolean {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}
