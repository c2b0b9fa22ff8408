import readline from 'node:readline';
import { SessionError } from '../../core/session/session.js';
import { MODES, type Mode } from '../../core/state/types.js';
import { ContextFullError } from '../../core/turn/loop.js';
import { describeApproval } from './describeApproval.js';
import { CliError, parseCount, type Io } from '../io.js';
import type { Conversation } from './conversation.js';
import { deleteTurn, edit, plan, PLAN_HELP, rewind, showHistory } from './history.js';
import { ReplyPrinter } from './printer.js';
import { recallResult } from './recall.js';
import { showContext } from './context.js';
import { showRequests } from './requests.js';
import { paysPrice, pricedAction, type Ask } from './price.js';
import { commandLabel, expandCommand, expandTyped, listCommands, SlashCommandError, type SlashCommand } from '../../core/prompts/slashCommands.js';
import { commandGrant, commandNotes } from '../../app/commandGrants.js';
import type { SendOptions } from '../../core/turn/loop.js';
import { keelHome } from '../../keelHome.js';

export const SLASH_HELP = `Commands:
  /compact             summarise the history so far and go on from the summary
  /undo                take back the last turn
  /regenerate          take back the last turn and send its message again
  /history             the turns the model sees, by number
  /rewind N [--files]  take back turn N and every later turn (with --files, the files they changed too)
  /edit N TEXT         rewind to turn N and send TEXT in its place (/edit N alone shows its words)
  /delete N            take back turn N alone, keeping the later turns
  ${PLAN_HELP}
  /mode NAME           permission mode: ${MODES.join(', ')}
  /requests            this session's requests and their cache use
  /context             the next message's request by part: tokens cached or new, and what each part's going would re-read
  /recall ID [OFFSET [LIMIT]]  a stored result in full
  /help                this list
  /quit                leave (Ctrl-D does too); Ctrl-C stops a reply
`;

/** Keel's own commands, as /help lists them (and /exit, /quit's other name): each runs before a custom command of its name. */
const BUILT_IN = new Set([...SLASH_HELP.matchAll(/^ {2}\/(\w+)/gm), ...PLAN_HELP.matchAll(/^\/(\w+)/gm)].map((m) => m[1]).concat('exit'));

/** The workspace's custom commands for /help: each with its hint, description and origin, or why it does not run. */
function customHelp(root: string): string {
  const commands = listCommands(root);
  if (commands.length === 0) return 'No custom commands here (.claude/commands/NAME.md, .keel/commands/NAME.md or ~/.claude/commands/NAME.md).\n';
  const lines = commands.map((c) => {
    const call = `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}`;
    const what = c.problem !== undefined ? `does not run: ${c.file}: ${c.problem}`
      : BUILT_IN.has(c.name) ? `does not run: Keel's own /${c.name} comes first (${c.file})`
      : [`${c.description} ${commandLabel(c)}`, ...commandNotes(commandGrant(keelHome(), c, root), c)].join('; ');
    return `  ${call.padEnd(20)} ${what}`;
  });
  return `Custom commands (a command's prompt is sent in its place, $ARGUMENTS and $1… filled in):\n${lines.join('\n')}\n`;
}

/**
 * A message as sent: a custom command's prompt in its place, with its allowed-tools for the turn where
 * they apply (commandGrants.ts); a /word that is no command is refused (nothing sent).
 */
function expanded(root: string, words: string): { prompt: string; allowed?: SendOptions['allowed'] } {
  try {
    const { prompt, command } = expandTyped(words, root);
    return { prompt, ...(command && granted(command, root)) };
  } catch (e) {
    if (e instanceof SlashCommandError) throw new CliError(e.message);
    throw e;
  }
}

/** The allow rules a command's turn runs with, as the app gives them; none where its allowed-tools do not apply. */
function granted(command: SlashCommand, root: string): { allowed?: SendOptions['allowed'] } {
  const { rules } = commandGrant(keelHome(), command, root);
  return rules.length > 0 ? { allowed: rules } : {};
}

