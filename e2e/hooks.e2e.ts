/**
 * Hooks in the app (issue 26), in a real browser on the real host, store, sandbox and engine: a
 * workspace's `.keel/settings.json` runs nothing until the person approves it in the Servers tab;
 * once approved, its PostToolUse hook's text is on the edit's result, and a PreToolUse hook of the
 * person's own file blocks a call, shown as blocked. What the hooks did stays after a reload.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from '@playwright/test';
import { startHarness, type Harness } from './harness.js';
import { assertClean, newSession, send, waitFor, waitForText } from './steps.js';

/** Prints what reached it on stdin (the event's tool name) to stderr and exits 2: its text joins the result. */
const LINT = `printf 'lint: ' >&2; grep -o '"tool_name":"[a-z_]*"' >&2; exit 2`;
const GUARD = 'cat >/dev/null; echo "no shell commands in this workspace" >&2; exit 2';
const WORKSPACE_SETTINGS = JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: LINT }] }] } });
const PERSON_SETTINGS = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: GUARD }] }] } });

/** A tool call's row (its head, result and hook runs), by its result's id. */
const card = (h: Harness, hex: string) => h.page.locator('.tool', { has: h.page.getByTestId(`tool-result-${hex}`) });

async function openServers(h: Harness) {
  await h.page.getByTestId('servers-tab').click();
  const panel = h.page.getByTestId('hooks-panel');
  await panel.waitFor({ timeout: 30_000 });
  return panel;
}

test("a workspace's hooks wait for Approve in the Servers tab; then a PostToolUse hook's text is on the edit's result, a PreToolUse block shows as blocked, and both stay after a reload", async ({ browser }) => {
  const h = await startHarness({ browser, files: { 'a.txt': 'one\ntwo\nthree\n', '.keel/settings.json': WORKSPACE_SETTINGS } });
  try {
    fs.writeFileSync(path.join(h.dataFolder, 'settings.json'), PERSON_SETTINGS);
    await h.host.api.setModelsFolder(h.modelsFolder);
    await h.host.api.loadModel(h.modelPaths[0]);
    const page = await h.open();
    const id = await newSession(page, h.workspace, 'auto');
    const workspaceFile = path.join(h.workspace, '.keel', 'settings.json');

    // Listed with where each comes from: the person's runs, the workspace's waits for approval.
    let panel = await openServers(h);
    await waitFor('both hook files listed', async () => (await panel.getByTestId('hook-file').count()) === 2);
    const person = panel.locator('[data-testid="hook-file"][data-source="person"]');
    const theirs = panel.locator('[data-testid="hook-file"][data-source="workspace"]');
    await waitForText(person, new RegExp(`${path.join(h.dataFolder, 'settings.json').replace(/[.]/g, '\\.')}.*yours.*PreToolUse \\[Bash\\]: cat >/dev/null`));
    await waitForText(theirs.getByTestId('hook-state'), /^not approved$/);
    assert.match((await theirs.textContent()) ?? '', new RegExp(`${workspaceFile.replace(/[.]/g, '\\.')}.*PostToolUse \\[Edit\\|Write\\]: printf 'lint: '`));
    await waitForText(page.getByTestId('servers-tab'), /1 to see/);
    await page.mouse.move(0, 0);
    await h.screenshot('hooks-unapproved');

    // Before the approval the workspace's hook does not run: the edit's result has no hook text.
    await page.getByTestId('transcript-tab').click();
    h.replies.push(h.call('edit', { path: 'a.txt', old_string: 'one', new_string: 'ONE' }), 'Edited the first line.');
    await send(h, 'Make the first line upper case.');
    const first = page.getByTestId('tool-result-0001');
    await waitForText(first, /^\[#0001 a\.txt/);
    await waitForText(page.getByTestId('transcript'), /Edited the first line\./);
    assert.doesNotMatch((await first.textContent()) ?? '', /PostToolUse|lint:/);
    assert.equal(await card(h, '0001').getByTestId('hook-runs').count(), 0, 'no hook ran for the edit');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'a.txt'), 'utf8'), 'ONE\ntwo\nthree\n');

    // Approve (the file's hash as shown): it is listed approved, and the badge clears.
    panel = await openServers(h);
    await theirs.getByTestId('hooks-approve').click();
    await waitForText(theirs.getByTestId('hook-state'), /^approved$/);
    assert.equal(await panel.getByTestId('hooks-approve').count(), 0);
    await waitFor('the badge to clear', async () => !/to see/.test((await page.getByTestId('servers-tab').textContent()) ?? ''));

    // Now the PostToolUse hook runs: its stderr is on the edit's result; the person's PreToolUse hook blocks the command.
    await page.getByTestId('transcript-tab').click();
    h.replies.push(
      h.call('edit', { path: 'a.txt', old_string: 'two', new_string: 'TWO' }),
      h.call('bash', { command: 'rm a.txt' }),
      'Edited the second line; the shell was refused.',
    );
    await send(h, 'Now the second line, then delete the file.');
    await waitForText(page.getByTestId('transcript'), /the shell was refused\./);
    const checkHooks = async () => {
      const edit = page.getByTestId('tool-result-0002');
      await waitForText(edit, /^\[#0002 a\.txt.*\[PostToolUse hook exited 2\]lint: "tool_name":"edit"$/);
      const editRuns = card(h, '0002').getByTestId('hook-run');
      assert.equal(await editRuns.count(), 1);
      assert.equal(await editRuns.getAttribute('data-event'), 'PostToolUse');
      assert.equal(await editRuns.getByTestId('hook-ending').textContent(), 'exited 2');
      assert.equal(await editRuns.getByTestId('hook-stderr').textContent(), 'lint: "tool_name":"edit"');
      assert.match((await editRuns.textContent()) ?? '', new RegExp(workspaceFile.replace(/[.]/g, '\\.')));

      await waitForText(page.getByTestId('tool-result-0003'), /^\[#0003\]Blocked by a PreToolUse hook: no shell commands in this workspace$/);
      const bash = card(h, '0003');
      await waitForText(bash.getByTestId('tool-blocked'), /^blocked by a hook$/);
      assert.equal(await bash.getByTestId('hook-ending').textContent(), 'blocked the call (exit 2)');
      // Only the blocked call and no other is marked.
      assert.equal(await page.getByTestId('tool-blocked').count(), 1);
    };
    await checkHooks();
    assert.equal(fs.readFileSync(path.join(h.workspace, 'a.txt'), 'utf8'), 'ONE\nTWO\nthree\n', 'the blocked command never ran');
    await page.mouse.move(0, 0);
    await h.screenshot('hooks-on-results');

    // A reload reads the session from the store: what the hooks did is still there.
    await page.reload();
    await page.locator('.sidebar-foot', { hasText: h.dataFolder }).waitFor({ state: 'attached' });
    await page.getByTestId(`session-item-${id}`).click();
    await checkHooks();
    assert.equal(await card(h, '0001').getByTestId('hook-runs').count(), 0);
    assertClean(h);
  } finally {
    await h.close();
  }
});
