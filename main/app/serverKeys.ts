/**
 * Server API keys in the app. With a secret box (the desktop app passes Electron's `safeStorage`, the
 * OS keychain), keys are kept encrypted in `server-keys.json` (mode 0600) beside the store — never
 * in SQLite, never in plain text on disk. Without one (browser mode), keys live in memory only, for
 * as long as Keel runs. Keys never go into events, views, logs or request records.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What safeStorage offers: encrypt and decrypt with a key the OS keeps. */
export interface SecretBox {
  encrypt(text: string): Buffer;
  decrypt(data: Buffer): string;
}

export class ServerKeys {
  private readonly memory = new Map<string, string>();

  constructor(private readonly dataFolder: string, private readonly box?: SecretBox) {}

  private get file(): string {
    return path.join(this.dataFolder, 'server-keys.json');
  }

  get(url: string): string | undefined {
    if (this.memory.has(url)) return this.memory.get(url);
    if (!this.box) return undefined;
    const saved = this.read()[url];
    if (saved === undefined) return undefined;
    const key = this.box.decrypt(Buffer.from(saved, 'base64'));
    this.memory.set(url, key);
    return key;
  }

  /** Keeps (or, with '', forgets) the key for a server URL. */
  set(url: string, key: string): void {
    if (key === '') this.memory.delete(url);
    else this.memory.set(url, key);
    if (!this.box) return;
    const saved = this.read();
    if (key === '') delete saved[url];
    else saved[url] = this.box.encrypt(key).toString('base64');
    fs.mkdirSync(this.dataFolder, { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(saved), { mode: 0o600 });
    fs.renameSync(temp, this.file);
  }

  private read(): Record<string, string> {
    try {
      return JSON.parse(fs.readFileSync(this.file, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }
}
