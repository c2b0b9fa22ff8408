/**
 * zod's issues in words that name the field as it is spelled in the file (`args[1]`,
 * `sandbox.env[0]`, `hooks.PostToolUse[0].matcher`): one formatter for every JSON file the person
 * or a server hands Keel (settings.json, .mcp.json, .keel/settings.json).
 */
import type { z } from 'zod';

/** A zod path as the field is written in JSON: `a.b[2].c`. */
export function fieldPath(at: readonly PropertyKey[]): string {
  return at.reduce<string>((s, key) => (typeof key === 'number' ? `${s}[${key}]` : s === '' ? String(key) : `${s}.${String(key)}`), '');
}

/** One issue: `"field" message`, keys Keel does not read named. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const field = fieldPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
    return field === '' ? `${keys} is not a field Keel reads` : `"${field}" holds ${keys}, which Keel does not read`;
  }
  return field === '' ? issue.message : `"${field}" ${issue.message}`;
}
