/**
 * Keel in a real browser (issue "Tested in a real browser"): the built renderer served by the real
 * loopback server, on the real host, store, tools and engine, with generated models whose replies
 * are scripted. Each test has its own data folder, models, workspace and browser context.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startHarness, type Harness } from './harness.js';
import { WAIT, assertClean, idle, newSession, send, waitFor, waitForText } from './steps.js';
import { test } from '@playwright/test';

const FILES = { 'a.txt': 'one\ntwo\n', 'src/app.ts': 'export const answer = 42;\n' };
/** Loads a model without the UI (for tests about something else). */
async function preloadModel(h: Harness, index = 0): Promise<void> {
  await h.host.api.setModelsFolder(h.modelsFolder);
  await h.host.api.loadModel(h.modelPaths[index]);
}

async function withHarness(browser: TestContextBrowser, fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness({ browser, files: FILES });
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}
type TestContextBrowser = Parameters<typeof startHarness>[0]['browser'];

test('first run: the models folder lists the generated models and one loads from it', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    const page = await h.open();
    await page.getByTestId('first-run').waitFor();
    await page.getByTestId('models-folder-input').fill(h.modelsFolder);
    await page.getByTestId('models-folder-submit').click();
    const options = page.getByTestId('model-option');
    await waitFor('two models listed', async () => (await options.count()) === 2);
    assert.match((await options.nth(0).textContent()) ?? '', /tiny-a\.gguf/);
    assert.match((await options.nth(1).textContent()) ?? '', /tiny-b\.gguf/);
    await h.screenshot('first-run');
    await options.filter({ hasText: 'tiny-a.gguf' }).click();
    await page.getByTestId('first-run').waitFor({ state: 'detached', timeout: WAIT });
    await waitForText(page.getByTestId('model-chip'), /tiny-a\.gguf.*loaded/);
    assert.equal((await h.host.api.getState()).loadedModel, h.modelPaths[0]);
    assertClean(h);
  });
});

