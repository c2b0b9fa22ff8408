/**
 * A Keel process for main/app/shells.test.ts: five sessions on a real store, each starting four
 * background commands through the model's `bash` call (the OS sandbox unless told `unsandboxed`),
 * then the first two sessions ended. It prints the shells as a JSON line before and after, then waits: for
 * SIGKILL (a crash), or for a line on stdin, on which it ends them all as the app does at quit.
 */
import readline from 'node:readline';
import { buildSessionDeps } from '../main/app/sessionDeps.js';
import { Session } from '../main/core/session/session.js';
import { unsandboxedRunner } from '../main/core/tools/commandRunner.js';
import { SqliteStore } from '../main/db/store.js';

const [dataFolder, root, dbPath, how] = process.argv.slice(2);
const store = new SqliteStore(dbPath);
// `unsandboxed`: as on a machine without the OS sandbox (the person approves each command).
const commands = how === 'unsandboxed' ? unsandboxedRunner('the test asked for none') : undefined;
const deps = buildSessionDeps({ store, dataFolder, approve: async () => 'allow', commands });
const shells = deps.shells!;
const sessions: number[] = [];
for (let s = 0; s < 5; s++) {
  const session = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
  sessions.push(session.id);
  for (let c = 0; c < 4; c++) {
    const result = await session.calls.run('bash', { command: `echo started; sleep 600`, run_in_background: true });
    if (!result.text.includes('Started in the background')) throw new Error(result.text);
  }
}
const started = shells.list();
// The processes of each shell (the sandbox and the command in it), read while all run.
process.stdout.write(`${JSON.stringify(started)}\n`);
await shells.endSession(sessions[0]);
await shells.endSession(sessions[1]);
process.stdout.write(`${JSON.stringify(shells.list())}\n`);
readline.createInterface({ input: process.stdin }).once('line', () => {
  void shells.endAll().then(() => process.exit(0));
});
