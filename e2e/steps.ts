/**
 * Steps a browser scenario shares: waiting on the page, starting a session through the sidebar,
 * sending a message and waiting for its turn to end, and the end-of-test checks.
 */
import assert from 'node:assert/strict';
import { expect } from '@playwright/test';
import type { Locator, Page } from 'playwright-core';
import type { Mode } from '../main/contract.js';
import type { Harness } from './harness.js';

export const WAIT = 30_000;

/** Waits (Playwright's own retrying assertion) until the element's text matches; returns that text. */
export async function waitForText(locator: Locator, pattern: RegExp, timeout = WAIT): Promise<string> {
  await expect(locator.first()).toHaveText(pattern, { timeout });
  return (await locator.first().textContent()) ?? '';
}

/** Waits until `check` holds, polled by Playwright (`expect.poll`); the failure names `what`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeout = WAIT): Promise<void> {
  await expect.poll(check, { message: `Timed out waiting for ${what}`, timeout, intervals: [50] }).toBe(true);
}

/** Starts a session through the sidebar's form; returns its id. */
export async function newSession(page: Page, workspace: string, mode: Mode): Promise<number> {
  await page.getByTestId('new-session-button').click();
  await page.getByTestId('new-session-workspace').fill(workspace);
  await page.getByTestId('new-session-kind').selectOption('agent');
  await page.getByTestId('new-session-mode').selectOption(mode);
  await page.getByTestId('new-session-submit').click();
  const item = page.locator('[data-testid^="session-item-"].active');
  // Attached, not visible: a narrow window collapses the sidebar once the session is chosen.
  await item.waitFor({ state: 'attached', timeout: WAIT });
  const id = Number((await item.getAttribute('data-testid'))!.replace('session-item-', ''));
  await waitForText(page.getByTestId('mode-selector').locator('[aria-checked="true"]'), new RegExp(`^${mode}$`));
  return id;
}

/** Types a message, sends it with the button and waits for the turn to end (its replies all used). */
export async function send(h: Harness, text: string): Promise<void> {
  await h.page.getByTestId('message-input').fill(text);
  await h.page.getByTestId('send-button').click();
  await waitFor('the scripted replies to be used', async () => h.replies.length === 0);
  await idle(h.page);
}

/** The turn has ended: nothing is running (Stop is disabled, the working row is gone). */
export async function idle(page: Page): Promise<void> {
  await waitFor('the turn to end', async () => (await page.getByTestId('stop-button').isDisabled()) && (await page.getByTestId('working').count()) === 0);
}

/** Everything the test scripted was used, nothing more was asked, and the page logged no error. */
export function assertClean(h: Harness): void {
  assert.deepEqual(h.replies, [], 'every scripted reply was used');
  assert.equal(h.unscripted, 0, 'no request went without a scripted reply');
  assert.deepEqual(h.pageErrors, [], 'the page threw or logged no error');
}
