/**
 * The app's service as main/app's tests run it: a temp folder with a workspace (`ws`), a generated
 * model (`models/tiny.gguf`), a real store (`keel.db`) and data folder (`data`), and the real engine
 * playing scripted replies (each request of any session takes the next of `replies`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KeelEvent } from '../main/contract.js';
import { DEFAULT_PROMPTS_DIR } from '../main/core/prompts/buildSystemPrompt.js';
import { SqliteStore } from '../main/db/store.js';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { KeelService } from '../main/app/service.js';

export interface TestService {
  dir: string;
  ws: string;
  model: string;
  store: SqliteStore;
  service: KeelService;
  /** Every event the service emitted, in order. */
  events: KeelEvent[];
}

export function openTestService(prefix: string, replies: string[], o: { contextSize?: number; onEvent?: (e: KeelEvent, service: KeelService) => void } = {}): TestService {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const ws = path.join(dir, 'ws');
  const model = path.join(dir, 'models', 'tiny.gguf');
  fs.mkdirSync(ws);
  fs.mkdirSync(path.dirname(model));
  fs.mkdirSync(path.join(dir, 'data'));
  writeTestModel(model);
  const store = new SqliteStore(path.join(dir, 'keel.db'));
  const events: KeelEvent[] = [];
  const service: KeelService = new KeelService({
    store, dataFolder: path.join(dir, 'data'), promptsDir: DEFAULT_PROMPTS_DIR,
    emit: (e) => {
      events.push(e);
      o.onEvent?.(e, service);
    },
    threads: 1, contextSize: o.contextSize ?? 16384, scriptFor: () => ({ next: () => replies.shift() }),
  });
  return { dir, ws, model, store, service, events };
}

export async function closeTestService(t: Pick<TestService, 'dir' | 'store' | 'service'>): Promise<void> {
  await t.service.close();
  t.store.close();
  fs.rmSync(t.dir, { recursive: true, force: true });
}
