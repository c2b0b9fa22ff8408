import crypto from 'node:crypto';

/**
 * SHA-256 as lowercase hex: the one hash of Keel (a file's "unchanged", a prompt's and tool list's
 * identity, a server entry's approval key). A leaf, so benches, scripts and tests use it too.
 */
export function sha256(data: Buffer | string): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}
