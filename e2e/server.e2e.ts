/**
 * Keel in a real browser on a real llama-server (issue 11, item 6): a person picks "Server (URL)"
 * in the first-run model picker, lists the server's models, chooses one, starts a session and asks
 * about a file. The scripted replies (main/remote/scripted.ts) go through llama-server itself, so
 * the read really runs, the answer streams from the server, and the cache view's figures are the
 * ones the server reported.
 *
 * llama-server is started here on a free loopback port with a generated test GGUF and stopped
 * after. Where its binary is missing the scenario skips, saying how to build it; in CI (or where
 * KEEL_LLAMA_SERVER names one) it fails instead: the same rule as main/remote/server.test.ts.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from '@playwright/test';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { serverModelId } from '../main/remote/connect.js';
import { scriptReply } from '../main/remote/scripted.js';
import { llamaServerMissing, mustHaveLlamaServer, startLlamaServer } from '../test/llamaServer.js';
import { startHarness } from './harness.js';
import { assertClean, newSession, send, waitFor, waitForText, WAIT } from './steps.js';

const missing = llamaServerMissing();

test('server: Server (URL) in the picker, a session whose reply reads a file through llama-server, the cache view says "reported by server"', async ({ browser }) => {
  test.skip(missing !== undefined && !mustHaveLlamaServer, missing);
  if (missing) throw new Error(missing);
  // Starting llama-server and the host on a busy machine comes on top of the usual test.
  test.setTimeout(240_000);

  const h = await startHarness({ browser, models: [], files: { 'a.txt': 'one\ntwo\n' } });
  const model = path.join(h.dir, 'server.gguf');
  writeTestModel(model);
  const server = await startLlamaServer({ model, contextSize: 8192, slots: 1, alias: 'test-model' });
  try {
    const page = await h.open();
    // No local model and none remembered: the first-run picker, whose last part is the server's.
    await page.getByTestId('first-run').waitFor();
    const picker = page.getByTestId('server-picker');
    await waitForText(picker, /Server \(URL\)/);
    await picker.getByTestId('server-url-input').fill(server.url);
    await picker.getByTestId('server-list-submit').click();
    const option = picker.getByTestId('server-model-option');
    await waitFor('the server\'s model listed', async () => (await option.count()) === 1);
    assert.equal(await option.textContent(), 'test-model');
    await option.click();
    await page.getByTestId('first-run').waitFor({ state: 'detached', timeout: WAIT });
    const id = serverModelId(server.url, 'test-model');
    assert.equal((await h.host.api.getState()).lastModel, id);

    await newSession(page, h.workspace, 'auto');
    await waitForText(page.getByTestId('model-chip'), /^127\.0\.0\.1:\d+#test-modelon server/);
    const answer = 'The file a.txt holds two lines: one and two.';
    h.replies.push(scriptReply('Reading it.', [{ name: 'read', arguments: { path: 'a.txt' } }]), scriptReply(answer));
    await send(h, 'What is in a.txt?');

    // The read ran on the workspace's file; its result and the answer are in the transcript.
    await waitForText(page.getByTestId('tool-result-0001'), /^\[#0001 a\.txt lines 1-2 of 2 sha [0-9a-f]{8}\]1: one2: two$/);
    await waitForText(page.getByTestId('transcript'), /The file a\.txt holds two lines: one and two\./);
    assert.doesNotMatch((await page.getByTestId('transcript').textContent()) ?? '', /tool_calls|<tool_call>/);
    await page.mouse.move(0, 0);
    await h.screenshot('server-transcript');

    // Two requests (the call, then the answer), each with the cached prefix the server reported.
    await page.getByTestId('cache-tab').click();
    await page.getByTestId('cache-view').waitFor();
    await waitForText(page.locator('.reused-card .card-label'), /^Reused from KV cache \(reported by server\)$/);
    const rows = page.locator('[data-testid^="cache-row-"]');
    await waitFor('two requests listed', async () => (await rows.count()) === 2);
    const head = await page.getByTestId('cache-table').locator('thead th').allTextContents();
    const figures = [];
    for (let i = 0; i < 2; i++) {
      const cells = rows.nth(i).locator('td');
      const cell = async (name: string) => (await cells.nth(head.indexOf(name)).textContent()) ?? '';
      const num = async (name: string) => Number((await cell(name)).replace(/[^0-9]/g, ''));
      const reusedCell = cells.nth(head.indexOf('Reused from KV cache'));
      assert.match((await reusedCell.textContent()) ?? '', /^[0-9,]+ reported by server$/, `request ${i + 1} says whose figure it is`);
      assert.equal(await reusedCell.getAttribute('title'), `reported by server ${server.url}`);
      figures.push({ prompt: await num('Prompt tokens'), reused: Number(((await reusedCell.textContent()) ?? '').replace(/[^0-9]/g, '')), fresh: await num('Evaluated anew'), model: await cell('Model'), cause: await cell('Cause') });
    }
    assert.equal(figures[0].reused, 0, 'the first request is read in full');
    assert.ok(figures[1].reused >= figures[0].prompt, `the second request reuses all of the first (${JSON.stringify(figures)})`);
    for (const [i, row] of figures.entries()) {
      assert.ok(row.prompt > 0, `request ${i + 1} has prompt tokens`);
      assert.equal(row.reused + row.fresh, row.prompt, `request ${i + 1}: reused + new = prompt tokens`);
      assert.match(row.model, /test-model$/);
      assert.equal(row.cause, '—');
    }
    await page.mouse.move(0, 0);
    await h.screenshot('server-cache');
    assertClean(h);
  } finally {
    await h.close();
    await server.stop();
  }
});
