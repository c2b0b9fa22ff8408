/**
 * What the app shows of hooks (issues 26, 34): a workspace's settings files beside its MCP servers
 * (each file's hooks and permission rules, and whether it is used), and the hooks that ran for a call on its result. The runs are stored with the result (results.hooks), so
 * a reload shows what the call's hooks did, not what they would do now.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HookEntryView, HookFileView, HookRunView, HooksView, RuleEntryView } from '../contract.js';
import type { HookRun } from '../core/hooks/run.js';
import { HOOK_EVENTS } from '../core/hooks/settings.js';
import { describeRule } from '../core/permissions/gate.js';
import { approveSettingsFile, personSettingsFiles, settingsFiles, workspaceSettingsFiles, type SettingsFile } from './hookSettings.js';
import { resolveFolder } from './mcp.js';

/** The hooks and rules a session in `workspace` uses (or would, once approved), file by file. */
export function hooksView(dataFolder: string, workspace: string, home?: string): HooksView {
  const root = resolveFolder(workspace);
  return {
    workspace: root,
    files: settingsFiles(dataFolder, root, home).map(fileView),
    places: [...personSettingsFiles(dataFolder, home), ...workspaceSettingsFiles(root)],
  };
}

/**
 * Approves one workspace settings file as the person was shown it (`hash`): `target` is the file's
 * path (its workspace is the folder above its `.keel` or `.claude`), or a workspace folder, whose one
 * waiting file is approved. Throws naming what is wrong.
 */
export function approveHooksFile(dataFolder: string, target: string, hash: string, home?: string): void {
  const { root, file } = settingsTarget(target);
  approveSettingsFile(dataFolder, root, file, hash, home);
}

/** A path given to approve: a settings file (and its workspace), or a workspace folder alone. */
export function settingsTarget(target: string): { root: string; file?: string } {
  const given = path.resolve(target);
  let isFile = false;
  try {
    isFile = !fs.lstatSync(given).isDirectory();
  } catch {
    // Gone, or never there: read as a file's path, which the approval then names.
    isFile = path.basename(given).endsWith('.json');
  }
  if (!isFile) return { root: resolveFolder(given) };
  // The workspace's real path, as the view names its files; the file itself is named as it is in the workspace.
  const root = resolveFolder(path.dirname(path.dirname(given)));
  return { root, file: path.join(root, path.basename(path.dirname(given)), path.basename(given)) };
}

function ruleView(r: SettingsFile['rules'][number]): RuleEntryView {
  return { action: r.action, written: r.written, keel: r.rules.map(describeRule), ...(r.ignored === undefined ? {} : { ignored: r.ignored }) };
}

function fileView(f: SettingsFile): HookFileView {
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
    rules: [...f.rules, ...(f.commandRules ?? [])].map(ruleView),
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
