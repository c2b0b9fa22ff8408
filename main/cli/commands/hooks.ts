/**
 * `keel hooks list|approve`: the settings files a session in a workspace uses (Keel's and Claude
 * Code's, the person's and the workspace's), the hooks and permission rules in each, and the
 * approval each workspace file needs, on its own, before any of its hooks runs or its rules apply.
 */
import fs from 'node:fs';
import path from 'node:path';
import { approveSettingsFile, settingsFiles, type SettingsFile } from '../../app/hookSettings.js';
import { settingsTarget } from '../../app/hooksView.js';
import { HOOK_EVENTS } from '../../core/hooks/settings.js';
import { describeRule } from '../../core/permissions/gate.js';
import { keelHome } from '../../keelHome.js';
import { CliError, type Io, type Writer } from '../io.js';

/** `workspace` is a folder, or (for approve) one settings file of a workspace: `--workspace DIR/.claude/settings.json`. */
export async function hooksCommand(sub: string, workspace: string | undefined, io: Io): Promise<number> {
  const absolute = path.resolve(workspace ?? '.');
  if (!fs.existsSync(absolute)) throw new CliError(`The workspace ${absolute} is not a folder.`);
  const named = fs.statSync(absolute).isDirectory() ? undefined : settingsTarget(absolute);
  if (named && sub !== 'approve') throw new CliError(`The workspace ${absolute} is not a folder.`);
  const root = named?.root ?? fs.realpathSync(absolute);
  switch (sub) {
    case 'list': {
      const files = settingsFiles(keelHome(), root);
      if (files.length === 0) io.out.write('No hooks or permission rules are configured.\n');
      for (const f of files) describe(f, io.out);
      return files.some((f) => f.problem) ? 1 : 0;
    }
    case 'approve': {
      let file: SettingsFile;
      try {
        file = approveSettingsFile(keelHome(), root, named?.file);
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      describe(file, io.out);
      io.out.write(`Approved ${file.file} (sha ${file.hash.slice(0, 8)}): its hooks run and its rules apply in sessions here. Any change to the file asks again.\n`);
      return 0;
    }
    default:
      throw new CliError(`Unknown hooks command "${sub}": it is list or approve. See \`keel --help\`.`);
  }
}

function describe(f: SettingsFile, out: Writer): void {
  const status = f.problem ? 'not loaded' : f.source === 'person' ? 'yours' : f.approved ? 'approved' : `not approved (keel hooks approve --workspace ${f.file})`;
  out.write(`${f.source} file ${f.file}: ${status}\n`);
  if (f.problem) out.write(`  ${f.problem}\n`);
  for (const event of HOOK_EVENTS) {
    for (const group of f.set?.events[event] ?? []) {
      for (const hook of group.hooks) {
        const matcher = event === 'PreToolUse' || event === 'PostToolUse' ? ` [${group.matcher || '*'}]` : '';
        const timeout = hook.timeoutS === undefined ? '' : ` (timeout ${hook.timeoutS} s)`;
        out.write(`  ${event}${visible(matcher)}: ${visible(hook.command)}${timeout}\n`);
      }
    }
  }
  for (const rule of [...f.rules, ...(f.commandRules ?? [])]) {
    const made = rule.ignored === undefined ? `: ${rule.rules.map(describeRule).join(', ')}` : ` ignored: ${rule.ignored}`;
    out.write(`  ${rule.action} ${visible(rule.written)}${visible(made)}\n`);
  }
}

/** Control, escape and bidi characters as escapes, so a hook's command shows as what runs. */
function visible(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
