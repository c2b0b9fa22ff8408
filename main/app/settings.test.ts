import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAskAboveSeconds, permissionRules, readSettings, sandboxOptions, SettingsError, writeSettings } from './settings.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-settings-'));
  file = path.join(dir, 'settings.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes `text`, expects readSettings to refuse it with every part of `says`, and the file unchanged. */
function refused(text: string, ...says: (string | RegExp)[]) {
  fs.writeFileSync(file, text);
  let error: unknown;
  try {
    readSettings(dir);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(SettingsError);
  const message = (error as Error).message;
  expect(message).toContain(file);
  for (const s of says) expect(message).toMatch(s);
  expect(fs.readFileSync(file, 'utf8')).toBe(text);
}

describe('settings.json', () => {
  it('is the defaults when there is no file', () => {
    expect(readSettings(dir)).toEqual({ modelsFolder: path.join(os.homedir(), 'models'), local: undefined });
  });

  it('refuses a file that is not JSON, naming it', () => {
    refused('{"rules": [', /not valid JSON/, /changed nothing/);
  });

  it('refuses a field of the wrong shape, naming the field as written in the file', () => {
    refused(JSON.stringify({ rules: [{ action: 'allow', tool: 'bash' }, { action: 'permit', tool: 'bash' }] }), '"rules[1].action"');
    refused(JSON.stringify({ sandbox: { env: ['MYSQL_HOST', 3] } }), '"sandbox.env[1]"', /expected text/);
    refused(JSON.stringify({ sandbox: { allowedDomain: ['x.org'] } }), '"sandbox" holds "allowedDomain"');
    refused(JSON.stringify({ stateBudgetBytes: -5 }), '"stateBudgetBytes"');
    refused(JSON.stringify({ rules: [{ action: 'deny', tool: 'bash', patern: 'rm' }] }), '"rules[0]" holds "patern"');
    refused('[1, 2]', /expected object/);
  });

  it('hands on the rules and the sandbox lists as written', () => {
    const rules = [{ action: 'deny', tool: 'bash', pattern: 'rm' }, { action: 'ask', tool: 'write' }];
    fs.writeFileSync(file, JSON.stringify({ rules, sandbox: { env: ['MYSQL_HOST'] } }));
    expect(permissionRules(dir)).toEqual(rules);
    expect(sandboxOptions(dir)).toEqual({ dataFolder: dir, denyRead: [], allowedDomains: [], env: ['MYSQL_HOST'] });
  });

  it('keeps what it does not read (hooks, keys from other tools) when written back', () => {
    const hooks = { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx tsc --noEmit' }] }] };
    fs.writeFileSync(file, JSON.stringify({ hooks, theme: 'dark', modelsFolder: '/m' }));
    const settings = readSettings(dir);
    writeSettings(dir, { ...settings, lastModel: '/m/a.gguf' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ hooks, theme: 'dark', modelsFolder: '/m', lastModel: '/m/a.gguf' });
  });

  it('falls back to auto for local engine settings it cannot use, as the settings form reports', () => {
    fs.writeFileSync(file, JSON.stringify({ local: { threads: 'many' } }));
    expect(readSettings(dir).local).toBeUndefined();
  });

  it('takes the seconds before a cache break asks as typed in Settings: a plain number of 0 or more, or empty for never', () => {
    expect(['5', ' 0.5 ', '.5', '0', '120.'].map(parseAskAboveSeconds)).toEqual([5, 0.5, 0.5, 0, 120]);
    expect(parseAskAboveSeconds('  ')).toBeUndefined();
    for (const bad of ['-1', '5 s', '1e3', '0x10', 'NaN', 'Infinity']) {
      expect(() => parseAskAboveSeconds(bad)).toThrow(`"${bad}" is not a number of seconds: give 0 or more (like 5 or 0.5), or leave it empty to never ask.`);
    }
    fs.writeFileSync(file, JSON.stringify({ askAboveSeconds: -2 }));
    expect(() => readSettings(dir)).toThrow(SettingsError);
  });
});
