import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT, METHODS } from '../contract.js';
import { APPROVAL_ANSWERS } from '../core/approvalAnswers.js';
import { PRICED_ACTIONS } from '../core/price/actions.js';
import { SESSION_KINDS } from '../core/state/types.js';
import { MODES, PLAN_STATUSES } from '../core/types.js';
import { optional, takes } from './shape.js';

/** The files main/contract.ts pulls in as values (type-only imports are erased), following relative imports. */
function valueImports(file: string, seen = new Set<string>()): { files: Set<string>; packages: string[] } {
  const packages: string[] = [];
  seen.add(file);
  const source = fs.readFileSync(file, 'utf8');
  for (const m of source.matchAll(/^(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
    const [, , typeOnly, spec] = m;
    if (typeOnly) continue;
    if (!spec.startsWith('.')) { packages.push(spec); continue; }
    const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
    if (!seen.has(target)) packages.push(...valueImports(target, seen).packages);
  }
  return { files: seen, packages };
}

describe('the contract', () => {
  it('imports no package and no Node module as a value (it runs in the sandboxed preload and the page)', () => {
    const { files, packages } = valueImports(path.resolve(import.meta.dirname, '../contract.ts'));
    expect(packages).toEqual([]);
    const rel = [...files].map((f) => path.relative(path.resolve(import.meta.dirname, '..'), f)).sort();
    expect(rel).toEqual([
      'contract.ts', 'contract/args.ts', 'contract/checkpoints.ts', 'contract/commands.ts', 'contract/hooks.ts', 'contract/price.ts', 'contract/projectFiles.ts', 'contract/settings.ts', 'contract/shape.ts', 'contract/shells.ts', 'contract/transport.ts', 'core/approvalAnswers.ts', 'core/engine/breaks.ts', 'core/permissions/visible.ts',
      'core/price/actions.ts', 'core/state/types.ts', 'core/types.ts',
    ]);
  });

  it('checks enums with core’s own lists, not copies', () => {
    expect(CONTRACT.setMode.args[1].enum).toBe(MODES);
    expect(CONTRACT.createSession.args[0].properties?.kind.enum).toBe(SESSION_KINDS);
    expect(CONTRACT.answerApproval.args[1].enum).toBe(APPROVAL_ANSWERS);
    expect(CONTRACT.setPlan.args[1].items?.properties?.status.enum).toBe(PLAN_STATUSES);
    expect(CONTRACT.price.args[1].properties?.kind.enum).toBe(PRICED_ACTIONS);
  });

  it('lists each method once, with optional arguments only at the end', () => {
    expect(new Set(METHODS).size).toBe(METHODS.length);
    expect(METHODS).toContain('getState');
    expect(CONTRACT.recall.optionalFrom).toBe(2);
    expect(CONTRACT.downloadModel.optionalFrom).toBe(0);
    expect(CONTRACT.send.optionalFrom).toBe(2);
    for (const m of METHODS) expect(CONTRACT[m].optionalFrom).toBeLessThanOrEqual(CONTRACT[m].args.length);
  });

  it('refuses an optional argument before a required one', () => {
    const id = { type: 'integer' } as const;
    expect(() => takes(optional(id), id)).toThrow('Only trailing arguments may be optional.');
    expect(takes(id, optional(id)).as<(a: number, b?: number) => Promise<void>>()).toEqual({ args: [id, id], optionalFrom: 1 });
  });
});
