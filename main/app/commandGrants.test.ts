/**
 * When a slash command's allowed-tools apply (commandGrants.ts), on real files and the real
 * approvals file: the person's own commands directly, a workspace's only while the workspace's
 * settings files are approved as they are now.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listCommands } from '../core/prompts/slashCommands.js';
import { commandGrant, commandNotes } from './commandGrants.js';
import { approveSettingsFile } from './hookSettings.js';
import { hooksView } from './hooksView.js';

let tmp: string;
let data: string;
let root: string;
let home: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-command-grants-')));
  data = path.join(tmp, 'data');
  root = path.join(tmp, 'ws');
  home = path.join(tmp, 'home');
  for (const dir of [data, path.join(root, '.claude', 'commands'), path.join(home, '.claude', 'commands')]) fs.mkdirSync(dir, { recursive: true });
  const command = '---\nallowed-tools: Bash(rm:*), Read\n---\nClean up.\n';
  fs.writeFileSync(path.join(root, '.claude', 'commands', 'clean.md'), command);
  fs.writeFileSync(path.join(home, '.claude', 'commands', 'mine.md'), command);
});

afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const grantOf = (name: string) => commandGrant(data, listCommands(root, home).find((c) => c.name === name)!, root, home);
const settings = () => path.join(root, '.claude', 'settings.json');

describe("a slash command's allowed-tools", () => {
  it("apply directly for the person's own command, and the clause says what runs unasked", () => {
    const grant = grantOf('mine');
    expect(grant.waits).toBeUndefined();
    expect(grant.rules).toContainEqual({ action: 'allow', tool: 'bash', pattern: 'rm' });
    expect(commandNotes(grant, {})).toEqual(['runs Bash(rm:*), Read without asking in its turn']);
  });

  it("pre-approve nothing for a cloned repository's command: not without settings, not before they are approved, not after they change", () => {
    // No settings file at all: nothing the person approved covers the workspace's text.
    expect(grantOf('clean')).toMatchObject({ rules: [], waits: expect.stringContaining('it has none') });

    fs.writeFileSync(settings(), JSON.stringify({ permissions: { deny: ['Bash(git push:*)'] } }));
    expect(grantOf('clean')).toMatchObject({ rules: [], waits: expect.stringContaining(`approve ${settings()}`) });

    approveSettingsFile(data, root, settings(), undefined, home);
    expect(grantOf('clean').rules).toContainEqual({ action: 'allow', tool: 'bash', pattern: 'rm' });

    // A change to the settings asks again, and the command's allowed-tools wait with it.
    fs.writeFileSync(settings(), JSON.stringify({ permissions: { deny: [], allow: ['Bash(curl:*)'] } }));
    expect(grantOf('clean')).toMatchObject({ rules: [], waits: expect.stringContaining(`approve ${settings()}`) });

    // A command that changes its allowed-tools after the approval asks again; the approval showed it by name.
    approveSettingsFile(data, root, settings(), undefined, home);
    expect(grantOf('clean').waits).toBeUndefined();
    expect(hooksView(data, root, home).files.find((f) => f.file === settings())!.rules.map((r) => r.written)).toEqual([
      'Bash(curl:*)', '/clean in its own turn: Bash(rm:*)', '/clean in its own turn: Read',
    ]);
    fs.writeFileSync(path.join(root, '.claude', 'commands', 'clean.md'), '---\nallowed-tools: Bash(rm:*), Bash(curl:*)\n---\nClean up.\n');
    expect(grantOf('clean')).toMatchObject({ rules: [], waits: expect.stringContaining(`approve ${settings()}`) });
    // A new command that grants anything asks again too; its body alone changing does not.
    approveSettingsFile(data, root, settings(), undefined, home);
    fs.writeFileSync(path.join(root, '.claude', 'commands', 'clean.md'), '---\nallowed-tools: Bash(rm:*), Bash(curl:*)\n---\nClean up more.\n');
    expect(grantOf('clean').waits).toBeUndefined();
    fs.writeFileSync(path.join(root, '.claude', 'commands', 'sneaky.md'), '---\nallowed-tools: Bash(sh:*)\n---\nHi.\n');
    expect(grantOf('clean').waits).toContain(`approve ${settings()}`);

    // A malformed settings file is not in use, so it covers nothing either.
    fs.writeFileSync(settings(), '{ not json');
    expect(grantOf('clean')).toMatchObject({ rules: [], waits: expect.stringContaining('is not: each call asks') });
  });

  it('say that a model named in the front matter is not used, and which entries are ignored', () => {
    fs.writeFileSync(path.join(home, '.claude', 'commands', 'fast.md'), '---\nallowed-tools: WebSearch, Bash(ls*)\nmodel: haiku\n---\nQuick look.\n');
    const command = listCommands(root, home).find((c) => c.name === 'fast')!;
    expect(commandNotes(commandGrant(data, command, root, home), command)).toEqual([
      "allowed-tools WebSearch is ignored: Keel has no tool that Claude Code's WebSearch stands for",
      'allowed-tools Bash(ls*) is ignored: Keel matches a command by its first words or as a whole, and this rule has a * wildcard elsewhere',
      'model haiku is not used: the session keeps its model',
    ]);
  });
});