/**
 * The conversation on a terminal (or piped lines): each line is sent, the reply streams, then the
 * cache figures. Ctrl-C during a reply stops it; at the prompt, twice in a row quits, as Ctrl-D does.
 */
export async function chatLoop(c: Conversation, io: Io, input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin): Promise<void> {
  const printer = new ReplyPrinter(io.out, io.out);
  c.onEvent = printer.event;
  const terminal = input.isTTY === true;
  const rl = readline.createInterface({ input, output: terminal ? process.stdout : undefined, terminal, prompt: `keel ${c.session.id}> ` });
  let running: AbortController | undefined;
  let quitArmed = false;
  let draft: string | undefined;
  const onInterrupt = () => {
    if (running) {
      running.abort();
      io.err.write('\n(stopping the reply)\n');
    } else if (quitArmed) {
      rl.close();
    } else {
      quitArmed = true;
      io.err.write('\n(Ctrl-C again, Ctrl-D or /quit to leave)\n');
      if (terminal) rl.prompt();
    }
  };
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);

  /**
   * Runs one model step (a message, a regenerate, a compaction) that Ctrl-C can stop. A reply's
   * turn (`marksStop`) is marked stopped in the store when Ctrl-C cut it, as the app marks it.
   */
  const step = async (run: (signal: AbortSignal) => Promise<unknown>, marksStop = true) => {
    running = new AbortController();
    try {
      await run(running.signal);
      if (marksStop) c.store.setLatestTurnStopped(c.session.id, running.signal.aborted);
    } finally {
      const stopped = running.signal.aborted;
      running = undefined;
      printer.endReply();
      if (stopped) io.out.write('(stopped)\n');
    }
  };

  // Lines come from one reader, whether they are messages or answers to a question (piped input too).
  const lines = rl[Symbol.asyncIterator]();
  const ask: Ask = async (question) => {
    io.out.write(question);
    const next = await lines.next();
    return next.done ? '' : String(next.value);
  };
  c.approvals.approve = async (request) => {
    io.out.write(`\n${describeApproval(request)}\n`);
    const answer = await ask('Allow? [y] once, [a] always for this session, [n] no (or n: what to tell the model): ');
    const a = answer.trim().toLowerCase();
    const reason = /^no?\s*:\s*(.+)$/is.exec(answer.trim())?.[1];
    return a === 'y' || a === 'yes' ? 'allow' : a === 'a' || a === 'always' ? 'allow-session' : { answer: 'deny', reason };
  };
  io.out.write(`Session ${c.session.id} (${c.session.kind}, mode ${c.session.mode}) in ${c.session.root}. /help for commands.\n`);
  if (terminal) rl.prompt();
  try {
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      const raw = String(next.value);
      quitArmed = false;
      const line = raw.trim();
      try {
        if (line === '') {
          // nothing to send
        } else if (line.startsWith('/')) {
          const prefill = terminal ? (text: string) => { draft = text; } : undefined;
          if (await slash(c, line, io, step, prefill, ask) === 'quit') break;
        } else {
          await step((signal) => c.agent.send(raw, { signal }));
        }
      } catch (e) {
        const known = explain(c, e);
        if (!known) throw e;
        io.err.write(`${known.message}\n`);
      }
      if (terminal) rl.prompt();
      // A line to edit (/edit N): put in the input after the prompt, sent only when the person presses Enter.
      if (draft !== undefined) rl.write(draft);
      draft = undefined;
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    rl.close();
  }
}

/** What an approval shows: the tool, why it asks, and exactly what will happen. */
export { describeApproval };

/** An error the person can act on, as a CliError or SessionError; undefined for anything else. */
function explain(c: Conversation, e: unknown): Error | undefined {
  if (e instanceof CliError || e instanceof SessionError) return e;
  if (e instanceof ContextFullError) {
    const size = c.agent.engine.contextSize;
    return new CliError(`${e.message} The prompt does not fit the model's context of ${size} tokens: compact the session (/compact) or give a larger --context N.`);
  }
  return undefined;
}

