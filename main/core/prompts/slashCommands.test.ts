import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandLabel, expandCommand, expandTyped, fillArguments, listCommands, SlashCommandError } from './slashCommands.js';

let dir: string;
let root: string;
let home: string;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-commands-')));
  root = path.join(dir, 'ws');
  home = path.join(dir, 'home');
  fs.mkdirSync(root);
  fs.mkdirSync(home);
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(base: string, rel: string, text: string): string {
  const file = path.join(base, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

describe('custom slash commands as Claude Code writes them', () => {
  it('reads front matter, and without a description takes the body\'s first line', () => {
    const review = write(root, '.claude/commands/review.md', [
      '---',
      'description: "Review: a file for bugs"',
      'argument-hint: [file] [focus]',
      'allowed-tools: Bash(git diff:*), Bash(git log:*, --oneline), Read',
      'model: claude-3-5-haiku-20241022',
      '---',
      'Review $ARGUMENTS carefully.',
    ].join('\n'));
    write(root, '.claude/commands/explain.md', '# Explain the code\n\nExplain $1 to a newcomer.\n');
    write(root, '.claude/commands/tools.md', '---\nallowed-tools:\n  - Read\n  - "Grep"\n---\nFind it.\n');
    const commands = listCommands(root, home);
    expect(commands.map((c) => c.name)).toEqual(['explain', 'review', 'tools']);
    expect(commands[1]).toEqual({
      name: 'review', description: 'Review: a file for bugs', argumentHint: '[file] [focus]', source: 'project', file: review,
      allowedTools: ['Bash(git diff:*)', 'Bash(git log:*, --oneline)', 'Read'], model: 'claude-3-5-haiku-20241022', body: 'Review $ARGUMENTS carefully.',
    });
    expect(commands[0]).toMatchObject({ description: 'Explain the code', body: '# Explain the code\n\nExplain $1 to a newcomer.' });
    expect(commands[0].argumentHint).toBeUndefined();
    expect(commands[2].allowedTools).toEqual(['Read', 'Grep']);
  });

  it('fills $ARGUMENTS with all after the command and $1, $2 with its words', () => {
    expect(fillArguments('Review $ARGUMENTS now; first $1, then $2, never $3.', 'src/a.ts "the tests"')).toBe(
      'Review src/a.ts "the tests" now; first src/a.ts, then the tests, never .',
    );
    // A body that names no argument keeps the words typed after the command, after it.
    expect(fillArguments('Fix the build.', 'quickly')).toBe('Fix the build.\n\nARGUMENTS: quickly');
    expect(fillArguments('Fix the build.', '')).toBe('Fix the build.');
    write(root, '.claude/commands/review.md', 'Review $ARGUMENTS.\n');
    const commands = listCommands(root, home);
    expect(expandCommand('/review src/a.ts\nand its tests', commands)).toEqual({ prompt: 'Review src/a.ts\nand its tests.', command: commands[0] });
    expect(expandCommand('/review', commands)).toMatchObject({ prompt: 'Review .' });
  });

  it('names a subfolder in the label only: frontend/component.md is /component (project:frontend)', () => {
    write(root, '.claude/commands/frontend/component.md', 'Make a component called $1.\n');
    write(root, '.claude/commands/frontend/forms/field.md', 'A field.\n');
    const commands = listCommands(root, home);
    expect(commands.map((c) => [c.name, commandLabel(c)])).toEqual([['component', '(project:frontend)'], ['field', '(project:frontend/forms)']]);
    expect(expandCommand('/component Button', commands)).toMatchObject({ prompt: 'Make a component called Button.' });
    expect(expandCommand('/frontend:component Button', commands)).toMatchObject({ error: expect.stringContaining('There is no command /frontend:component') });
  });

  it('uses Keel\'s own, then the project\'s, then the person\'s command of a name, listing the others with the conflict', () => {
    const keel = write(root, '.keel/commands/deploy.md', 'Keel deploy.\n');
    const project = write(root, '.claude/commands/deploy.md', 'Project deploy.\n');
    write(root, '.claude/commands/review.md', 'Project review.\n');
    const personal = write(home, '.claude/commands/review.md', 'My review.\n');
    write(home, '.claude/commands/mine.md', 'Mine.\n');
    const commands = listCommands(root, home);
    expect(commands.map((c) => [c.name, c.source, c.problem])).toEqual([
      ['deploy', 'keel', undefined],
      ['deploy', 'project', `/deploy is also ${keel} (keel), which is the one used`],
      ['review', 'project', undefined],
      ['mine', 'personal', undefined],
      ['review', 'personal', `/review is also ${path.join(root, '.claude/commands/review.md')} (project), which is the one used`],
    ]);
    expect(expandCommand('/deploy', commands)).toMatchObject({ prompt: 'Keel deploy.' });
    expect(expandCommand('/review', commands)).toMatchObject({ prompt: 'Project review.' });
    expect(expandCommand('/mine', commands)).toMatchObject({ prompt: 'Mine.', command: { source: 'personal' } });
    expect(project).not.toBe(personal);
  });

  it('lists a file with malformed front matter, or none to read, with its problem, and refuses to run it', () => {
    write(root, '.claude/commands/open.md', '---\ndescription: never closed\nDo it.\n');
    write(root, '.claude/commands/bad.md', '---\ndescription: fine\nthis is not a field\n---\nDo it.\n');
    write(root, '.claude/commands/listy.md', '---\ndescription:\n  - one\n  - two\n---\nDo it.\n');
    write(root, '.claude/commands/empty.md', '---\ndescription: nothing\n---\n\n');
    // A link to a file that is not there: listed, unreadable.
    fs.symlinkSync(path.join(dir, 'gone.md'), path.join(root, '.claude/commands/gone.md'));
    const commands = listCommands(root, home);
    expect(Object.fromEntries(commands.map((c) => [c.name, c.problem]))).toEqual({
      bad: 'line 3 of its front matter is not "key: value": "this is not a field"',
      empty: 'it has no prompt (nothing after its front matter)',
      gone: 'it cannot be read (ENOENT)',
      listy: 'its front matter\'s description is a list; it takes one line of text',
      open: 'its front matter (--- on line 1) has no closing --- line',
    });
    expect(expandCommand('/bad now', commands)).toEqual({
      error: `The command /bad cannot run: ${path.join(root, '.claude/commands/bad.md')}: line 3 of its front matter is not "key: value": "this is not a field". Nothing was sent.`,
    });
  });

  it('refuses an unknown /word, listing the commands; sends a path, or a message not starting with /, as typed', () => {
    write(root, '.claude/commands/review.md', 'Review.\n');
    write(home, '.claude/commands/mine.md', 'Mine.\n');
    const commands = listCommands(root, home);
    expect(expandCommand('/revew a.ts', commands)).toEqual({ error: 'There is no command /revew. Commands here: /review, /mine. Nothing was sent.' });
    expect(expandCommand('/usr/bin/env fails here', commands)).toBeUndefined();
    expect(expandCommand('Please /review it', commands)).toBeUndefined();
    expect(expandCommand('/ alone', commands)).toBeUndefined();
    expect(() => expandTyped('/nothing', path.join(dir, 'empty'), home)).toThrow(SlashCommandError);
    expect(() => expandTyped('/nothing', path.join(dir, 'empty'), path.join(dir, 'nohome'))).toThrow(
      'There is no command /nothing. This workspace has no commands (.claude/commands/NAME.md, .keel/commands/NAME.md or ~/.claude/commands/NAME.md). Nothing was sent.',
    );
    expect(expandTyped('/etc/hosts is odd', root, home)).toEqual({ prompt: '/etc/hosts is odd' });
    expect(expandTyped('/review', root, home)).toMatchObject({ prompt: 'Review.', command: { name: 'review' } });
  });
});
