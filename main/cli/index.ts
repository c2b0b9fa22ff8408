/**
 * The `keel` command line: the app's engine and store (`$KEEL_HOME/keel.db`) without a window.
 * `runCli(argv, io)` dispatches one command and returns its exit code; `bin/keel.mjs` calls it.
 */
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SessionError } from '../core/session/session.js';
import { MODES, type Mode, type SessionKind } from '../core/state/types.js';
import { StoreError, type SqliteStore } from '../db/store.js';
import { databasePath, KeelHomeError } from '../keelHome.js';
import { ServerError } from '../remote/errors.js';
import { SettingsError } from '../app/settings.js';
import { parseSetting, SettingError, type LocalSettings } from '../llm/localSettings.js';
import type { Conversation } from './commands/conversation.js';
import { deleteCommand, exportCommand, importCommand } from './commands/files.js';
import { listSessions } from './commands/sessions.js';
import { recallResult } from './commands/recall.js';
import { changesCommand, revertCommand } from './commands/changes.js';
import { showRequests } from './commands/requests.js';
import { LOCAL_FLAGS } from './commands/model.js';
import { CliError, openStore, parseCount, parseSessionId, UsageError, type Io } from './io.js';

export const USAGE = `keel — Keel's engine and sessions from the command line

Usage:
  keel sessions                      list the sessions
  keel new --workspace DIR --model FILE.gguf [--kind agent|chat] [--mode MODE] [--title T]
                                     create a session and talk in it
  keel new --workspace DIR --server URL --model NAME [--key-file FILE] …
                                     the same on a model server (llama-server, vLLM, SGLang, Ollama,
                                     LM Studio: docs/servers.md); the key: KEEL_SERVER_KEY, or a 0600
                                     file (--key-file, default $KEEL_HOME/server-key)
  keel chat ID [--model FILE.gguf]   resume a session and talk (another model moves the session to it;
                                     --server URL --model NAME moves it to a server's model)
  keel say ID "message" [--model FILE.gguf] [--json]
                                     send one message; the answer is printed (stdout)
  keel run --workspace DIR (--model FILE.gguf | --server URL --model NAME) [--mode MODE]
           [--approve never|always] [--max-turns N] [--max-seconds S] [--max-tokens N] [--json] PROMPT
                                     a new session, one message (PROMPT - reads stdin); the agent
                                     works until it answers. --max-seconds: a cache break Keel would
                                     take (a compaction) priced above S seconds of re-reading is
                                     refused and the run fails. --json: JSON Lines events on stdout
                                     (docs/json-events.md). Exit 0 answered, 1 failed, 2 bad usage,
                                     3 a call needed an approval that could not be given
  keel requests ID                   the session's requests and their cache use
  keel context ID [--json]           the next message's request by part (system prompt, tools, each
                                     turn, each result by id, notes): tokens cached or new, summing
                                     to its prompt tokens, and what each part's going would re-read
  keel recall ID RESULT [--offset N] [--limit N]
                                     a stored result's full body (RESULT: #0003, 3, 0003)
  keel exec --workspace DIR --mode MODE [--approve never|always] -- COMMAND
                                     run one command as a session's bash call would (judge,
                                     approval, sandbox, output limit) and print its result;
                                     without --approve the terminal asks. Exit 0 ran,
                                     3 denied, 4 the sandbox stopped it
  keel changes ID [--turn N] [--json]
                                     the files the session changed since it began (or turn N), with diffs
  keel revert ID FILE [--turn N]     put FILE back as it was when the session (or turn N) began
  keel export ID [--out FILE]        the session as JSON Lines (turns, results, notes, requests), on stdout
                                     or into FILE; it holds the session's text in full, nothing else
  keel import FILE                   a new session from an exported file (same text and result ids)
  keel delete ID --yes               delete a session and its saved state
  keel doctor [FILE.gguf] [--json] [--workspace DIR] [--measure]
                                     the compute backend, devices and free memory; for FILE, the
                                     context, GPU layers and KV cache Keel would use, and why; the
                                     project files Keel reads in DIR (default: here), and which wait for approval;
                                     --measure first times FILE's decoding and prefill at each thread count
                                     and batch size here and keeps the figures: threads auto then takes the fastest
  keel doctor --server URL [--key-file FILE]
                                     also a llama-server's model: hybrid or sliding window, and the
                                     server flags that keep its cache reused
  keel mcp list [--workspace DIR]    the MCP servers configured for DIR (default: here), not started
  keel mcp tools [--workspace DIR] [--config FILE]
                                     start them and print each server's tools; exit 0 when every server answered
  keel mcp approve [--workspace DIR] [--allow-env VAR,…]
                                     approve DIR/.mcp.json (and the files it runs) as it is now, so its
                                     servers may run; --allow-env lets its entries read those variables
  keel hooks list [--workspace DIR]  the hooks and permission rules sessions in DIR use ($KEEL_HOME/settings.json,
                                     ~/.claude/settings.json, DIR/.keel/settings.json, DIR/.claude/settings.json,
                                     DIR/.claude/settings.local.json)
  keel hooks approve [--workspace DIR | --workspace FILE]
                                     approve DIR's one waiting settings file, or FILE, as it is now
  keel acp [--model FILE.gguf | --server URL --model NAME] [--mode MODE]
                                     an Agent Client Protocol agent on stdin and stdout, for an editor
                                     (Zed, JetBrains, Neovim): the app's sessions, model and approvals
                                     (docs/acp.md); without --model, the model the app last used
  keel settings [NAME VALUE | NAME --unset]
                                     $KEEL_HOME/settings.json's settings, each with its value and what it
                                     is; with NAME VALUE (JSON, or plain text) sets one, checked first
  keel check-template FILE.jinja [--name NAME] [--size-label LABEL] [--json]
                                     run Keel's scripted session on a test model carrying the template
                                     (under that general.name and size label); exit 0 when supported
  keel check-model FILE.gguf [--json]
                                     the same session on a real model, its own template and tokenizer
  keel --help                        this text

Model options (new, chat, say, doctor); each defaults to auto, what the machine allows:
  --backend auto|cpu          auto: the best GPU node-llama-cpp finds (Metal, CUDA, Vulkan), else CPU
  --gpu-layers N|auto         layers on the GPU        --context N|auto   tokens per session
  --threads N|auto            evaluation threads       --kv-type auto|f16|q8_0|q4_0   KV cache type
  --checkpoint-memory MB|auto cache checkpoints per session (hybrid, sliding-window models)
  --window-cache auto|full|checkpoints   a sliding-window model's cache (auto: by memory)
  --draft-model FILE          a smaller GGUF of the model's family that drafts tokens (where speculation is used)
  --flash-attention auto|on|off   llama.cpp's flash attention kernels (auto: where the device supports them)
  --max-tokens N              longest reply, in tokens (new, chat, say, run)

Modes: ${MODES.join(', ')}. In a conversation, /help lists the slash commands;
Ctrl-C stops a reply, Ctrl-D quits.
Data: $KEEL_HOME (default ~/.keel): keel.db, state/ for saved KV caches, mcp.json for your own MCP servers.
`;