type Step = (run: (signal: AbortSignal) => Promise<unknown>, marksStop?: boolean) => Promise<void>;

async function slash(c: Conversation, line: string, io: Io, step: Step, prefill?: (text: string) => void, ask?: Ask): Promise<'quit' | void> {
  const [command, ...args] = line.split(/\s+/);
  // A command that breaks the cache says what that costs before it runs, and asks above the person's limit.
  const action = pricedAction(c, line);
  if (action && !(await paysPrice(c, action, command, io, ask))) return;
  switch (command) {
    case '/quit':
    case '/exit':
      return 'quit';
    case '/help':
      io.out.write(SLASH_HELP);
      io.out.write(customHelp(c.session.root));
      return;
    case '/compact':
      await step((signal) => c.agent.compact(signal), false);
      return;
    case '/undo':
      c.agent.undo();
      io.out.write('Took back the last turn.\n');
      return;
    case '/regenerate':
      await step((signal) => c.agent.regenerate({ signal }));
      return;
    case '/history':
      showHistory(c.session, io.out);
      return;
    case '/rewind':
      rewind(c, args, io.out);
      return;
    case '/edit':
      await edit(c, line, (text) => step((signal) => c.agent.send(text, { signal })), io.out, prefill);
      return;
    case '/delete':
      deleteTurn(c, args, io.out);
      return;
    case '/plan':
      plan(c.session, args, io.out);
      return;
    case '/mode': {
      const mode = args[0];
      if (!MODES.includes(mode as Mode)) throw new CliError(`/mode needs one of ${MODES.join(', ')}; the mode is ${c.session.mode}.`);
      c.session.setMode(mode as Mode);
      io.out.write(`Mode ${mode}: the model is told with your next message.\n`);
      return;
    }
    case '/requests':
      showRequests(c.store, c.session.id, io.out);
      return;
    case '/context':
      await showContext(c, args[0] === '--json', io.out);
      return;
    case '/recall':
      if (args[0] === undefined) throw new CliError('/recall needs a result id, e.g. /recall #0003.');
      recallResult(c.store, c.session.id, args[0], { offset: parseCount('offset', args[1]), limit: parseCount('limit', args[2]) }, io.out);
      return;
    default: {
      // A custom command sends its prompt; a path (`/usr/bin/env fails`) is a message as typed.
      const commands = listCommands(c.session.root);
      const expansion = expandCommand(line, commands);
      if (expansion === undefined) {
        await step((signal) => c.agent.send(line, { signal }));
        return;
      }
      if ('error' in expansion) throw new CliError(`${expansion.error} Keel's own commands: /help.`);
      await step((signal) => c.agent.send(expansion.prompt, { signal, ...granted(expansion.command, c.session.root) }));
    }
  }
}

/** `keel say ID "message"`: one message; the answer on stdout, tool calls and cache figures on stderr. */
export async function sayOnce(c: Conversation, words: string, io: Io): Promise<void> {
  const printer = new ReplyPrinter(undefined, io.err);
  c.onEvent = printer.event;
  c.approvals.approve = async (request) => {
    io.err.write(`${describeApproval(request)}\n(denied: \`keel say\` cannot ask; use \`keel chat\` to approve, or a mode that allows it)\n`);
    return 'deny';
  };
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    let answer: string;
    try {
      const { prompt, allowed } = expanded(c.session.root, words);
      answer = await c.agent.send(prompt, { signal: controller.signal, allowed });
    } catch (e) {
      throw explain(c, e) ?? e;
    } finally {
      printer.endReply();
    }
    io.out.write(answer.endsWith('\n') ? answer : `${answer}\n`);
    // A reply Ctrl-C cut is marked so, here and in the store (the app shows it stopped).
    c.store.setLatestTurnStopped(c.session.id, controller.signal.aborted);
    if (controller.signal.aborted) io.out.write('(stopped)\n');
  } finally {
    process.off('SIGINT', stop);
  }
}
