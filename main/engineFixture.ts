import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PermissionOptions } from './core/permissions/approval.js';
import { DEFAULT_PROMPTS_DIR } from './core/prompts/buildSystemPrompt.js';
import type { CommandRunner } from './core/tools/commandRunner.js';
import { Session, type SessionDeps } from './core/session/session.js';
import type { Mode, SessionKind } from './core/state/types.js';
import type { ExternalTools } from './core/tools/external.js';
import { ToolRegistry } from './core/tools/registry.js';
import { SqliteStore } from './db/store.js';
import type { AgentLoop, LoopEvent } from './core/turn/loop.js';
import { openAgent, openEngine } from './openEngine.js';
import type { LlamaEngine } from './llm/engine.js';
import type { LocalSettings } from './llm/localSettings.js';
import { loadModel, type LoadedModel } from './llm/model.js';
import type { CallSyntax } from './llm/toolCalls.js';
import { writeTestModel, type TestModelOptions } from './llm/testModel/makeTestModel.js';

/**
 * A real engine on a generated model, for tests and benchmarks: a temporary workspace, a real
 * SQLite store, the real tools, and scripted replies pushed with `say`. Not a mock: the model runs.
 */
export interface EngineFixture {
  root: string;
  dir: string;
  store: SqliteStore;
  agent: AgentLoop;
  model: LoadedModel;
  events: LoopEvent[];
  /** How the session's current model writes a call (to script replies with). */
  syntax(): CallSyntax;
  /** Replies the model will give, in order (each request takes the next). */
  replies: string[];
  /** Moves the clock the session reads the date from. */
  setNow(date: Date): void;
  newModel(options?: TestModelOptions, name?: string): Promise<LoadedModel>;
  /** A new loop on the same session (a restart), optionally restoring the KV state saved last (saveState). */
  reopen(restore: boolean): Promise<AgentLoop>;
  dispose(): Promise<void>;
}

export async function engineFixture(o: {
  kind?: SessionKind; mode?: Mode; files?: Record<string, string>; model?: TestModelOptions; contextSize?: number; now?: Date;
  /** Local engine settings for the generated model's load (the window cache, the checkpoint budget…). */
  local?: Partial<LocalSettings>;
  /** A model file to use as it is (keel check-model) instead of a generated one. */
  modelFile?: string;
  permissions?: PermissionOptions;
  /** Tools from MCP servers (a started main/mcp hub): the session's list takes them at creation. */
  external?: ExternalTools;
  /** Runs bash's commands (the OS sandbox); without one, every command not judged read-only asks. */
  commands?: CommandRunner;
  /** The session's hooks (main/app/hookSettings.ts sessionHooks). */
  hooks?: SessionDeps['hooks'];
} = {}): Promise<EngineFixture> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-engine-')));
  const root = path.join(dir, 'workspace');
  fs.mkdirSync(root);
  for (const [rel, content] of Object.entries(o.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  let now = o.now ?? new Date('2026-11-30T10:00:00');
  const store = new SqliteStore(path.join(dir, 'keel.db'));
  const tools = new ToolRegistry();
  const deps = { store, tools, promptsDir: DEFAULT_PROMPTS_DIR, now: () => now, permissions: o.permissions, external: o.external, commands: o.commands, hooks: o.hooks };
  const models: LoadedModel[] = [];
  const newModel = async (options: TestModelOptions = o.model ?? {}, name = `model-${models.length}.gguf`) => {
    const file = path.join(dir, name);
    writeTestModel(file, options);
    const loaded = await loadModel({ modelPath: file, threads: 1, contextSize: o.contextSize ?? 16384, settings: o.local });
    models.push(loaded);
    return loaded;
  };
  const model = o.modelFile
    ? await loadModel({ modelPath: o.modelFile, contextSize: o.contextSize ?? 16384 }).then((m) => (models.push(m), m))
    : await newModel();
  const session = Session.create(deps, { root, kind: o.kind ?? 'agent', mode: o.mode ?? 'auto', model: model.path });
  const replies: string[] = [];
  const events: LoopEvent[] = [];
  const makeAgent = (s: Session, m: LoadedModel) => openAgent({
    session: s, store, engine: openEngine({ kind: 'local', model: m }), maxReplyTokens: 256,
    script: { next: () => replies.shift() }, stateFile: path.join(dir, `state-${s.id}.bin`),
    onEvent: (e) => events.push(e),
  });
  const fixture: EngineFixture = {
    root, dir, store, events, replies, newModel,
    agent: makeAgent(session, model),
    model,
    setNow: (date) => { now = date; },
    syntax: () => (fixture.agent.engine as LlamaEngine).syntax(fixture.agent.session.promptDate),
    async reopen(restore) {
      const current = (fixture.agent.engine as LlamaEngine).model;
      await fixture.agent.dispose();
      fixture.agent = makeAgent(Session.open(deps, session.id), current);
      if (restore) await fixture.agent.restoreState();
      return fixture.agent;
    },
    async dispose() {
      await fixture.agent.dispose();
      for (const m of models) await m.dispose();
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return fixture;
}
