import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../db/store.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { sayOnce } from './commands/chat.js';
import { newConversation } from './commands/conversation.js';

function collector() {
  const chunks: string[] = [];
  return { write: (text: string) => chunks.push(text), get text() { return chunks.join(''); } };
}

let tmp: string;
let savedHome: string | undefined;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-stop-')));
  fs.mkdirSync(path.join(tmp, 'ws'));
  savedHome = process.env.KEEL_HOME;
  process.env.KEEL_HOME = path.join(tmp, 'home');
});
afterEach(() => {
  if (savedHome === undefined) delete process.env.KEEL_HOME;
  else process.env.KEEL_HOME = savedHome;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a reply Ctrl-C stops in `keel say`', { timeout: 120_000 }, () => {
  it('is printed as stopped and marked stopped in the store; one that ends is not', async () => {
    const model = path.join(tmp, 'tiny.gguf');
    writeTestModel(model);
    const store = new SqliteStore(path.join(tmp, 'home', 'keel.db'));
    const replies = ['Cut short.', 'A whole answer.'];
    let interrupt = true;
    const out = collector();
    const err = collector();
    try {
      const c = await newConversation(store, {
        workspace: path.join(tmp, 'ws'), model, kind: 'chat', mode: 'auto', threads: 1, contextSize: 32768,
        // Ctrl-C arrives while the first reply is being made.
        script: { next: () => (interrupt && process.emit('SIGINT'), replies.shift()) },
      }, { out, err });
      try {
        await sayOnce(c, 'Say something.', { out, err });
        expect(out.text).toMatch(/\(stopped\)\n$/);
        expect([...store.stoppedTurns(c.session.id)]).toEqual([1]);
        interrupt = false;
        const before = out.text.length;
        await sayOnce(c, 'Again.', { out, err });
        expect(out.text.slice(before)).not.toContain('(stopped)');
        expect([...store.stoppedTurns(c.session.id)]).toEqual([1]);
      } finally {
        await c.close();
      }
    } finally {
      store.close();
    }
  });
});
