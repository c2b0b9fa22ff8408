/**
 * The sandbox library's network bridges (`socat UNIX-LISTEN:/tmp/claude-http-….sock …`) are children
 * of the process that started the sandbox, and outlive it when it dies without running its exit
 * handlers (SIGKILL, a crash, a test runner ending a worker): one `.ci/run` left 13 behind. So each
 * start also starts a watcher, detached, that ends the bridges once their owner is gone. It checks
 * every half second, and kills a process only while its command line still names the bridge's
 * socket (a reused process id is left alone). A clean stop ends the watcher first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** The bridge processes of this process: socat children whose command line names one of the sockets. */
export function bridgePids(sockets: readonly string[], parent = process.pid): number[] {
  if (process.platform !== 'linux' || sockets.length === 0) return [];
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (sockets.some((s) => cmdline.includes(`UNIX-LISTEN:${s},`))) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Starts the watcher for `pids` (bridges naming `sockets`), owned by this process. Returns the handle
 * to end it on a clean stop; undefined when there is nothing to watch.
 */
export function watchBridges(pids: readonly number[], sockets: readonly string[]): ChildProcess | undefined {
  if (pids.length === 0) return undefined;
  const script = [
    'owner=$1; shift; sockets=$1; shift',
    'while kill -0 "$owner" 2>/dev/null; do sleep 0.5; done',
    'for pid in "$@"; do',
    '  for s in $sockets; do',
    '    if tr "\\0" " " < /proc/$pid/cmdline 2>/dev/null | grep -qF "UNIX-LISTEN:$s,"; then kill -TERM "$pid" 2>/dev/null; rm -f "$s"; fi',
    '  done',
    'done',
  ].join('\n');
  const child = spawn('/bin/sh', ['-c', script, 'keel-bridge-watch', String(process.pid), sockets.join(' '), ...pids.map(String)], {
    detached: true, stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
  return child;
}
