import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where node-llama-cpp writes a state out while it holds the engine: memory, where the system has a
 * memory file system (Linux's /dev/shm), so a message waits for a memory copy, not for the disk
 * (131 MB: 64–97 ms against 125–368 ms here); the state reaches its file afterwards, off the engine.
 * The scratch file is unlinked as soon as it is opened and named through its descriptor
 * (/proc/self/fd), so a kill at any moment leaves nothing behind. Elsewhere, where memory is short,
 * or where the state's size is not known yet, there is none and the state is written to its file.
 */
export interface Scratch {
  /** The path node-llama-cpp writes to. */
  path: string;
  /** Copies what was written to `file` (off the engine), then frees the memory. */
  moveTo(file: string): Promise<void>;
  /** Frees the memory (a write that failed). */
  close(): void;
}

const MEMORY_FS = '/dev/shm';

/** A scratch in memory for a state of about `bytes`, or undefined (write to the file itself). */
export function memoryScratch(bytes: number, folder = MEMORY_FS): Scratch | undefined {
  if (process.platform !== 'linux' || !Number.isFinite(bytes) || bytes <= 0) return undefined;
  try {
    const free = fs.statfsSync(folder);
    // Room twice over, in the memory file system and in memory: a state never pushes the machine into swap.
    if (free.bavail * free.bsize < 2 * bytes || os.freemem() < 2 * bytes) return undefined;
    const name = path.join(folder, `keel-state-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const fd = fs.openSync(name, 'w+', 0o600);
    fs.unlinkSync(name);
    const through = `/proc/self/fd/${fd}`;
    if (!fs.existsSync(through)) {
      fs.closeSync(fd);
      return undefined;
    }
    let open = true;
    const close = () => {
      if (open) fs.closeSync(fd);
      open = false;
    };
    return {
      path: through,
      async moveTo(file) {
        try {
          await fs.promises.copyFile(through, file);
        } finally {
          close();
        }
      },
      close,
    };
  } catch {
    return undefined;
  }
}
