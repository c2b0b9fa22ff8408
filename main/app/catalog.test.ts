import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionHooks } from './hookSettings.js';
import { ModelCatalog } from './catalog.js';

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-catalog-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the models catalog and settings.json', () => {
  it('keeps what the person wrote into settings.json while the app ran when it saves a setting of its own', () => {
    const catalog = new ModelCatalog({ dataFolder: dir, emit: () => undefined });
    const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }] };
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ hooks, rules: [{ action: 'deny', tool: 'bash', pattern: 'rm' }] }));
    fs.mkdirSync(path.join(dir, 'models'));
    catalog.setFolder(path.join(dir, 'models'));
    const saved = JSON.parse(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8'));
    expect(saved).toMatchObject({ modelsFolder: path.join(dir, 'models'), hooks, rules: [{ action: 'deny', tool: 'bash', pattern: 'rm' }] });
    expect(sessionHooks(dir)(dir)).toHaveLength(1);
  });

  it('sets a setting the person typed in the Settings panel, and the app uses it at once; a refusal writes nothing and keeps what it used', () => {
    const catalog = new ModelCatalog({ dataFolder: dir, emit: () => undefined });
    fs.mkdirSync(path.join(dir, 'gguf'));
    catalog.set('modelsFolder', path.join(dir, 'gguf'));
    catalog.set('askAboveSeconds', '7');
    expect(catalog.settings).toMatchObject({ modelsFolder: path.join(dir, 'gguf'), askAboveSeconds: 7 });
    const file = fs.readFileSync(path.join(dir, 'settings.json'), 'utf8');
    expect(() => catalog.set('stateBudgetBytes', '-1')).toThrow(/^stateBudgetBytes cannot be -1: .*Nothing was written\.$/);
    expect(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8')).toBe(file);
    expect(catalog.settings.stateBudgetBytes).toBeUndefined();
    catalog.set('askAboveSeconds', undefined);
    expect(catalog.settings.askAboveSeconds).toBeUndefined();
  });
});
