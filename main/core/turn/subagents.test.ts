import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../db/store.js';
import { callLine, ScriptedEngine } from '../../../test/scriptedEngine.js';
import { fill, subagentsConfig } from '../config.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { ToolRegistry } from '../tools/registry.js';
import { SUBAGENT_MIME } from '../tools/task.js';
import { AgentLoop } from './loop.js';
import { Session, type SessionDeps } from '../session/session.js';
import { Subagents, type ChildHost, type ChildState } from './subagents.js';

const texts = subagentsConfig.texts;
let tmp: string;
let root: string;
let store: SqliteStore;
let parentEngine: ScriptedEngine;
/** Each child's engine, by the child's session id; its replies are taken from `childReplies` by the task's prompt. */
let childEngines: Map<number, ScriptedEngine>;
let childReplies: Map<string, string[]>;
let states: [number, ChildState][];
let open: number;
let mostOpen: number;
/** Set to hold each child's first request until the parent's signal is aborted. */
let holdUntilAborted: AbortSignal | undefined;

function parentLoop(o: { files?: Record<string, string> } = {}) {
  for (const [rel, text] of Object.entries(o.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const deps: SessionDeps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-12-06T10:00:00') };
  const host: ChildHost = {
    async open(child, { maxSteps, onEvent }) {
      const engine = new ScriptedEngine('scripted', 100_000, async () => {
        if (holdUntilAborted && !holdUntilAborted.aborted) await new Promise((r) => holdUntilAborted!.addEventListener('abort', r, { once: true }));
      });
      childEngines.set(child.id, engine);
      open++;
      mostOpen = Math.max(mostOpen, open);
      const loop = new AgentLoop({ session: child, store, engine, promptsDir: DEFAULT_PROMPTS_DIR, maxSteps, onEvent, sharePrefix: true });
      return { loop, close: async () => { open--; await engine.dispose(); } };
    },
    onChild: (_parent, child, change) => {
      if ('state' in change) states.push([child, change.state]);
      // The child's replies are chosen by its task's prompt, once its message is sent.
      if ('event' in change && change.event.type === 'message') {
        const engine = childEngines.get(child)!;
        const key = [...childReplies.keys()].find((k) => change.event.type === 'message' && change.event.sent.includes(k));
        engine.replies.push(...(key ? childReplies.get(key)! : []));
      }
    },
  };
  const subagents = new Subagents(deps, host);
  deps.subagents = (row) => subagents.forParent(row);
  const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: parentEngine.id });
  return new AgentLoop({ session, store, engine: parentEngine, promptsDir: DEFAULT_PROMPTS_DIR });
}

const task = (prompt: string, extra: Record<string, string> = {}) => callLine('task', { description: prompt.slice(0, 20), prompt, ...extra });

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-subagents-')));
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
  store = new SqliteStore(path.join(tmp, 'keel.db'));
  parentEngine = new ScriptedEngine();
  childEngines = new Map();
  childReplies = new Map();
  states = [];
  open = 0;
  mostOpen = 0;
  holdUntilAborted = undefined;
});

afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('subagents (the task tool)', () => {
  it('runs a child session of its own and gives the parent only its final answer; the parent re-reads nothing', async () => {
    const loop = parentLoop();
    childReplies.set('Find what a.txt says', [callLine('read', { path: 'a.txt' }), 'a.txt says alpha.']);
    parentEngine.replies.push(task('Find what a.txt says'), 'Done: alpha.');
    expect(await loop.send('Use a subagent.')).toBe('Done: alpha.');

    const result = store.listResults(loop.session.id).find((r) => r.tool === 'task')!;
    expect(result.inserted).toMatch(/\na\.txt says alpha\.$/);
    const link = store.listAttachments(loop.session.id, result.number);
    expect(link.map((a) => a.mimeType)).toEqual([SUBAGENT_MIME]);
    const childId = JSON.parse(link[0].data.toString()).sessionId as number;

    // The child: a stored session of its own, its parent named, its own ids, the read-only tools, the parent's prompt first.
    const child = store.getSession(childId)!;
    expect(child.parentId).toBe(loop.session.id);
    expect(child.tools!.map((t) => t.name)).toEqual(['read', 'list', 'glob', 'grep', 'search', 'recall']);
    expect(child.systemPrompt.startsWith(loop.session.systemPrompt)).toBe(true);
    expect(child.systemPrompt).toContain('# Subagent: general');
    expect(store.listResults(childId).map((r) => [r.number, r.tool])).toEqual([[1, 'read']]);
    expect(states).toEqual([[childId, 'waiting'], [childId, 'running'], [childId, 'answered']]);

    // The child ran on an engine of its own: the parent's cache held its own first request and reply, nothing else.
    const [first, second] = loop.requests();
    expect(parentEngine.prompts).toHaveLength(2);
    expect(second.cachedBefore).toBe(first.promptTokens + first.outputTokens);
    expect(childEngines.get(childId)!.prompts[0]).not.toContain('Use a subagent.');
  });

  it('runs the task calls of one reply at the same time, at most max_parallel, and puts the results in order', async () => {
    const loop = parentLoop();
    for (const k of ['one', 'two', 'three']) childReplies.set(`task ${k}`, [`answer ${k}`]);
    parentEngine.replies.push([task('task one'), task('task two'), task('task three')].join('\n'), 'All done.');
    await loop.send('Three at once.');
    expect(mostOpen).toBe(subagentsConfig.maxParallel);
    const answers = store.listResults(loop.session.id).map((r) => r.inserted.split('\n').at(-1));
    expect(answers).toEqual(['answer one', 'answer two', 'answer three']);
    // The third waited for a place: it started running only after one of the first two ended.
    const third = [...new Set(states.map(([id]) => id))][2];
    const runningAt = states.findIndex(([id, s]) => id === third && s === 'running');
    expect(states.slice(0, runningAt).some(([id, s]) => id !== third && s === 'answered')).toBe(true);
  });

  it('refuses a tool the subagent was not given, with the contract text, and goes on', async () => {
    const loop = parentLoop();
    childReplies.set('Try to write', [callLine('write', { path: 'b.txt', content: 'x' }), 'I could not write.']);
    parentEngine.replies.push(task('Try to write'), 'OK.');
    await loop.send('Go.');
    const childId = [...childEngines.keys()][0];
    expect(store.listResults(childId)[0].inserted).toContain('Error: there is no tool "write". The tools are: read, list, glob, grep, search, recall.');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
  });

  it('stops a subagent that never answers at the step limit, and says so', async () => {
    const loop = parentLoop({ files: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, `${i}\n`])) });
    childReplies.set('Loop forever', Array.from({ length: 40 }, (_, i) => callLine('read', { path: `f${i % 30}.txt` })));
    parentEngine.replies.push(task('Loop forever'), 'It looped.');
    await loop.send('Go.');
    const result = store.listResults(loop.session.id)[0];
    expect(result.inserted).toContain(fill(texts.limit, { steps: subagentsConfig.maxSteps }));
    expect(states.at(-1)?.[1]).toBe('failed');
  });

  it('stops every child when the parent is stopped, and the parent turn ends', async () => {
    const loop = parentLoop();
    const controller = new AbortController();
    holdUntilAborted = controller.signal;
    childReplies.set('slow one', ['never']);
    childReplies.set('slow two', ['never']);
    parentEngine.replies.push([task('slow one'), task('slow two')].join('\n'), 'unreached');
    setTimeout(() => controller.abort(), 50);
    await loop.send('Go.', { signal: controller.signal });
    const results = store.listResults(loop.session.id);
    expect(results.map((r) => r.inserted.split('\n').at(-1))).toEqual([texts.stopped, texts.stopped]);
    expect(open).toBe(0);
    expect(loop.requests()).toHaveLength(1);
  });

  it('reads agents as Claude Code writes them, narrows their tools, and refuses an unknown agent or a model not loaded', async () => {
    const loop = parentLoop({
      files: {
        '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: sonnet\n---\nYou review code. Be strict.\n',
        '.keel/agents/big.md': '---\nname: big\ndescription: >\n  Needs a big model\nmodel: llama-70b\n---\nThink hard.\n',
      },
    });
    childReplies.set('Review a.txt', ['Looks fine.']);
    parentEngine.replies.push(
      [task('Review a.txt', { subagent_type: 'reviewer' }), task('Other', { subagent_type: 'nobody' }), task('Big', { subagent_type: 'big' })].join('\n'),
      'Reviewed.',
    );
    await loop.send('Review.');
    const [review, unknown, big] = store.listResults(loop.session.id).map((r) => r.inserted);
    expect(review).toMatch(/\nLooks fine\.$/);
    expect(unknown).toContain(fill(texts.unknown, { name: 'nobody', list: 'general, big, reviewer' }));
    expect(big).toContain(fill(texts.model, { name: 'big', model: 'llama-70b', own: 'scripted' }));
    const child = store.getSession([...childEngines.keys()][0])!;
    expect(child.tools!.map((t) => t.name)).toEqual(['read', 'grep']);
    expect(child.systemPrompt).toMatch(/# Subagent: reviewer\n\n[^]*\n\nYou review code\. Be strict\.\n$/);
  });

  it('answers that no subagent can run where the session has none, and runs nothing', async () => {
    const deps: SessionDeps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() };
    const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: 'scripted' });
    const loop = new AgentLoop({ session, store, engine: parentEngine, promptsDir: DEFAULT_PROMPTS_DIR });
    parentEngine.replies.push(task('anything'), 'ok');
    await loop.send('Go.');
    expect(store.listResults(session.id)[0].inserted).toContain(texts.none);
    expect(store.listSessions()).toHaveLength(1);
  });
});
