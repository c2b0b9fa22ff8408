import path from 'node:path';

/**
 * What no command may read, in the home folder: keys and tokens a command has no reason to see
 * and every reason not to print (a model's output leaves the machine in a pasted transcript, and
 * an injected instruction asks for exactly these). Keel's data folder is added where it is known;
 * the person can add more (settings.json `sandbox.denyRead`).
 */
export const HOME_SECRETS = ['.ssh', '.aws', '.gnupg', '.config/gh', '.netrc'] as const;
/** The same for the system: password hashes, readable when Keel runs as root. */
export const SYSTEM_SECRETS = ['/etc/shadow', '/etc/gshadow'] as const;

/**
 * The absolute paths no command may read: the home secrets, the system ones, Keel's data folder
 * and the person's own list (`~/` means the home folder; relative entries are under it too).
 * `realpath` resolves each (a symlinked data folder is denied where it really is); both the
 * spelling and the resolved path are listed when they differ.
 */
export function deniedReads(o: { home: string; dataFolder?: string; extra?: readonly string[]; realpath?: (p: string) => string }): string[] {
  const expand = (p: string) => (p === '~' ? o.home : p.startsWith('~/') ? path.join(o.home, p.slice(2)) : path.resolve(o.home, p));
  const given = [
    ...HOME_SECRETS.map((p) => path.join(o.home, p)), ...SYSTEM_SECRETS,
    ...(o.dataFolder ? [o.dataFolder] : []), ...(o.extra ?? []).map(expand),
  ];
  const real = o.realpath ?? ((p: string) => p);
  return [...new Set(given.flatMap((p) => [p, real(p)]))];
}
