/**
 * A small test runner for the browser tests (kept out of vitest so `vitest run` stays fast):
 * tests run one after another, each with a time limit, sharing one Chromium. It prints
 * `ok - NAME` or `not ok - NAME` with the error, then `N passed, N failed`.
 */
import type { Browser } from 'playwright-core';

export interface TestContext {
  browser: Browser;
}

interface TestCase {
  name: string;
  fn: (t: TestContext) => Promise<void>;
  timeoutMs: number;
}

const tests: TestCase[] = [];

export function test(name: string, fn: (t: TestContext) => Promise<void>, timeoutMs = 120_000): void {
  tests.push({ name, fn, timeoutMs });
}

/** Runs every registered test (or those whose name contains `only`); returns how many failed. */
export async function runTests(browser: Browser, only?: string): Promise<{ passed: number; failed: number }> {
  let passed = 0;
  let failed = 0;
  for (const t of tests.filter((c) => !only || c.name.includes(only))) {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        t.fn({ browser }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${t.timeoutMs / 1000} s`)), t.timeoutMs);
        }),
      ]);
      passed++;
      console.log(`ok - ${t.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (err) {
      failed++;
      console.log(`not ok - ${t.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
      console.log(text.split('\n').map((line) => `    ${line}`).join('\n'));
    } finally {
      clearTimeout(timer);
    }
  }
  return { passed, failed };
}
