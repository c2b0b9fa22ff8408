/**
 * The price of a cache break, shown before it is paid (issue 36), in a real browser on the real
 * host, store and engine: the limit typed in Settings, the price in a button's tooltip, in a
 * confirmation and in the model picker, and the question above the limit, answered from the keyboard.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from '@playwright/test';
import { startHarness } from './harness.js';
import { WAIT, assertClean, idle, newSession, send, waitFor, waitForText } from './steps.js';

test('the price before it is paid: the limit in Settings, the question above it (Escape changes nothing, Enter goes on), the line in Rewind and the model picker', async ({ browser }) => {
  const h = await startHarness({ browser, files: { 'a.txt': 'one\ntwo\n' } });
  try {
    await h.host.api.setModelsFolder(h.modelsFolder);
    await h.host.api.loadModel(h.modelPaths[0]);
    const page = await h.open();
    const id = await newSession(page, h.workspace, 'auto');
    h.replies.push(h.call('read', { path: 'a.txt' }), 'It says one and two.');
    await send(h, 'What is in a.txt?');
    h.replies.push('Nothing else.');
    await send(h, 'Anything else?');

    // The limit, where people look for it: refused in words beside the field, then saved to settings.json.
    await page.keyboard.press('Control+Comma');
    const field = page.getByTestId('settings-ask-above');
    await field.fill('-1');
    await page.getByTestId('settings-ask-above-save').click();
    await waitForText(page.getByTestId('settings-ask-above-error'), /^"-1" is not a number of seconds: give 0 or more/);
    await field.fill('0');
    await field.press('Enter');
    await page.getByTestId('settings-ask-above-saved').waitFor({ timeout: WAIT });
    await h.screenshot('price-settings');
    assert.equal(JSON.parse(fs.readFileSync(path.join(h.dataFolder, 'settings.json'), 'utf8')).askAboveSeconds, 0);
    await page.keyboard.press('Escape');
    await page.getByTestId('settings-panel').waitFor({ state: 'detached', timeout: WAIT });

    // Compact now: the price in its tooltip once the pointer is on it; above the limit it asks, and Escape leaves the session as it was.
    const compact = page.getByTestId('compact-button');
    await compact.hover();
    await waitFor('the price in the tooltip', async () => /\. This re-reads about \d+ tokens, about [\d.]+ (s|min) on this machine: more than your limit of 0 s\.$/.test((await compact.getAttribute('title')) ?? ''));
    const requests = (await h.host.api.requests(id)).length;
    await compact.click();
    const ask = page.getByTestId('price-ask');
    await waitForText(ask.getByTestId('price-ask-text'), /^That re-reads about \d+ tokens, about [\d.]+ (s|min) on this machine: more than your limit of 0 s\. Go on\?$/);
    await h.screenshot('price-ask');
    await page.keyboard.press('Escape');
    await ask.waitFor({ state: 'detached', timeout: WAIT });
    assert.equal((await h.host.api.requests(id)).length, requests, 'nothing was sent');
    assert.equal((await h.host.api.openSession(id)).turns.length, 2);

    // Rewind to here: the line in its card before anything is taken back.
    await page.getByTestId('turn-2').hover();
    await page.getByTestId('turn-2-rewind').click();
    await waitForText(page.getByTestId('turn-2-confirm').getByTestId('price-line'), /^This re-reads \d+ tokens, about [\d.]+ (s|min) on this machine/);
    await page.getByTestId('turn-2-cancel').click();

    // The model picker says what switching would re-read before any model is chosen.
    await page.getByTestId('model-chip').click();
    await waitForText(page.getByTestId('model-picker').getByTestId('price-line'), /^Switching re-reads about \d+ tokens, about [\d.]+ (s|min) on this machine/);
    await h.screenshot('price-switch');
    await page.keyboard.press('Escape');

    // Enter goes on: the compaction runs.
    h.replies.push('The person asked what a.txt holds: one and two.');
    await compact.click();
    await page.getByTestId('price-ask-go').waitFor({ timeout: WAIT });
    await page.keyboard.press('Enter');
    await waitFor('the scripted summary to be used', async () => h.replies.length === 0);
    await idle(page);
    await page.getByTestId('compacted').waitFor({ timeout: WAIT });
    assertClean(h);
  } finally {
    await h.close();
  }
});