type Options = NonNullable<ParseArgsConfig['options']>;

const LOCAL_OPTIONS = Object.fromEntries(Object.keys(LOCAL_FLAGS).map((flag) => [flag, { type: 'string' }])) as
  Record<keyof typeof LOCAL_FLAGS, { type: 'string' }>;

const MODEL_OPTIONS = {
  model: { type: 'string' },
  server: { type: 'string' },
  'key-file': { type: 'string' },
  ...LOCAL_OPTIONS,
  'max-tokens': { type: 'string' },
} satisfies Options;

const COMMANDS = {
  sessions: { options: {}, positionals: 0 },
  new: {
    options: { ...MODEL_OPTIONS, workspace: { type: 'string' }, kind: { type: 'string' }, mode: { type: 'string' }, title: { type: 'string' } },
    positionals: 0,
  },
  chat: { options: MODEL_OPTIONS, positionals: 1 },
  say: { options: { ...MODEL_OPTIONS, json: { type: 'boolean' } }, positionals: 2 },
  run: {
    options: {
      ...MODEL_OPTIONS, workspace: { type: 'string' }, mode: { type: 'string' }, approve: { type: 'string' },
      'max-turns': { type: 'string' }, 'max-seconds': { type: 'string' }, json: { type: 'boolean' },
    },
    positionals: 1,
  },
  requests: { options: {}, positionals: 1 },
  context: { options: { ...LOCAL_OPTIONS, 'key-file': { type: 'string' }, json: { type: 'boolean' } }, positionals: 1 },
  recall: { options: { offset: { type: 'string' }, limit: { type: 'string' } }, positionals: 2 },
  exec: { options: { workspace: { type: 'string' }, mode: { type: 'string' }, approve: { type: 'string' } }, positionals: [1, Infinity] },
  export: { options: { out: { type: 'string' } }, positionals: 1 },
  changes: { options: { turn: { type: 'string' }, json: { type: 'boolean' } }, positionals: 1 },
  revert: { options: { turn: { type: 'string' } }, positionals: 2 },
  import: { options: {}, positionals: 1 },
  delete: { options: { yes: { type: 'boolean' } }, positionals: 1 },
  doctor: { options: { ...LOCAL_OPTIONS, json: { type: 'boolean' }, measure: { type: 'boolean' }, server: { type: 'string' }, 'key-file': { type: 'string' }, workspace: { type: 'string' } }, positionals: [0, 1] },
  mcp: { options: { workspace: { type: 'string' }, config: { type: 'string' }, 'allow-env': { type: 'string' } }, positionals: 1 },
  hooks: { options: { workspace: { type: 'string' } }, positionals: 1 },
  acp: { options: { model: { type: 'string' }, server: { type: 'string' }, mode: { type: 'string' } }, positionals: 0 },
  settings: { options: { unset: { type: 'boolean' } }, positionals: [0, 2] },
  'check-template': { options: { name: { type: 'string' }, 'size-label': { type: 'string' }, json: { type: 'boolean' } }, positionals: 1 },
  'check-model': { options: { json: { type: 'boolean' } }, positionals: 1 },
} satisfies Record<string, { options: Options; positionals: number | readonly [number, number] }>;

