import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import { callSyntax, formatCall } from '../llm/toolCalls.js';
import { loadModel } from '../llm/model.js';
import { sessionWrapper } from '../llm/wrapper.js';
import { approveHooksFile, hooksView } from './hooksView.js';
import type { KeelService } from './service.js';
import { closeTestService, openTestService, type TestService } from '../../test/appService.js';

let dir: string;
let ws: string;
let service: KeelService;
let events: KeelEvent[];
const replies: string[] = [];

let t: TestService;
beforeEach(() => {
  // Every approval asked is recorded and denied: a call that ran asked no one, or was allowed.
  const deny = (e: KeelEvent, s: KeelService) => {
    if (e.type === 'approval') void s.answerApproval(e.approval.approvalId, 'deny');
  };
  t = openTestService('keel-commands-service-', replies, { contextSize: 8192, onEvent: deny });
  ({ dir, ws, service, events } = t);
  fs.mkdirSync(path.join(ws, '.claude', 'commands', 'frontend'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.claude', 'commands', 'review.md'), '---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs, then list them.\n');
  fs.writeFileSync(path.join(ws, '.claude', 'commands', 'frontend', 'component.md'), 'Make the component $1.\n');
});

afterEach(() => closeTestService(t));

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

  it("runs what a command's allowed-tools name without asking in its turn only, once the workspace's settings are approved; a deny rule still wins", async () => {
    const data = path.join(dir, 'data');
    fs.mkdirSync(data, { recursive: true });
    // The person's own deny rule, as Claude Code writes it in their settings.
    fs.writeFileSync(path.join(data, 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }));
    fs.writeFileSync(path.join(ws, '.claude', 'commands', 'mark.md'), '---\nallowed-tools: Bash(touch:*), Bash(rm:*), WebFetch\nmodel: claude-3-5-haiku-20241022\n---\nMark the workspace.\n');
    const settings = path.join(ws, '.claude', 'settings.json');
    fs.writeFileSync(settings, JSON.stringify({ permissions: { ask: ['Bash(git push:*)'] } }));
    fs.writeFileSync(path.join(ws, 'keep.txt'), 'kept\n');
    await service.setModelsFolder(path.join(dir, 'models'));
    const tiny = path.join(dir, 'models', 'tiny.gguf');
    await service.loadModel(tiny);
    const loaded = await loadModel({ modelPath: tiny, threads: 1, contextSize: 4096 });
    const syntax = callSyntax(sessionWrapper(loaded.model, '2026-11-30'));
    await loaded.dispose();
    // echo alone is read-only and runs unasked anyway, and a redirection is beyond any allow rule: touch is a command that asks.
    const touch = (file: string) => formatCall(syntax, 'bash', { command: `touch ${file}` });
    const asked = () => events.filter((e) => e.type === 'approval').length;
    const made = (file: string) => fs.existsSync(path.join(ws, file));
    const { id } = await service.createSession({ workspace: ws, kind: 'agent', mode: 'ask' });

    // The repository's command before its settings are approved: its allowed-tools pre-approve nothing.
    const listed = (await service.slashCommands(ws)).find((c) => c.name === 'mark')!;
    expect(listed.notes).toEqual([
      `its allowed-tools apply once you approve ${settings} (keel hooks approve --workspace ${settings}, or Hooks and permission rules in the Servers tab): until then each call asks`,
      "allowed-tools WebFetch is ignored: Keel has no tool that Claude Code's WebFetch stands for",
      'model claude-3-5-haiku-20241022 is not used: the session keeps its model',
    ]);
    replies.push(touch('before.txt'), 'Asked.');
    await service.send(id, '/mark');
    expect(asked()).toBe(1);
    expect(made('before.txt')).toBe(false);

    // Approved as it is now: the command's turn runs touch unasked, and the person's deny rule still refuses rm.
    approveHooksFile(data, settings, hooksView(data, ws).files.find((f) => f.file === settings)!.hash);
    expect((await service.slashCommands(ws)).find((c) => c.name === 'mark')!.notes?.[0]).toBe('runs Bash(touch:*), Bash(rm:*) without asking in its turn');
    replies.push(touch('during.txt'), formatCall(syntax, 'bash', { command: 'rm keep.txt' }), 'Done.');
    await service.send(id, '/mark');
    expect(asked()).toBe(1);
    expect(made('during.txt')).toBe(true);
    expect(made('keep.txt')).toBe(true);
    const results = events.filter((e) => e.type === 'tool').map((e) => (e.type === 'tool' ? e.tool.text : ''));
    expect(results.at(-1)).toMatch(/denied: the command "rm keep\.txt": rule: deny bash rm/);

    // The grant ended with that turn: a plain message's touch asks again.
    replies.push(touch('after.txt'), 'Asked again.');
    await service.send(id, 'Mark it once more.');
    expect(asked()).toBe(2);
    expect(made('after.txt')).toBe(false);
  });
});
