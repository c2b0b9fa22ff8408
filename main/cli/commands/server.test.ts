import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serverKey } from './server.js';

describe('the command line\'s server key', () => {
  let tmp: string;
  const saved = { home: process.env.KEEL_HOME, key: process.env.KEEL_SERVER_KEY };
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-key-'));
    process.env.KEEL_HOME = tmp;
    delete process.env.KEEL_SERVER_KEY;
  });
  afterEach(() => {
    for (const [k, v] of [['KEEL_HOME', saved.home], ['KEEL_SERVER_KEY', saved.key]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('comes from KEEL_SERVER_KEY, else a 0600 file; a file others can read is refused', () => {
    expect(serverKey()).toBeUndefined();
    const file = path.join(tmp, 'server-key');
    fs.writeFileSync(file, 'sk-file\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    expect(() => serverKey()).toThrow(/can be read by others \(mode 644\): run `chmod 600/);
    fs.chmodSync(file, 0o600);
    expect(serverKey()).toBe('sk-file');
    process.env.KEEL_SERVER_KEY = 'sk-env';
    expect(serverKey()).toBe('sk-env');
    expect(serverKey(file)).toBe('sk-file');
    expect(() => serverKey(path.join(tmp, 'none'))).toThrow(/does not exist/);
  });
});