type Command = keyof typeof COMMANDS;
type Values = Record<string, string | boolean | undefined>;

function parse(command: Command, args: string[]): { values: Values; positionals: string[] } {
  const spec = COMMANDS[command];
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...spec.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.replace(/\. To specify a positional.*$/s, '.')}\nSee \`keel --help\`.`);
  }
  const values = parsed.values as Values;
  const [least, most] = typeof spec.positionals === 'number' ? [spec.positionals, spec.positionals] : spec.positionals;
  if (!values.help && most === Infinity && parsed.positionals.length < least) throw new UsageError(`keel ${command} needs the command after --. See \`keel --help\`.`);
  if (!values.help && (parsed.positionals.length < least || parsed.positionals.length > most)) {
    const wanted = most === 0 ? 'no arguments' : least === most ? `${most} argument${most > 1 ? 's' : ''}` : `${least} to ${most} arguments`;
    throw new UsageError(`keel ${command} takes ${wanted}, not ${parsed.positionals.length ? parsed.positionals.map((p) => `"${p}"`).join(' ') : 'none'}. See \`keel --help\`.`);
  }
  return { values, positionals: parsed.positionals };
}

function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** The local engine settings given as flags; a bad value is refused with the flag's name. */
export function localFlags(values: Values): Partial<LocalSettings> {
  const settings: Record<string, unknown> = {};
  for (const [flag, key] of Object.entries(LOCAL_FLAGS)) {
    const given = str(values, flag);
    if (given === undefined) continue;
    try {
      settings[key] = parseSetting(key, given, `--${flag}`);
    } catch (e) {
      throw e instanceof SettingError ? new CliError(`${e.message} See \`keel --help\`.`) : e;
    }
  }
  return settings as Partial<LocalSettings>;
}

function agentFlags(values: Values) {
  return {
    local: localFlags(values), maxTokens: parseCount('max-tokens', str(values, 'max-tokens')),
    server: str(values, 'server'), keyFile: str(values, 'key-file'),
  };
}

