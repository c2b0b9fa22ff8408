/**
 * A hook that fails is shown to the person with its output (issue 34), also where no call card
 * shows it: the person's UserPromptSubmit and Stop hooks, on the real service, store and engine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import type { KeelService } from './service.js';
import { closeTestService, openTestService, type TestService } from '../../test/appService.js';

let dir: string;
let service: KeelService;
let events: KeelEvent[];
const replies: string[] = [];

let t: TestService;
beforeEach(() => {
  t = openTestService('keel-hook-failures-', replies);
  ({ dir, service, events } = t);
});

afterEach(() => closeTestService(t));

const hook = (command: string) => [{ hooks: [{ type: 'command', command }] }];

describe('a hook that fails', { timeout: 120_000 }, () => {
  it('is shown as an error with its output where no call card shows it (UserPromptSubmit, Stop); one that did its job is not', async () => {
    const settings = path.join(dir, 'data', 'settings.json');
    fs.writeFileSync(settings, JSON.stringify({
      hooks: {
        UserPromptSubmit: [...hook('echo "Branch: main"'), ...hook("echo 'prettier: cache folder missing' >&2; exit 1")],
        Stop: hook("echo 'starting notifier'; echo 'notify-send: command not found' >&2; exit 127"),
      },
    }));
    await service.loadModel(path.join(dir, 'models', 'tiny.gguf'));
    const { id } = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat', mode: 'auto' });
    replies.push('Done.');
    await service.send(id, 'Go.');
    const errors = events.filter((e) => e.type === 'error').map((e) => e.type === 'error' && e.message);
    expect(errors).toEqual([
      `The UserPromptSubmit hook \`echo 'prettier: cache folder missing' >&2; exit 1\` (${settings}) exited 1.\nprettier: cache folder missing`,
      `The Stop hook \`echo 'starting notifier'; echo 'notify-send: command not found' >&2; exit 127\` (${settings}) exited 127.\nnotify-send: command not found`,
    ]);
  });
});
