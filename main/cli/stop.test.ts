import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../db/store.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { sayOnce } from './commands/chat.js';
import { newConversation } from './commands/conversation.js';
import { collector, tempKeelHome } from '../../test/cliRun.js';

let tmp: string;
beforeEach((ctx) => {
  tmp = tempKeelHome(ctx, 'keel-stop-');
  fs.mkdirSync(path.join(tmp, 'ws'));
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