test('auto mode: a reply streams, tool calls show their bracket, a stub’s id opens the earlier result in the inspector', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    const page = await h.open();
    // The model from the path field this time.
    await page.getByTestId('first-run').waitFor();
    await page.getByTestId('model-path-input').fill(h.modelPaths[0]);
    await page.getByTestId('model-path-submit').click();
    await waitForText(page.getByTestId('model-chip'), /tiny-a\.gguf.*loaded/);

    await newSession(page, h.workspace, 'auto');
    await waitForText(page.getByTestId('transcript'), /Nothing yet/);

    const answer = 'The file a.txt holds two lines: the first says one and the second says two. Reading it again showed nothing new.';
    h.replies.push(h.call('read', { path: 'a.txt' }), h.call('read', { path: 'a.txt' }), answer);
    // Every text the streaming reply showed while the turn was still running.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seenStreaming: string[] }).seenStreaming = seen;
      new MutationObserver(() => {
        const el = document.querySelector('.markdown.streaming');
        if (el?.textContent && seen.at(-1) !== el.textContent) seen.push(el.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await send(h, 'What is in a.txt?');

    const turn = page.getByTestId('turn-1');
    await waitForText(turn.getByTestId('person-words'), /^What is in a\.txt\?$/);
    await waitForText(turn.getByTestId('notes'), /date/);
    const first = page.getByTestId('tool-result-0001');
    assert.equal(await first.getAttribute('data-id'), '#0001');
    await waitForText(first, /^\[#0001 a\.txt lines 1-2 of 2 sha [0-9a-f]{8}\]1: one2: two$/);
    const second = page.getByTestId('tool-result-0002');
    await waitForText(second, /^\[#0002 a\.txt lines 1-2 of 2 sha [0-9a-f]{8}\]Unchanged since #0001/);
    await waitForText(page.getByTestId('transcript'), new RegExp(answer.replace(/[.:]/g, '\\$&')));
    // Once the turn ended, the calls show as tool rows only, never as the raw call text.
    assert.doesNotMatch((await page.getByTestId('transcript').textContent()) ?? '', /<tool_call>|<\/tool_call>/);

    const seen = await page.evaluate(() => (window as unknown as { seenStreaming: string[] }).seenStreaming);
    const partial = seen.filter((text) => text.length > 0 && text.length < answer.length && answer.startsWith(text.trim()));
    assert.ok(partial.length > 0, `the reply was shown while it streamed (saw ${JSON.stringify(seen.slice(0, 5))})`);
    await page.mouse.move(0, 0);
    await h.screenshot('transcript');

    // The stub's #0001 link opens the first read in the Recall inspector.
    await second.locator('[data-testid="id-link"][data-id="#0001"]').click();
    const inspector = page.getByTestId('inspector-panel');
    await inspector.waitFor();
    // The panel can paint before its id field is filled in: wait for the field, don't race it.
    await waitFor('the inspector id field to show #0001', async () => (await page.getByTestId('inspector-id-input').inputValue()) === '#0001');
    const meta = await waitForText(page.getByTestId('inspector-meta'), /#0001/);
    assert.match(meta, /read/);
    assert.match(meta, /a\.txt/);
    // The stored body as it is: the read's own `N: ` numbers, none added by the view.
    const body = page.getByTestId('inspector-body').locator('.line');
    await waitFor('the stored body', async () => (await body.count()) === 2);
    assert.deepEqual(await body.allTextContents(), ['1: one', '2: two']);
    assert.match((await page.getByTestId('inspector-range').textContent()) ?? '', /lines 1-2 of 2/);
    await h.screenshot('inspector');
    assertClean(h);
  });
});

test('cache view lists each request with reused and new tokens; a model switch is a marked break', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    await preloadModel(h);
    const page = await h.open();
    await newSession(page, h.workspace, 'auto');

    h.replies.push(h.call('read', { path: 'src/app.ts' }), 'It exports answer, which is 42.');
    await send(h, 'What does src/app.ts export?');
    h.replies.push('Yes, only that one.');
    await send(h, 'Only that?');
    await waitForText(page.getByTestId('transcript'), /Yes, only that one\./);

    // Switch the session to the second model from the chip.
    await page.getByTestId('model-chip').click();
    const picker = page.getByTestId('model-picker');
    await picker.waitFor();
    await waitForText(picker, /Switching re-reads/);
    await picker.getByTestId('model-option').filter({ hasText: 'tiny-b.gguf' }).click();
    await picker.waitFor({ state: 'detached', timeout: WAIT });
    await waitForText(page.getByTestId('model-chip'), /tiny-b\.gguf/);
    h.replies.push('Now on the other model.');
    await send(h, 'Are you still there?');

    await page.getByTestId('cache-tab').click();
    await page.getByTestId('cache-view').waitFor();
    const rows = page.locator('[data-testid^="cache-row-"]');
    await waitFor('four requests listed', async () => (await rows.count()) === 4);
    const head = await page.getByTestId('cache-table').locator('thead th').allTextContents();
    const figures = [];
    for (let i = 0; i < 4; i++) {
      const cells = await rows.nth(i).locator('td').allTextContents();
      const cell = (name: string) => cells[head.indexOf(name)];
      const num = (name: string) => Number(cell(name).replace(/[^0-9]/g, ''));
      figures.push({ prompt: num('Prompt tokens'), reused: num('Reused from KV cache'), fresh: num('Evaluated anew'), cause: cell('Cause'), model: cell('Model') });
    }
    for (const [i, row] of figures.entries()) {
      assert.ok(row.prompt > 0, `request ${i + 1} has prompt tokens`);
      assert.equal(row.reused + row.fresh, row.prompt, `request ${i + 1}: reused + new = prompt tokens`);
    }
    assert.equal(figures[0].reused, 0, 'the first request reads everything');
    assert.ok(figures[1].reused > 0 && figures[2].reused > 0, 'later requests reuse the cache');
    assert.ok(figures[1].reused >= figures[0].prompt - 1, 'the second request reuses the first prompt');
    assert.deepEqual(figures.slice(0, 3).map((r) => r.cause), ['—', '—', '—']);
    assert.equal(figures[3].cause, 'model switched');
    assert.equal(figures[3].reused, 0, 'the switch re-reads everything');
    assert.match(figures[0].model, /tiny-a/);
    assert.match(figures[3].model, /tiny-b/);

    for (let n = 1; n <= 4; n++) {
      const fresh = Number(await page.getByTestId(`bar-new-${n}`).getAttribute('height'));
      const reused = Number(await page.getByTestId(`bar-reused-${n}`).getAttribute('height'));
      assert.ok(fresh > 0, `bar ${n} shows new tokens`);
      assert.equal(reused > 0, figures[n - 1].reused > 0, `bar ${n} shows reused tokens when there are some`);
    }
    await waitForText(page.getByTestId('cache-break-4'), /^model switched · request 4$/);
    assert.equal(await page.locator('[data-testid^="cache-break-"]').count(), 1, 'one break only');
    await waitForText(page.getByTestId('cache-tab'), /1 break/);
    await page.mouse.move(0, 0);
    await h.screenshot('cache');
    assertClean(h);
  });
});

test('ask mode: the approval card shows the diff before the edit, and Allow applies it', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    await preloadModel(h);
    const page = await h.open();
    await newSession(page, h.workspace, 'ask');

    h.replies.push(h.call('edit', { path: 'a.txt', old_string: 'two', new_string: 'TWO' }), 'Done: the second line now says TWO.');
    await page.getByTestId('message-input').fill('Make the second line of a.txt upper case.');
    await page.getByTestId('send-button').click();

    const card = page.getByTestId('approval-card');
    await card.waitFor({ timeout: WAIT });
    assert.match((await card.textContent()) ?? '', /Allow this edit\?/);
    assert.match((await card.getByTestId('approval-path').textContent()) ?? '', new RegExp(`${path.join(h.workspace, 'a.txt').replace(/[.]/g, '\\.')}$`));
    const preview = card.getByTestId('approval-preview');
    const lines = await preview.locator('.line').allTextContents();
    assert.ok(lines.includes('-two') && lines.includes('+TWO'), `the diff is shown (${JSON.stringify(lines)})`);
    assert.equal(await preview.locator('.line.diff-del').count(), 1);
    assert.equal(await preview.locator('.line.diff-add').count(), 1);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'a.txt'), 'utf8'), 'one\ntwo\n', 'nothing changed before the answer');
    await page.mouse.move(0, 0);
    await h.screenshot('approval');

    await card.getByTestId('approval-allow').click();
    await card.waitFor({ state: 'detached', timeout: WAIT });
    await idle(page);
    await waitForText(page.getByTestId('tool-result-0001'), /^\[#0001 a\.txt/);
    await waitForText(page.getByTestId('transcript'), /Done: the second line now says TWO\./);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'a.txt'), 'utf8'), 'one\nTWO\n');
    assertClean(h);
  });
});

