/**
 * Subagents in the app: the model hands a task to a subagent (the `task` tool); its card in the
 * transcript says what the subagent is for, and "Open transcript" shows, inside the card, the
 * subagent's own turns and cache rows. Its session stays out of the session list.
 */
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { startHarness } from './harness.js';
import { assertClean, newSession, send, waitFor, waitForText } from './steps.js';

test("a task call's card shows its subagent's description; Open transcript shows the subagent's message, answer and cache rows; the list still has one session", async ({ browser }) => {
  const h = await startHarness({ browser });
  try {
    await h.host.api.setModelsFolder(h.modelsFolder);
    await h.host.api.loadModel(h.modelPaths[0]);
    const page = await h.open();
    await newSession(page, h.workspace, 'auto');

    // The parent's reply, the subagent's, then the parent's answer: one queue, taken in that order.
    h.replies.push(h.call('task', { description: 'Find the config', prompt: 'Where is the config?' }), 'It is in config.json.', 'The config is config.json.');
    await send(h, 'Where is the config?');

    const card = page.locator('.tool', { has: page.getByTestId('subagent') });
    await waitForText(card.getByTestId('subagent-description'), /^Find the config$/);
    await waitForText(card.getByTestId('tool-result-0001'), /It is in config\.json\./);
    assert.equal(await card.getByTestId('subagent-transcript').count(), 0, 'closed until asked');

    // Keyboard reachable: focused and pressed with Enter.
    const open = card.getByRole('button', { name: 'Open transcript' });
    await open.focus();
    await page.keyboard.press('Enter');
    const nested = card.getByTestId('subagent-transcript');
    await waitForText(nested.getByTestId('subagent-words'), /^Where is the config\?$/);
    await waitForText(nested.getByTestId('subagent-reply'), /It is in config\.json\./);
    await waitFor("the subagent's cache rows", async () => (await nested.getByTestId('subagent-cache').locator('[data-testid^="cache-row-"]').count()) >= 1);
    assert.equal(await card.getByRole('button', { name: 'Close transcript' }).getAttribute('aria-expanded'), 'true');
    await h.screenshot('subagent-transcript');

    // Only the person's session is listed; the subagent's is reached from its card.
    assert.equal(await page.locator('[data-testid^="session-item-"]').count(), 1);
    assertClean(h);
  } finally {
    await h.close();
  }
});
