/**
 * Background commands in the app (issue 33), in a real browser on the real host, store, OS sandbox
 * and engine: the model starts a command with bash `run_in_background`; the Processes tab lists it
 * running with what it prints, the person stops it there, it shows stopped, and its processes are
 * gone from the machine.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from '@playwright/test';
import { startHarness } from './harness.js';
import { assertClean, newSession, send, waitFor, waitForText } from './steps.js';

const TICKS = 'while true; do echo tick; sleep 0.2; done';

/** `pid` and every process below it, from /proc. */
function tree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const e of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(e)]);
    } catch {
      // gone
    }
  }
  const out = [pid];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

/** Running and not a zombie. */
const alive = (pid: number) => {
  try {
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

test('a background command is listed running in the Processes tab with its output; Stop stops it, it shows stopped, and its processes are gone', async ({ browser }) => {
  const h = await startHarness({ browser });
  try {
    await h.host.api.setModelsFolder(h.modelsFolder);
    await h.host.api.loadModel(h.modelPaths[0]);
    const page = await h.open();
    const id = await newSession(page, h.workspace, 'auto');

    // No command yet: the tab says so.
    await page.getByTestId('processes-tab').click();
    await waitForText(page.getByTestId('processes-none'), /^No background commands in this session\./);

    await page.getByTestId('transcript-tab').click();
    h.replies.push(h.call('bash', { command: TICKS, run_in_background: true }), 'It ticks in the background.');
    await send(h, 'Start a ticker in the background.');
    await waitForText(page.getByTestId('tool-result-0001'), /^\[#0001\]\s*Started in the background as shell bg1\./);
    // The tab's badge counts it before the tab is opened.
    await waitForText(page.getByTestId('processes-running'), /^1 running$/);

    await page.getByTestId('processes-tab').click();
    const row = page.locator('[data-testid="process"][data-shell="bg1"]');
    await waitForText(row.getByTestId('process-state'), /^running$/);
    assert.match((await row.textContent()) ?? '', /bg1.*while true; do echo tick; sleep 0\.2; done.*pid \d+/);
    await waitForText(page.getByTestId('process-status'), /^\[shell bg1 is running\]$/);
    // Its output grows while the tab is open (read again each second).
    await waitForText(page.getByTestId('process-text'), /^tick\n(tick\n){2,}/);
    const early = ((await page.getByTestId('process-text').textContent()) ?? '').length;
    await waitFor('more ticks shown', async () => ((await page.getByTestId('process-text').textContent()) ?? '').length > early);
    await page.mouse.move(0, 0);
    await h.screenshot('processes-running');

    const [shell] = await h.host.api.shells(id);
    const procs = tree(shell.pid!);
    assert.ok(procs.filter(alive).length > 1, 'the command runs, inside its sandbox');

    await row.getByTestId('process-stop').click();
    await waitForText(row.getByTestId('process-state'), /^stopped$/);
    await waitForText(page.getByTestId('processes-said'), /^Shell bg1 was stopped\.$/);
    await waitForText(page.getByTestId('process-status'), /^\[shell bg1 was stopped: the person stopped it\]$/);
    assert.equal(await row.getByTestId('process-stop').count(), 0);
    assert.equal(await page.getByTestId('processes-running').count(), 0);
    assert.deepEqual(procs.filter(alive), [], 'every process of the command is gone');
    assert.equal((await h.host.api.shells(id))[0].state, 'stopped');
    await h.screenshot('processes-stopped');
    assertClean(h);
  } finally {
    await h.close();
  }
});
