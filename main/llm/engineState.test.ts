import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAgent, openEngine } from '../openEngine.js';
import { Session } from '../core/session/session.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { loadModel } from './model.js';
import type { LlamaContextSequence } from 'node-llama-cpp';
import { newStateFile, readMeta } from './stateFiles.js';

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

/** A session that answered once and saved its cache; the state file's path. */
async function saved(): Promise<{ f: EngineFixture; file: string }> {
  const fx = await engineFixture({ files: { 'a.txt': 'alpha\n' } });
  fx.replies.push('One.');
  await fx.agent.send('first');
  await fx.agent.saveState();
  return { f: fx, file: path.join(fx.dir, `state-${fx.agent.session.id}.bin`) };
}

/** Reopens the session, tries its saved state, sends one more message: the session must go on. */
async function goOn(fx: EngineFixture) {
  const agent = await fx.reopen(false);
  const restored = await agent.restoreState();
  fx.replies.push('Still here.');
  const answer = await agent.send('second');
  const last = agent.requests().at(-1)!;
  const notices = fx.events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
  return { restored, answer, last, notices };
}

describe('saved KV state: never locks a session', { timeout: 120_000 }, () => {
  it('restores a state made by this model and context, and reuses the prompt', async () => {
    ({ f } = await saved());
    const agent = await f.reopen(false);
    expect(await agent.restoreState()).toBe(true);
    f.replies.push('Resumed.');
    await agent.send('again');
    const last = agent.requests().at(-1)!;
    expect(last.cause).toBeUndefined();
    expect(last.reusedTokens).toBeGreaterThan(last.promptTokens * 0.9);
  });

  it('discards a torn state file, says so, and the next request reads the prompt', async () => {
    let file: string;
    ({ f, file } = await saved());
    const meta = readMeta(file);
    if (!meta.ok) throw new Error('no metadata');
    const state = path.join(path.dirname(file), meta.meta.state);
    fs.truncateSync(state, Math.floor(fs.statSync(state).size / 2));
    const r = await goOn(f);
    expect(r.restored).toBe(false);
    expect(r.answer).toBe('Still here.');
    expect(r.last.cause).toBe('saved state unusable');
    expect(r.last.reusedTokens).toBe(0);
    expect(r.notices.join('\n')).toMatch(/saved state unusable: .* is torn/);
  });

  it('discards a state whose file is missing, or whose metadata is garbage', async () => {
    let file: string;
    ({ f, file } = await saved());
    const meta = readMeta(file);
    if (!meta.ok) throw new Error('no metadata');
    fs.rmSync(path.join(path.dirname(file), meta.meta.state));
    let r = await goOn(f);
    expect([r.restored, r.answer, r.last.cause]).toEqual([false, 'Still here.', 'saved state unusable']);
    expect(r.notices.join('\n')).toMatch(/is missing/);
    await f.agent.saveState();
    fs.writeFileSync(`${file}.json`, '{"identity": 3');
    r = await goOn(f);
    expect([r.restored, r.answer, r.last.cause]).toEqual([false, 'Still here.', 'saved state unusable']);
    expect(r.notices.join('\n')).toMatch(/\.bin\.json cannot be read/);
  });

  it('never loads a state made by another model, or with another context size', async () => {
    let file: string;
    ({ f, file } = await saved());
    const other = await f.newModel({ seed: 99 }, 'other.gguf');
    const sameFileOtherContext = await loadModel({ modelPath: f.model.path, threads: 1, contextSize: 4096 });
    try {
      for (const model of [other, sameFileOtherContext]) {
        const deps = { store: f.store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() };
        const agent = openAgent({ session: Session.open(deps, f.agent.session.id), store: f.store, engine: openEngine({ kind: 'local', model }), stateFile: file });
        expect(await agent.restoreState()).toBe(false);
        await agent.dispose();
      }
    } finally {
      await sameFileOtherContext.dispose();
    }
    // The state is still there for the engine it belongs to.
    const agent = await f.reopen(false);
    expect(await agent.restoreState()).toBe(true);
  });

  it('removes what saves cut short left, when the state is restored and before each save: leftovers never pile up', async () => {
    let file: string;
    ({ f, file } = await saved());
    const files = () => fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith(path.basename(file))).sort();
    const named = () => {
      const meta = readMeta(file);
      if (!meta.ok) throw new Error('no metadata');
      return [`${path.basename(file)}.json`, meta.meta.state].sort();
    };
    // Two saves a kill cut short: each left half a state under its new name, one its metadata temp file too.
    for (const leftover of [newStateFile(file), `${newStateFile(file)}b`, `${file}.json.tmp`]) fs.writeFileSync(leftover, 'half a state');
    expect(files()).toHaveLength(5);
    const agent = await f.reopen(false);
    expect(await agent.restoreState()).toBe(true);
    expect(files()).toEqual(named());
    // Saves that fail midway (a full disk) each leave half a file; each next save removes the last one's first.
    const sequence = (agent.engine as unknown as { sequence: LlamaContextSequence }).sequence;
    const write = sequence.saveStateToFile.bind(sequence);
    sequence.saveStateToFile = (async (p: string) => {
      fs.writeFileSync(p, 'half a state');
      throw new Error('No space left on device');
    }) as typeof sequence.saveStateToFile;
    for (let i = 0; i < 3; i++) await expect(agent.saveState()).rejects.toThrow('No space left');
    expect(files()).toHaveLength(3);
    expect(files()).toEqual(expect.arrayContaining(named()));
    sequence.saveStateToFile = write;
    await agent.saveState();
    expect(files()).toEqual(named());
  });

  it('keeps one state file per session: a new save replaces the old and removes it', async () => {
    let file: string;
    ({ f, file } = await saved());
    const files = () => fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith(path.basename(file))).sort();
    const first = files();
    expect(first).toHaveLength(2);
    f.replies.push('Two.');
    await f.agent.send('second');
    await f.agent.saveState();
    const second = files();
    expect(second).toHaveLength(2);
    expect(second).not.toEqual(first);
  });

  it('holds the engine only while the state is copied out: a message sent then runs while the save reaches the disk', async () => {
    let file: string;
    ({ f, file } = await saved());
    const before = readMeta(file);
    let atCopied: ReturnType<typeof readMeta> | undefined;
    let filesAtCopied: string[] = [];
    const files = () => fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith(path.basename(file))).sort();
    let copiedDone!: () => void;
    const copiedNow = new Promise<void>((resolve) => (copiedDone = resolve));
    f.replies.push('Two.');
    await f.agent.send('second');
    const save = f.agent.saveState({
      copied: () => {
        atCopied = readMeta(file);
        filesAtCopied = files();
        copiedDone();
      },
    });
    await copiedNow;
    // Released before the metadata names the new state: the new state is not yet the saved one.
    expect(atCopied).toEqual(before);
    // Where memory can hold it (Linux), the state was written out to memory: its file does not exist yet.
    if (process.platform === 'linux' && fs.existsSync('/dev/shm')) expect(filesAtCopied).toHaveLength(2);
    f.replies.push('Three.');
    expect(await f.agent.send('third')).toBe('Three.');
    await save;
    const after = readMeta(file);
    expect(after.ok && before.ok && after.meta.state !== before.meta.state).toBe(true);
    // The state saved is the one copied out (two turns), and it restores.
    const agent = await f.reopen(false);
    expect(await agent.restoreState()).toBe(true);
  });
});
