/**
 * The app as a person first sees it (issues 22 and 36), at 1920×1080, 1400×900 and 800×600: the first-run
 * picker, a session's transcript with a long output, the Cache, Plan, Changes, Processes and Servers tabs, the model
 * picker and Settings popovers, and the Recall inspector. Each view is photographed
 * (test-results/layout-WIDTHxHEIGHT-VIEW.png) and measured (e2e/containment.ts): every pane inside
 * the viewport, nothing drawn outside its pane, the composer and status bar wholly in view and
 * uncovered, the document never scrolling. A narrow window collapses the sidebar; its toggle
 * (and Ctrl+B) brings it back.
 */
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { assertContained } from './containment.js';
import { startHarness } from './harness.js';
import { assertClean, newSession, send, waitFor, waitForText, WAIT } from './steps.js';

/** A workspace .mcp.json long enough to need its own scrolling in the Servers tab. */
function mcpJson(count: number): string {
  const mcpServers = Object.fromEntries(Array.from({ length: count }, (_, i) => [`tool-server-${i + 1}`, { command: 'node', args: [`servers/server-${i + 1}.mjs`, '--with', 'a-rather-long-argument-list'] }]));
  return JSON.stringify({ mcpServers });
}

const FILES = { 'a.txt': 'one\ntwo\n', '.mcp.json': mcpJson(60) };

for (const size of [{ width: 1920, height: 1080 }, { width: 1400, height: 900 }, { width: 800, height: 600 }]) {
  const tag = `${size.width}x${size.height}`;
  const narrow = size.width < 1000;

  test(`layout ${tag}: every view stays inside its pane; composer and status bar always in view`, async ({ browser }) => {
    test.setTimeout(240_000);
    const h = await startHarness({ browser, files: FILES, viewport: size });
    const check = async (view: string) => {
      await h.page.mouse.move(0, 0);
      await h.screenshot(`layout-${tag}-${view}`);
      await assertContained(h.page, `${tag} ${view}`);
    };
    try {
      const page = await h.open();
      await page.getByTestId('first-run').waitFor();
      await page.getByTestId('models-folder-input').fill(h.modelsFolder);
      await page.getByTestId('models-folder-submit').click();
      await waitFor('two models listed', async () => (await page.getByTestId('model-option').count()) === 2);
      await check('first-run');

      await page.getByTestId('model-option').filter({ hasText: 'tiny-a.gguf' }).click();
      await waitForText(page.getByTestId('model-chip'), /tiny-a\.gguf.*loaded/);
      assert.equal(await page.locator('.sidebar').isVisible(), !narrow, narrow ? 'a narrow window collapses the sidebar' : 'a wide window shows the sidebar');
      if (narrow) {
        await page.getByTestId('sidebar-toggle').click();
        await page.locator('.sidebar').waitFor();
        await check('sidebar-open');
      }
      await newSession(page, h.workspace, 'auto');
      if (narrow) {
        // Choosing a session closes the sidebar again where it was collapsed; Ctrl+B toggles it.
        await page.locator('.sidebar').waitFor({ state: 'hidden', timeout: WAIT });
        await page.keyboard.press('Control+b');
        await page.locator('.sidebar').waitFor();
        await page.keyboard.press('Control+b');
        await page.locator('.sidebar').waitFor({ state: 'hidden' });
      }
      h.replies.push(h.call('bash', { command: 'seq 1 400' }), h.call('read', { path: 'a.txt' }), 'It counted to 400, and a.txt holds two lines.');
      await send(h, 'Count to 400, then read a.txt.');
      await waitForText(page.getByTestId('transcript'), /It counted to 400/);
      await check('transcript');

      for (const tab of ['cache', 'plan', 'changes', 'processes', 'servers'] as const) {
        await page.getByTestId(`${tab}-tab`).click();
        await page.getByTestId(`${tab === 'plan' ? 'plan-view' : `${tab}-view`}`).waitFor();
        if (tab === 'servers') await page.getByTestId('mcp-approval').waitFor();
        await check(tab);
      }
      await page.getByTestId('transcript-tab').click();

      await page.getByTestId('model-chip').click();
      await page.getByTestId('model-picker').waitFor();
      await check('model-picker');
      await page.keyboard.press('Escape');

      await page.keyboard.press('Control+Comma');
      await page.getByTestId('settings-panel').waitFor();
      await waitForText(page.getByTestId('doctor-context'), /tokens/);
      await check('settings');
      await page.keyboard.press('Escape');

      await page.getByTestId('inspector-button').click();
      await page.getByTestId('inspector-panel').waitFor();
      await page.getByTestId('inspector-id-input').fill('#0001');
      await page.getByTestId('inspector-id-input').press('Enter');
      await waitFor('the stored body', async () => (await page.getByTestId('inspector-body').locator('.line').count()) > 0);
      await check('inspector');
      await page.getByTestId('servers-tab').click();
      await page.getByTestId('mcp-approval').waitFor();
      await check('inspector-servers');
      assertClean(h);
    } finally {
      await h.close();
    }
  });
}
