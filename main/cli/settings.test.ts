import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, tempKeelHome } from '../../test/cliRun.js';

let file: string;

beforeEach((ctx) => {
  const tmp = tempKeelHome(ctx, 'keel-settings-');
  file = path.join(tmp, 'home', 'settings.json');
});

const written = () => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('keel settings', () => {
  it('lists every setting with its value and what it is', async () => {
    const r = await cli('settings');
    expect(r.code).toBe(0);
    const names = [...r.out.matchAll(/^(\w+) = /gm)].map((m) => m[1]);
    expect(names).toEqual(['modelsFolder', 'lastModel', 'local', 'stateBudgetBytes', 'sandbox', 'rules', 'askAboveSeconds']);
    expect(r.out).toContain('askAboveSeconds = (not set)\n    Ask before an action whose cache break would take longer than this many seconds');
  });

  it('sets a setting from JSON or plain text, checked as the app checks the file, and keeps what it does not read', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ hooks: { Stop: [] }, copiedFrom: 'another tool' }));
    expect(await cli('settings', 'askAboveSeconds', '2.5')).toEqual({ code: 0, out: 'askAboveSeconds = 2.5\n', err: '' });
    expect(await cli('settings', 'modelsFolder', '/data/gguf')).toMatchObject({ code: 0, out: 'modelsFolder = "/data/gguf"\n' });
    expect((await cli('settings', 'sandbox', '{"allowedDomains": ["registry.npmjs.org"]}')).code).toBe(0);
    expect(written()).toMatchObject({
      hooks: { Stop: [] }, copiedFrom: 'another tool', askAboveSeconds: 2.5, modelsFolder: '/data/gguf', sandbox: { allowedDomains: ['registry.npmjs.org'] },
    });
    expect((await cli('settings')).out).toContain('askAboveSeconds = 2.5\n');
    expect(await cli('settings', 'askAboveSeconds', '--unset')).toMatchObject({ code: 0, out: 'askAboveSeconds is not set now.\n' });
    expect(written()).not.toHaveProperty('askAboveSeconds');
  });

  it('refuses a value the setting cannot hold, an unknown setting and a wrong command line, writing nothing', async () => {
    await cli('settings', 'askAboveSeconds', '4');
    const before = fs.readFileSync(file, 'utf8');
    const cases: [string[], string][] = [
      [['settings', 'askAboveSeconds', 'soon'], 'keel: askAboveSeconds cannot be soon: "askAboveSeconds" Invalid input: expected number, received string. Nothing was written.\n'],
      [['settings', 'rules', '[{"action": "forbid", "tool": "bash"}]'], 'keel: rules cannot be [{"action": "forbid", "tool": "bash"}]: "rules[0].action" Invalid option: expected one of "allow"|"ask"|"deny". Nothing was written.\n'],
      [['settings', 'local', '{"threads": "x"}'], 'keel: local cannot be {"threads": "x"}: threads must be auto or a whole number from 1 to 1,024, not "x". Nothing was written.\n'],
      [['settings', 'temperature', '0'], 'keel: There is no setting "temperature"; the settings are modelsFolder, lastModel, local, stateBudgetBytes, sandbox, rules, askAboveSeconds.\n'],
      [['settings', 'askAboveSeconds'], 'keel: keel settings askAboveSeconds needs a value, or --unset to remove it (not both). See `keel --help`.\n'],
    ];
    for (const [argv, err] of cases) expect(await cli(...argv), argv.join(' ')).toEqual({ code: 1, out: '', err });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});