test('a long command output shows the elided band; its id opens the full output in the inspector, paged', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    await preloadModel(h);
    const page = await h.open();
    await newSession(page, h.workspace, 'auto');

    h.replies.push(h.call('bash', { command: 'seq 1 3000' }), 'It counted to 3000.');
    await send(h, 'Count to 3000.');
    const result = page.getByTestId('tool-result-0001');
    await waitForText(result, /^\[#0001\]/);
    const band = result.getByTestId('elided-band');
    const text = await waitForText(band, /\[\d+ lines elided, full output #0001\]/);
    assert.match(text, /not sent to the model/);
    await waitForText(page.getByTestId('transcript'), /It counted to 3000\./);

    await band.locator('[data-testid="id-link"][data-id="#0001"]').click();
    await page.getByTestId('inspector-panel').waitFor();
    await waitForText(page.getByTestId('inspector-range'), /^lines 1-2,000 of 3,000$/);
    const body = page.getByTestId('inspector-body').locator('.line');
    assert.equal(await body.count(), 2000);
    assert.equal(await body.first().locator('.lt').textContent(), '1');
    await page.getByTestId('inspector-next').click();
    await waitForText(page.getByTestId('inspector-range'), /^lines 2,001-3,000 of 3,000$/);
    assert.equal(await page.getByTestId('inspector-body').locator('.line').last().locator('.lt').textContent(), '3000');
    assert.ok(await page.getByTestId('inspector-next').isDisabled(), 'no page after the last');
    await page.mouse.move(0, 0);
    await h.screenshot('elided-band');
    assertClean(h);
  });
});

test('history control: Edit and resend replaces a message (the cache view names the rewind); the Plan tab edits the plan the next message carries; Rewind to here', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    await preloadModel(h);
    const page = await h.open();
    await newSession(page, h.workspace, 'auto');
    h.replies.push(h.call('read', { path: 'a.txt' }), 'It says one and two.');
    await send(h, 'What is in a.txt?');
    h.replies.push('Nothing else.');
    await send(h, 'Anything else?');

    // Edit and resend the first message: the confirmation says what goes, then it replaces both turns.
    await page.getByTestId('turn-1').hover();
    await page.getByTestId('turn-1-edit').click();
    const confirm = page.getByTestId('turn-1-confirm');
    await waitForText(confirm, /Turn 1 and the turn after it are taken back with one result \(#0001\).*Files on disk stay as they are/);
    await page.getByTestId('turn-1-edit-input').fill('What is in src/app.ts?');
    await page.mouse.move(0, 0);
    await h.screenshot('edit-and-resend');
    h.replies.push('It exports answer.');
    await confirm.getByTestId('turn-1-confirm-button').click();
    await waitFor('the scripted replies to be used', async () => h.replies.length === 0);
    await idle(page);
    await waitForText(page.getByTestId('turn-3').getByTestId('person-words'), /^What is in src\/app\.ts\?$/);
    const transcript = (await page.getByTestId('transcript').textContent()) ?? '';
    assert.doesNotMatch(transcript, /Anything else\?|What is in a\.txt\?/);
    await waitForText(page.getByTestId('transcript'), /It exports answer\./);

    await page.getByTestId('cache-tab').click();
    await waitForText(page.getByTestId('cache-table'), /rewind/);
    await waitForText(page.getByTestId('cache-tab'), /1 break/);

    // The person's plan: saved, kept until the next message carries it as a note.
    await page.getByTestId('plan-tab').click();
    await page.getByTestId('plan-add').click();
    await page.getByTestId('plan-text-1').fill('Check the exports');
    await page.getByTestId('plan-status-1').selectOption('doing');
    await page.getByTestId('plan-save').click();
    await waitForText(page.getByTestId('plan-pending'), /next message/);
    await h.screenshot('plan');
    await page.getByTestId('transcript-tab').click();
    h.replies.push('On it.');
    await send(h, 'Follow the plan.');
    await waitForText(page.getByTestId('turn-4').getByTestId('notes'), /The person changed the plan\. It now reads:\s*1\. \[~\] Check the exports/);

    // Rewind to here: the message leaves the transcript and comes back into the message box.
    await page.getByTestId('turn-4').hover();
    await page.getByTestId('turn-4-rewind').click();
    // Numbered as the person counts: the edit took turns 1 and 2 back, so this is turn 2 (its seq is 4).
    await waitForText(page.getByTestId('turn-4'), /turn 2/);
    await waitForText(page.getByTestId('turn-4-confirm'), /^Turn 2 is taken back with its words and replies/);
    await page.getByTestId('turn-4-confirm-button').click();
    await page.getByTestId('turn-4').waitFor({ state: 'detached', timeout: WAIT });
    await waitFor('the rewound words in the message box', async () => (await page.getByTestId('message-input').inputValue()) === 'Follow the plan.');
    assertClean(h);
  });
});

