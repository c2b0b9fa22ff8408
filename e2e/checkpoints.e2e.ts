/**
 * Checkpoints in a real browser (issue 25): the rewind dialog's "conversation and files", and the
 * Changes tab's Revert hunk, on the real host, store, shadow repository and tools, with the
 * generated model's replies scripted. Every check of a file reads it on disk.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from '@playwright/test';
import { startHarness, type Harness } from './harness.js';
import { WAIT, assertClean, idle, newSession, send, waitFor, waitForText } from './steps.js';

/** Twenty numbered lines; `edit` replaces some by number. */
const lines = (edit: Record<number, string> = {}) => Array.from({ length: 20 }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
const FILES = { 'notes.txt': lines(), 'keep.txt': 'keep\n' };

type Browser = Parameters<typeof startHarness>[0]['browser'];

async function withHarness(browser: Browser, fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness({ browser, files: FILES });
  try {
    await h.host.api.setModelsFolder(h.modelsFolder);
    await h.host.api.loadModel(h.modelPaths[0]);
    await fn(h);
  } finally {
    await h.close();
  }
}

const onDisk = (h: Harness, rel: string) => (fs.existsSync(path.join(h.workspace, rel)) ? fs.readFileSync(path.join(h.workspace, rel), 'utf8') : null);

test('Rewind to here with files puts back on disk the files its dialog listed, and names the one changed from outside', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    const page = await h.open();
    await newSession(page, h.workspace, 'auto');
    h.replies.push(
      h.call('write', { path: 'notes.txt', content: lines({ 2: 'TWO', 19: 'NINETEEN' }) }),
      h.call('write', { path: 'new.txt', content: 'made by the model\n' }),
      'Done.',
    );
    await send(h, 'Change the notes and add new.txt.');
    h.replies.push(h.call('edit', { path: 'keep.txt', old_string: 'keep', new_string: 'kept' }), 'Done too.');
    await send(h, 'Change keep.txt.');
    assert.equal(onDisk(h, 'keep.txt'), 'kept\n');
    // Changed from outside after the session's last change to it: a rewind leaves it as it is.
    fs.writeFileSync(path.join(h.workspace, 'new.txt'), 'edited by hand\n');

    await page.getByTestId('turn-1').hover();
    await page.getByTestId('turn-1-rewind').click();
    const confirm = page.getByTestId('turn-1-confirm');
    await confirm.getByTestId('rewind-files').waitFor({ timeout: WAIT });
    const listed = await confirm.getByTestId('rewind-file').evaluateAll((els) => els.map((el) => el.getAttribute('data-path')));
    assert.deepEqual(listed, ['keep.txt', 'notes.txt']);
    assert.deepEqual(await confirm.getByTestId('rewind-left').allTextContents(), ['new.txt']);
    assert.equal(await confirm.getByTestId('rewind-with-files').isChecked(), true, 'files go back by default where files changed');
    await waitForText(confirm.getByTestId('history-confirm-text'), /The files listed below go back as they were before turn 1\./);
    await page.mouse.move(0, 0);
    await h.screenshot('rewind-with-files');
    await confirm.getByTestId('turn-1-confirm-button').click();

    const notice = page.getByTestId('put-back-notice');
    await waitForText(notice.getByTestId('put-back-restored'), /^Put back 2 files: keep\.txt, notes\.txt\.$/);
    await waitForText(notice.getByTestId('put-back-left'), /changed from outside after the session's last change to them: new\.txt\.$/);
    // Exactly what the dialog listed went back; the file changed from outside stayed.
    for (const rel of listed) assert.equal(onDisk(h, rel!), FILES[rel as keyof typeof FILES], `${rel} is back as it was`);
    assert.equal(onDisk(h, 'new.txt'), 'edited by hand\n');
    await page.getByTestId('turn-1').waitFor({ state: 'detached', timeout: WAIT });
    await waitFor('the rewound words in the message box', async () => (await page.getByTestId('message-input').inputValue()) === 'Change the notes and add new.txt.');
    assertClean(h);
  });
});

test('Revert hunk on a file with two changed hunks leaves the other on disk; an Undo with files after still puts the file back', async ({ browser }) => {
  await withHarness(browser, async (h) => {
    const page = await h.open();
    await newSession(page, h.workspace, 'auto');
    h.replies.push(h.call('write', { path: 'notes.txt', content: lines({ 2: 'TWO', 19: 'NINETEEN' }) }), 'Changed two lines.');
    await send(h, 'Change lines 2 and 19.');

    await page.getByTestId('changes-tab').click();
    const card = page.locator('[data-testid="changed-file"][data-path="notes.txt"]');
    await card.waitFor({ timeout: WAIT });
    await waitForText(page.getByTestId('changes-count'), /^1 file changed since the session began\.$/);
    const hunks = card.getByTestId('hunk');
    await waitFor('two hunks', async () => (await hunks.count()) === 2);
    assert.deepEqual(await hunks.nth(0).locator('.line.diff-del').allTextContents(), ['-line 2']);
    assert.deepEqual(await hunks.nth(0).locator('.line.diff-add').allTextContents(), ['+TWO']);
    assert.deepEqual(await hunks.nth(1).locator('.line.diff-add').allTextContents(), ['+NINETEEN']);
    await page.mouse.move(0, 0);
    await h.screenshot('changes');

    await hunks.nth(0).getByTestId('revert-hunk').click();
    await waitFor('one hunk left', async () => (await hunks.count()) === 1);
    assert.deepEqual(await hunks.nth(0).locator('.line.diff-add').allTextContents(), ['+NINETEEN']);
    assert.equal(onDisk(h, 'notes.txt'), lines({ 19: 'NINETEEN' }), 'line 2 is back, line 19 keeps its change');

    // The revert was recorded as the session's change: Undo with files lists the file and puts it back whole.
    await page.getByTestId('undo-button').click();
    const dialog = page.getByTestId('undo-confirm');
    await dialog.waitFor({ timeout: WAIT });
    assert.deepEqual(await dialog.getByTestId('rewind-file').evaluateAll((els) => els.map((el) => el.getAttribute('data-path'))), ['notes.txt']);
    await h.screenshot('undo-with-files');
    await dialog.getByTestId('undo-confirm-button').click();
    await waitForText(page.getByTestId('put-back-restored'), /^Put back one file: notes\.txt\.$/);
    assert.equal(onDisk(h, 'notes.txt'), lines());
    await waitForText(page.getByTestId('changes-count'), /^No file changed since the session began\.$/);
    await idle(page);
    assertClean(h);
  });
});
