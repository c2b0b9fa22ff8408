import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PlanItem, ToolContext } from '../main/core/tools/types.js';

/** A ToolContext for tests: no known hashes, no stored bodies, an empty plan, mode `auto`. */
export function makeContext(root: string, signal?: AbortSignal): ToolContext {
  const ctx: ToolContext = {
    root,
    knownHash: () => undefined,
    storedBody: () => undefined,
    plan: [],
    setPlan(items: PlanItem[]) {
      ctx.plan = items;
    },
    mode: 'auto',
    signal,
  };
  return ctx;
}

/**
 * A fresh temporary folder (realpath'd, as a workspace root is) holding `files` (relative path →
 * content); `remove` deletes it.
 */
export function makeTempRoot(files: Record<string, string | Buffer> = {}): { root: string; remove(): void } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-test-')));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
  return { root, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}
