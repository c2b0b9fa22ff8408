/**
 * A model file's identity: a saved KV state is only loaded into the same model (model.ts), and a
 * speed measurement is only read for the file it was made on (speed.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';

/** Size, and the SHA-256 of the first and last 4 MiB: cheap for a multi-gigabyte file, and enough. */
export function fileIdentity(file: string): string {
  const size = fs.statSync(file).size;
  const chunk = 4 * 1024 * 1024;
  const fd = fs.openSync(file, 'r');
  try {
    const hash = crypto.createHash('sha256').update(String(size));
    for (const at of [0, Math.max(0, size - chunk)]) {
      const buffer = Buffer.alloc(Math.min(chunk, size));
      fs.readSync(fd, buffer, 0, buffer.length, at);
      hash.update(buffer);
    }
    return hash.digest('hex');
  } finally {
    fs.closeSync(fd);
  }
}
