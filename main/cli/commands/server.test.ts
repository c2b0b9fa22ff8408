import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempKeelHome } from '../../../test/cliRun.js';
import { serverKey } from './server.js';

describe('the command line\'s server key', () => {
  let home: string;
  const savedKey = process.env.KEEL_SERVER_KEY;
  beforeEach((ctx) => {
    home = path.join(tempKeelHome(ctx, 'keel-key-'), 'home');
    fs.mkdirSync(home);
    delete process.env.KEEL_SERVER_KEY;
  });
  afterEach(() => {
    if (savedKey === undefined) delete process.env.KEEL_SERVER_KEY;
    else process.env.KEEL_SERVER_KEY = savedKey;
  });

  it('comes from KEEL_SERVER_KEY, else a 0600 file; a file others can read is refused', () => {
    expect(serverKey()).toBeUndefined();
    const file = path.join(home, 'server-key');
    fs.writeFileSync(file, 'sk-file\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    expect(() => serverKey()).toThrow(/can be read by others \(mode 644\): run `chmod 600/);
    fs.chmodSync(file, 0o600);
    expect(serverKey()).toBe('sk-file');
    process.env.KEEL_SERVER_KEY = 'sk-env';
    expect(serverKey()).toBe('sk-env');
    expect(serverKey(file)).toBe('sk-file');
    expect(() => serverKey(path.join(home, 'none'))).toThrow(/does not exist/);
  });
});