function oneOf<T extends string>(name: string, given: string | undefined, allowed: readonly T[], fallback: T): T {
  if (given === undefined) return fallback;
  if (!allowed.includes(given as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, not "${given}".`);
  return given as T;
}

export interface CliContext extends Io {
  /** The lines a conversation reads (default: stdin). */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** Runs `keel ARGS…`. Returns the exit code: 0, or 1 after printing what was wrong (`keel run`: 2 for the command line itself). */
export async function runCli(argv: readonly string[], io: CliContext = { out: process.stdout, err: process.stderr }): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    (first === undefined ? io.err : io.out).write(USAGE);
    return first === undefined ? 1 : 0;
  }
  let store: SqliteStore | undefined;
  try {
    if (!(first in COMMANDS)) throw new CliError(`Unknown command "${first}". See \`keel --help\`.`);
    const command = first as Command;
    const { values, positionals } = parse(command, rest);
    if (values.help) {
      io.out.write(USAGE);
      return 0;
    }
    if (command === 'doctor') {
      const { runDoctor } = await import('./commands/doctor.js');
      return (await runDoctor(positionals[0], localFlags(values), values.json === true, io, { server: str(values, 'server'), keyFile: str(values, 'key-file') }, str(values, 'workspace'), values.measure === true)) ? 0 : 1;
    }
    if (command === 'check-template') {
      const { checkTemplateCommand } = await import('./commands/checkTemplate.js');
      return (await checkTemplateCommand(positionals[0], { name: str(values, 'name'), sizeLabel: str(values, 'size-label'), json: values.json === true }, io)) ? 0 : 1;
    }
    if (command === 'check-model') {
      const { checkModelCommand } = await import('./commands/checkTemplate.js');
      return (await checkModelCommand(positionals[0], values.json === true, io)) ? 0 : 1;
    }
    if (command === 'mcp') {
      const { mcpCommand } = await import('./commands/mcp.js');
      return await mcpCommand(positionals[0], { workspace: str(values, 'workspace'), config: str(values, 'config'), allowEnv: str(values, 'allow-env') }, io);
    }
    if (command === 'hooks') {
      const { hooksCommand } = await import('./commands/hooks.js');
      return await hooksCommand(positionals[0], str(values, 'workspace'), io);
    }
    if (command === 'acp') {
      const { acpCommand } = await import('./commands/acp.js');
      const mode = values.mode === undefined ? undefined : oneOf<Mode>('mode', str(values, 'mode'), MODES, 'ask');
      return await acpCommand({ model: str(values, 'model'), server: str(values, 'server'), mode }, io);
    }
    if (command === 'settings') {
      const { settingsCommand } = await import('./commands/settings.js');
      settingsCommand(positionals, values.unset === true, io);
      return 0;
    }
    store = openStore(databasePath());
    return (await dispatch(command, values, positionals, store, io)) ?? 0;
  } catch (e) {
    if (e instanceof CliError || e instanceof StoreError || e instanceof SessionError || e instanceof ServerError || e instanceof SettingsError || e instanceof KeelHomeError) {
      io.err.write(`keel: ${e.message}\n`);
      // `keel run` is for scripts, and says a wrong command line apart (docs/json-events.md).
      return e instanceof UsageError && first === 'run' ? 2 : 1;
    }
    io.err.write(`keel: unexpected error: ${(e as Error)?.stack ?? String(e)}\n`);
    return 1;
  } finally {
    store?.close();
  }
}

async function dispatch(command: Exclude<Command, 'mcp' | 'hooks' | 'settings' | 'check-template' | 'check-model' | 'acp'>, values: Values, positionals: string[], store: SqliteStore, io: CliContext): Promise<number | void> {
  switch (command) {
    case 'sessions':
      return listSessions(store, io.out);
    case 'requests':
      return showRequests(store, parseSessionId(positionals[0]), io.out);
    case 'context': {
      const { resumeConversation } = await import('./commands/conversation.js');
      const { showContext } = await import('./commands/context.js');
      const c = await resumeConversation(store, parseSessionId(positionals[0]), undefined, agentFlags(values), quietIf(values.json === true, io));
      try {
        return await showContext(c, values.json === true, io.out);
      } finally {
        await c.close();
      }
    }
    case 'recall':
      return recallResult(store, parseSessionId(positionals[0]), positionals[1], {
        offset: parseCount('offset', str(values, 'offset')),
        limit: parseCount('limit', str(values, 'limit')),
      }, io.out);
    case 'changes':
      return changesCommand(store, parseSessionId(positionals[0]), parseCount('turn', str(values, 'turn')), values.json === true, io.out);
    case 'revert':
      return revertCommand(store, parseSessionId(positionals[0]), positionals[1], parseCount('turn', str(values, 'turn')), io.out);
    case 'export':
      return exportCommand(store, parseSessionId(positionals[0]), str(values, 'out'), io.out, io.err);
    case 'import':
      return importCommand(store, positionals[0], io.out);
    case 'delete':
      return deleteCommand(store, parseSessionId(positionals[0]), values.yes === true, io.out);
    case 'new': {
      const workspace = str(values, 'workspace');
      const model = str(values, 'model');
      if (workspace === undefined || model === undefined) throw new CliError('keel new needs --workspace DIR and --model FILE.gguf (or --server URL --model NAME).');
      const { newConversation } = await import('./commands/conversation.js');
      const c = await newConversation(store, {
        workspace: path.resolve(workspace), model, ...agentFlags(values), title: str(values, 'title'),
        kind: oneOf<SessionKind>('kind', str(values, 'kind'), ['agent', 'chat'], 'agent'),
        mode: oneOf<Mode>('mode', str(values, 'mode'), MODES, 'ask'),
      }, io);
      return converse(c, io);
    }
    case 'exec': {
      const workspace = str(values, 'workspace');
      const mode = str(values, 'mode');
      if (workspace === undefined || mode === undefined) throw new CliError('keel exec needs --workspace DIR and --mode MODE.');
      const { execCommand } = await import('./commands/exec.js');
      return execCommand(store, {
        workspace, mode: oneOf<Mode>('mode', mode, MODES, 'ask'),
        approve: str(values, 'approve') === undefined ? undefined : oneOf('approve', str(values, 'approve'), ['never', 'always'] as const, 'never'),
        // Several words after -- are one command line, joined by spaces (as ssh does); quote it to keep its own quoting.
        command: positionals.join(' '),
      }, io);
    }
    case 'run':
      return runCommand(values, positionals[0], store, io);
    case 'chat':
    case 'say': {
      const id = parseSessionId(positionals[0]);
      const { resumeConversation } = await import('./commands/conversation.js');
      const c = await resumeConversation(store, id, str(values, 'model'), agentFlags(values), quietIf(values.json === true, io));
      if (command === 'chat') return converse(c, io);
      if (values.json === true) {
        const { runTurn } = await import('./commands/run.js');
        return runTurn(c, positionals[1], { json: true, approve: 'never' }, io);
      }
      const { sayOnce } = await import('./commands/chat.js');
      try {
        await sayOnce(c, positionals[1], io);
      } finally {
        await c.close();
      }
      return;
    }
  }
}

