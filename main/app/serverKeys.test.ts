import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerKeys, type SecretBox } from './serverKeys.js';

/** A reversible stand-in for safeStorage, which needs Electron and an OS keychain. */
const box: SecretBox = {
  encrypt: (text) => Buffer.from([...Buffer.from(text)].map((b) => b ^ 0x5a)),
  decrypt: (data) => Buffer.from([...data].map((b) => b ^ 0x5a)).toString(),
};

describe('server keys in the app', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-keys-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('are kept encrypted in a 0600 file, never in plain text, and read back after a restart', () => {
    const dir = tmp();
    new ServerKeys(dir, box).set('http://gpu:8000', 'sk-secret-123');
    const file = path.join(dir, 'server-keys.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('sk-secret-123');
    expect(new ServerKeys(dir, box).get('http://gpu:8000')).toBe('sk-secret-123');
    new ServerKeys(dir, box).set('http://gpu:8000', '');
    expect(new ServerKeys(dir, box).get('http://gpu:8000')).toBeUndefined();
  });

  it('stay in memory only without a secret box (browser mode)', () => {
    const dir = tmp();
    const keys = new ServerKeys(dir);
    keys.set('http://gpu:8000', 'sk-mem');
    expect(keys.get('http://gpu:8000')).toBe('sk-mem');
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(new ServerKeys(dir).get('http://gpu:8000')).toBeUndefined();
  });
});
