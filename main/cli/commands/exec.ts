/**
 * `keel exec --workspace DIR --mode MODE [--approve never|always] -- COMMAND`: one command through
 * exactly the path a session's bash call takes (a real session in the store: the judge and gate,
 * the approval, the OS sandbox, the bash tool and its output limit), its result text printed as
 * the model would get it. It exists to show, and to test, what Keel lets a command do.
 */
import path from 'node:path';
import readline from 'node:readline';
import type { Approver } from '../../core/permissions/approval.js';
import { Session } from '../../core/session/session.js';
import type { Mode } from '../../core/state/types.js';
import type { CommandRunner } from '../../core/tools/commandRunner.js';
import type { SqliteStore } from '../../db/store.js';
import { requireFolder, type Io } from '../io.js';
import { describeApproval } from './describeApproval.js';
import { cliSessionDeps, sandboxNotice } from './deps.js';

/** The exit codes: the command ran (whatever its own status), the gate or the person denied it, the sandbox stopped it. */
export const EXEC_EXIT = { ran: 0, denied: 3, sandboxStopped: 4 } as const;

export interface ExecOptions {
  workspace: string;
  mode: Mode;
  /** `never` denies every approval, `always` grants it; undefined asks on the terminal. */
  approve?: 'never' | 'always';
  command: string;
}

export async function execCommand(store: SqliteStore, o: ExecOptions, io: Io & { input?: NodeJS.ReadableStream }): Promise<number> {
  const root = path.resolve(o.workspace);
  requireFolder(o.workspace, root);
  const deps = cliSessionDeps(store, { approve: approver(o.approve, io) });
  const seen = { ran: false, stopped: false };
  deps.commands = watched(deps.commands!, seen);
  await sandboxNotice(deps, io.err);
  const session = Session.create(deps, { root, kind: 'agent', mode: o.mode, title: `keel exec: ${o.command}` });
  const inserted = await session.calls.run('bash', { command: o.command });
  session.endReply();
  io.out.write(`${inserted.text}\n`);
  if (seen.ran && !inserted.text.endsWith(inserted.body)) {
    io.err.write(`keel: the whole output is stored: keel recall ${session.id} ${inserted.number}\n`);
  }
  return !seen.ran ? EXEC_EXIT.denied : seen.stopped ? EXEC_EXIT.sandboxStopped : EXEC_EXIT.ran;
}

/**
 * The runner, watched: whether the command reached it (the gate and the person let it through)
 * and whether the sandbox stopped it (it could not be prepared, or it failed having been refused
 * something).
 */
function watched(runner: CommandRunner, seen: { ran: boolean; stopped: boolean }): CommandRunner {
  return {
    status: () => runner.status(),
    deniedReads: runner.deniedReads,
    home: runner.home,
    async prepare(command, p) {
      seen.ran = true;
      let prepared;
      try {
        prepared = await runner.prepare(command, p);
      } catch (err) {
        seen.stopped = true;
        throw err;
      }
      return {
        ...prepared,
        async finish(exit) {
          const refused = await prepared.finish(exit);
          if (exit.code !== 0 && refused.length > 0) seen.stopped = true;
          return refused;
        },
      };
    },
  };
}

function approver(given: ExecOptions['approve'], io: Io & { input?: NodeJS.ReadableStream }): Approver {
  if (given === 'always') return async () => 'allow';
  if (given === 'never') {
    return async (request) => {
      io.err.write(`${describeApproval(request)}\n(denied: --approve never)\n`);
      return 'deny';
    };
  }
  return (request) => new Promise((resolve) => {
    const rl = readline.createInterface({ input: io.input ?? process.stdin, terminal: false });
    io.err.write(`${describeApproval(request)}\nAllow? [y/N] `);
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(/^y(es)?$/i.test(line.trim()) ? 'allow' : 'deny');
    });
    rl.once('close', () => {
      if (!answered) resolve('deny');
    });
  });
}
