/**
 * Hooks as the person writes them, in Claude Code's settings shape (contract.md, Hooks):
 * `{"hooks": {"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}`.
 * Events Keel does not run (Claude Code's Notification, SessionStart…) are accepted and left out,
 * so a file pasted from Claude Code's docs is read as far as Keel can use it; anything malformed in
 * an event Keel runs is refused whole, naming the file and the field (a dropped PreToolUse hook
 * would let through what it was written to block).
 */
import { z } from 'zod';
import { fieldPath } from '../zodIssues.js';

export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Where a hook was written: the person's own settings, or a workspace's (which runs only once approved). */
export type HookSource = 'person' | 'workspace';

const CommandHook = z.strictObject({
  type: z.literal('command', { error: 'Keel runs only hooks of "type": "command"' }),
  command: z.string().min(1, 'the command is empty'),
  timeout: z.number().positive().optional(),
});

const Group = z.object({
  matcher: z.string().optional(),
  hooks: z.array(CommandHook),
});

const HooksShape = z.object(
  Object.fromEntries(HOOK_EVENTS.map((event) => [event, z.array(Group).optional()])) as Record<HookEventName, z.ZodOptional<z.ZodArray<typeof Group>>>,
);

export interface HookCommand {
  command: string;
  /** Seconds before the hook is killed (loop.json hooks.timeout_s when the file gives none). */
  timeoutS?: number;
}

export interface HookGroup {
  /** The matcher as written ('' matches every tool); checked to be a valid regular expression. */
  matcher: string;
  hooks: HookCommand[];
}

export interface HookSet {
  source: HookSource;
  /** The settings file the hooks come from (absolute), named to the person with every run. */
  file: string;
  events: Record<HookEventName, HookGroup[]>;
}

export class HookSettingsError extends Error {}

/**
 * The hooks of one settings file's parsed JSON (its `hooks` key; none when it has no such key).
 * Throws HookSettingsError naming the file and the field.
 */
export function parseHooks(json: unknown, file: string, source: HookSource): HookSet {
  const events = Object.fromEntries(HOOK_EVENTS.map((e) => [e, [] as HookGroup[]])) as Record<HookEventName, HookGroup[]>;
  const hooks = json !== null && typeof json === 'object' ? (json as { hooks?: unknown }).hooks : undefined;
  if (hooks === undefined) return { source, file, events };
  const parsed = HooksShape.safeParse(hooks);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = fieldPath(['hooks', ...issue.path]);
    throw new HookSettingsError(`${file}: ${field}: ${issue.message}; nothing in it was loaded.`);
  }
  for (const event of HOOK_EVENTS) {
    (parsed.data[event] ?? []).forEach((group, i) => {
      const matcher = group.matcher ?? '';
      try {
        new RegExp(matcher);
      } catch (e) {
        throw new HookSettingsError(`${file}: hooks.${event}[${i}].matcher ${JSON.stringify(matcher)} is not a regular expression (${(e as Error).message}); nothing in it was loaded.`);
      }
      events[event].push({ matcher, hooks: group.hooks.map((h) => ({ command: h.command, ...(h.timeout === undefined ? {} : { timeoutS: h.timeout }) })) });
    });
  }
  return { source, file, events };
}

/** Whether a set has any hook at all (an empty set is not shown or approved). */
export function hasHooks(set: HookSet): boolean {
  return HOOK_EVENTS.some((e) => set.events[e].some((g) => g.hooks.length > 0));
}
