import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// A KEEL_HOME Keel cannot use, as a person gives it to the real `keel` command and `npm run serve`
// (child processes, so a hang shows as a timeout): one sentence naming the path and what to do, exit 1.
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-home-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(home: string, args: string[], wrap: string[] = []) {
  const [command, ...rest] = [...wrap, process.execPath, ...args];
  const r = spawnSync(command, rest, { cwd: repo, env: { ...process.env, KEEL_HOME: home }, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  return { code: r.status, signal: r.signal, err: r.stderr.trim() };
}
const keel = (home: string, wrap?: string[]) => run(home, [path.join(repo, 'bin/keel.mjs'), 'sessions'], wrap);
const serve = (home: string) => run(home, [path.join(repo, 'node_modules/tsx/dist/cli.mjs'), path.join(repo, 'main/server/serve.ts')]);

/** One line, no stack trace, the path named. */
function expectOneSentence(r: ReturnType<typeof run>, home: string, why: RegExp) {
  expect(r.signal).toBeNull();
  expect(r.code).toBe(1);
  expect(r.err.split('\n')).toHaveLength(1);
  expect(r.err).not.toMatch(/\bat \S+:\d+/);
  expect(r.err).toContain(`Keel cannot keep its data in ${home} (KEEL_HOME)`);
  expect(r.err).toMatch(why);
  expect(r.err).toMatch(/set KEEL_HOME to a folder you can write to/);
}

describe('a KEEL_HOME Keel cannot use', { timeout: 120_000 }, () => {
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, 'not a folder\n');

  it('a file: keel and npm run serve name it, exit 1, and leave the file as it was', () => {
    expectOneSentence(keel(file), file, /it is a file, not a folder/);
    expectOneSentence(serve(file), file, /it is a file, not a folder/);
    const under = path.join(file, 'keel');
    expectOneSentence(keel(under), under, new RegExp(`${file} is a file, not a folder`));
    expect(fs.readFileSync(file, 'utf8')).toBe('not a folder\n');
  });

  it('inside /proc: an answer at once, not a loop at 100 % CPU', () => {
    for (const home of ['/proc/keel', '/proc/self/keel']) {
      const started = Date.now();
      expectOneSentence(keel(home), home, /it is inside \/proc/);
      expect(Date.now() - started).toBeLessThan(30_000);
    }
    expectOneSentence(serve('/proc/keel'), '/proc/keel', /it is inside \/proc/);
  });

  // Root writes through permission bits, so "read-only" is a read-only mount: bubblewrap binds the folder read-only.
  const bwrap = spawnSync('bwrap', ['--version']).status === 0;
  it.skipIf(!bwrap)('read-only (a read-only bind mount): named, exit 1', () => {
    const ro = path.join(dir, 'ro');
    fs.mkdirSync(ro);
    const wrap = ['bwrap', '--bind', '/', '/', '--ro-bind', ro, ro, '--dev', '/dev', '--proc', '/proc'];
    expectOneSentence(keel(ro, wrap), ro, /it is read-only/);
    expectOneSentence(keel(path.join(ro, 'home'), wrap), path.join(ro, 'home'), /it is read-only/);
    expect(fs.readdirSync(ro)).toEqual([]);
  });

  it('a usable one is created as before', () => {
    const home = path.join(dir, 'new', 'home');
    const r = keel(home);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(home, 'keel.db'))).toBe(true);
  });
});
