import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionHooks } from './hookSettings.js';
import { ModelCatalog } from './catalog.js';
import { CHATML_SPECIAL_TOKENS, writeTestModel } from '../llm/testModel/makeTestModel.js';

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

  it('offers as drafts for the app model the smaller GGUFs of the folder with its very tokenizer, whatever their names', async () => {
    const folder = path.join(dir, 'models');
    writeTestModel(path.join(folder, 'big.gguf'), { embedding: 128, layers: 3, ff: 256 });
    writeTestModel(path.join(folder, 'tiny.gguf'), { seed: 2 });
    writeTestModel(path.join(folder, 'same-family-named-oddly.gguf'), { specialTokens: [...CHATML_SPECIAL_TOKENS, '<|fim|>'] });
    const catalog = new ModelCatalog({ dataFolder: dir, emit: () => undefined });
    catalog.setFolder(folder);
    expect((await catalog.list()).every((f) => f.draftFor === undefined)).toBe(true);
    catalog.remember({ lastModel: path.join(folder, 'big.gguf') });
    const listed = await catalog.list();
    expect(listed.map((f) => [f.name, f.draftFor])).toEqual([
      ['big.gguf', undefined], ['same-family-named-oddly.gguf', undefined], ['tiny.gguf', path.join(folder, 'big.gguf')],
    ]);
  });
});
