/**
 * What the app shows of hooks (issue 26): a workspace's hook files beside its MCP servers, and the
 * hooks that ran for a call on its result. The runs are stored with the result (results.hooks), so
 * a reload shows what the call's hooks did, not what they would do now.
 */
import path from 'node:path';
import type { HookEntryView, HookFileView, HookRunView, HooksView } from '../contract.js';
import type { HookRun } from '../core/hooks/run.js';
import { HOOK_EVENTS } from '../core/hooks/settings.js';
import { approveHooks, hookFiles, workspaceSettingsFile, type HookFile } from './hookSettings.js';
import { resolveFolder } from './mcp.js';

/** The hooks a session in `workspace` runs (or would, once approved), file by file. */
export function hooksView(dataFolder: string, workspace: string): HooksView {
  const root = resolveFolder(workspace);
  return {
    workspace: root,
    files: hookFiles(dataFolder, root).map(fileView),
    places: [path.join(dataFolder, 'settings.json'), workspaceSettingsFile(root)],
  };
}

/** Approves the workspace's `.keel/settings.json` as the person was shown it (`hash`); throws naming what is wrong. */
export function approveHooksFile(dataFolder: string, workspace: string, hash: string): void {
  approveHooks(dataFolder, resolveFolder(workspace), hash);
}

function fileView(f: HookFile): HookFileView {
  const hooks: HookEntryView[] = HOOK_EVENTS.flatMap((event) => (f.set?.events[event] ?? []).flatMap((group) => group.hooks.map((hook) => ({
    event,
    ...(event === 'PreToolUse' || event === 'PostToolUse' ? { matcher: group.matcher } : {}),
    command: hook.command,
    ...(hook.timeoutS === undefined ? {} : { timeoutS: hook.timeoutS }),
  }))));
  return {
    source: f.source, file: f.file, hash: f.hash, approved: f.approved,
    // A broken file cannot be approved: its problem is shown instead.
    needsApproval: f.source === 'workspace' && !f.approved && f.problem === undefined,
    ...(f.problem === undefined ? {} : { problem: f.problem }),
    hooks,
  };
}

/** The runs stored with a result (ResultRow.hooks), as its tool row shows them; undefined when none ran. */
export function hookRunsView(stored: string | undefined): HookRunView[] | undefined {
  return stored === undefined ? undefined : runsView(JSON.parse(stored) as HookRun[]);
}

/** A call's hook runs as its result shows them (from the value a call just handed on, or as stored). */
export function runsView(runs: readonly HookRun[]): HookRunView[] {
  return runs.map((r) => ({
    // A call's runs are its PreToolUse and PostToolUse hooks' only (Session.calls.run).
    event: r.event as HookRunView['event'],
    command: r.command, file: r.file, exit: r.exit, stdout: r.stdout, stderr: r.stderr,
    ...(r.problem === undefined ? {} : { problem: r.problem }),
    ms: r.ms,
    // The first PreToolUse hook that exits 2 blocks the call, and no later hook runs for it (core/hooks/hooks.ts).
    ...(r.event === 'PreToolUse' && r.exit === 2 ? { blocked: true as const } : {}),
  }));
}