/**
 * `keel run PROMPT` with its checks; `-` reads the prompt from standard input. The session is
 * created only once the command line, the workspace and the model are good.
 */
async function runCommand(values: Values, prompt: string, store: SqliteStore, io: CliContext): Promise<number> {
  const workspace = str(values, 'workspace');
  const model = str(values, 'model');
  if (workspace === undefined || model === undefined) throw new UsageError('keel run needs --workspace DIR and --model FILE.gguf (or --server URL --model NAME). See `keel --help`.');
  const maxTurns = str(values, 'max-turns');
  if (maxTurns !== undefined && (!/^\d+$/.test(maxTurns.trim()) || Number(maxTurns) < 1)) throw new UsageError(`--max-turns needs a positive whole number, not "${maxTurns}".`);
  const maxSeconds = str(values, 'max-seconds');
  if (maxSeconds !== undefined && !(Number(maxSeconds) >= 0 && maxSeconds.trim() !== '')) throw new UsageError(`--max-seconds needs a number of seconds, not "${maxSeconds}".`);
  const approve = oneOf('approve', str(values, 'approve'), ['never', 'always'] as const, 'never');
  // A bad --max-tokens is a wrong command line too (exit 2), refused before anything is created.
  try { parseCount('max-tokens', str(values, 'max-tokens')); } catch (e) { throw new UsageError((e as Error).message); }
  const mode = oneOf<Mode>('mode', str(values, 'mode'), MODES, 'ask');
  const words = prompt === '-' ? await readAll(io.input ?? process.stdin) : prompt;
  if (words.trim() === '') throw new UsageError('keel run needs a prompt (or - to read it from standard input), and it was empty.');
  const { newConversation } = await import('./commands/conversation.js');
  const { runTurn } = await import('./commands/run.js');
  const json = values.json === true;
  const c = await newConversation(store, {
    workspace: path.resolve(workspace), model, ...agentFlags(values), kind: 'agent', mode,
    title: words.trim().split('\n')[0].slice(0, 80), ...(maxTurns === undefined ? {} : { maxSteps: Number(maxTurns) }),
    ...(maxSeconds === undefined ? {} : { maxBreakSeconds: Number(maxSeconds) }),
  }, { ...io, out: io.err });
  return runTurn(c, words, { json, approve }, io);
}

/** With --json, what a command prints as it sets up goes to stderr: stdout holds only events. */
function quietIf(json: boolean, io: CliContext): CliContext {
  return json ? { ...io, out: io.err } : io;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

async function converse(c: Conversation, io: CliContext): Promise<void> {
  const { chatLoop } = await import('./commands/chat.js');
  try {
    await chatLoop(c, io, io.input);
  } finally {
    await c.close();
  }
}
