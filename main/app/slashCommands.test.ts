import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { SqliteStore } from '../db/store.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { KeelService } from './service.js';

let dir: string;
let ws: string;
let store: SqliteStore;
let service: KeelService;
let events: KeelEvent[];
const replies: string[] = [];

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-commands-service-')));
  ws = path.join(dir, 'ws');
  fs.mkdirSync(path.join(ws, '.claude', 'commands', 'frontend'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.claude', 'commands', 'review.md'), '---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs, then list them.\n');
  fs.writeFileSync(path.join(ws, '.claude', 'commands', 'frontend', 'component.md'), 'Make the component $1.\n');
  fs.mkdirSync(path.join(dir, 'models'));
  writeTestModel(path.join(dir, 'models', 'tiny.gguf'));
  store = new SqliteStore(path.join(dir, 'keel.db'));
  events = [];
  service = new KeelService({
    store, dataFolder: path.join(dir, 'data'), promptsDir: DEFAULT_PROMPTS_DIR, emit: (e) => events.push(e),
    threads: 1, contextSize: 8192, scriptFor: () => ({ next: () => replies.shift() }),
  });
});

afterEach(async () => {
  await service.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('custom slash commands in the app', { timeout: 180_000 }, () => {
  it('lists the workspace\'s commands without their prompts, labelled by where they come from', async () => {
    const commands = (await service.slashCommands(ws)).filter((c) => c.source !== 'personal');
    expect(commands).toEqual([
      { name: 'component', description: 'Make the component $1.', source: 'project', namespace: 'frontend', file: path.join(ws, '.claude/commands/frontend/component.md'), label: '(project:frontend)' },
      { name: 'review', description: 'Review a file', argumentHint: 'FILE', source: 'project', file: path.join(ws, '.claude/commands/review.md'), label: '(project)' },
    ]);
  });

  it('sends /review src/a.ts as the command\'s prompt: the request holds it and the turn stores it as sent', async () => {
    await service.setModelsFolder(path.join(dir, 'models'));
    await service.loadModel(path.join(dir, 'models', 'tiny.gguf'));
    const summary = await service.createSession({ workspace: ws, kind: 'agent', mode: 'auto' });
    replies.push('Looked: no bugs.');
    await service.send(summary.id, '/review src/a.ts');

    const expansion = 'Review src/a.ts for bugs, then list them.';
    // The message the request carried (with its notes), as the loop sent it.
    const sent = events.find((e) => e.type === 'message');
    expect(sent?.type === 'message' && sent.sent).toContain(expansion);
    expect(sent?.type === 'message' && sent.sent).not.toContain('/review');
    const view = await service.openSession(summary.id);
    expect(view.turns.map((t) => t.words)).toEqual([expansion]);

    // An unknown /word is refused with the commands there are, and nothing is sent or stored.
    await expect(service.send(summary.id, '/revue src/a.ts')).rejects.toThrow(/There is no command \/revue\. Commands here: \/component, \/review.*Nothing was sent\./);
    // A path is a message, sent as typed.
    replies.push('It is a path.');
    await service.send(summary.id, '/usr/bin/env is missing');
    expect((await service.openSession(summary.id)).turns.map((t) => t.words)).toEqual([expansion, '/usr/bin/env is missing']);
  });
});