test('settings: Ctrl+, shows the real doctor report; a KV cache the model cannot hold is refused in words; the status bar shows backend and context', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    await preloadModel(h);
    const page = await h.open();
    // The harness pins the context at 16,384 tokens per session.
    await waitForText(page.getByTestId('status-engine'), /^(CPU|CUDA|Metal|Vulkan) · 16,384 ctx$/);
    await page.keyboard.press('Control+Comma');
    await page.getByTestId('settings-panel').waitFor({ timeout: WAIT });
    await waitForText(page.getByTestId('doctor-backend'), /^(CPU|CUDA|Metal|Vulkan)\S*\s*\S/);
    await waitForText(page.getByTestId('doctor-context'), /^16,384 tokens × 4 sessions/);
    await page.getByTestId('settings-kv').selectOption('q4_0');
    await page.getByTestId('settings-save').click();
    await waitForText(page.getByTestId('settings-error'), /^A q4_0 KV cache needs the model's attention head size \(16\) to be a multiple of 32; f16 fits\.$/);
    await h.screenshot('settings');
    assert.equal((await h.host.api.localSettings()).kvCacheType, 'auto', 'a refused setting is not saved');
    await waitForText(page.getByTestId('status-engine'), /· 16,384 ctx$/);
    await page.keyboard.press('Escape');
    await page.getByTestId('settings-panel').waitFor({ state: 'detached', timeout: WAIT });
    assertClean(h);
  });
});
