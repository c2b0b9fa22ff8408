// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlashCommandView } from '../../../../main/contract.js';
import { setSlice } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { Composer } from './Composer.js';

afterEach(cleanup);
beforeEach(() => resetStores());

const commands: SlashCommandView[] = [
  { name: 'review', description: 'Review a file', argumentHint: 'FILE', source: 'project', file: '/ws/.claude/commands/review.md', label: '(project)' },
  { name: 'release', description: 'Cut a release', source: 'personal', file: '/home/.claude/commands/release.md', label: '(personal)' },
  { name: 'component', description: 'Make a component', source: 'project', namespace: 'frontend', file: '/ws/.claude/commands/frontend/component.md', label: '(project:frontend)' },
  {
    name: 'deploy', description: 'Deploy', source: 'personal', file: '/home/.claude/commands/deploy.md', label: '(personal)',
    notes: ['runs Bash(npm run deploy:*) without asking in its turn', 'model haiku is not used: the session keeps its model'],
  },
  { name: 'broken', description: '', source: 'project', file: '/ws/.claude/commands/broken.md', label: '(project)', problem: 'it cannot be read (EACCES)' },
];

function setup() {
  const sent: string[] = [];
  const asked: string[] = [];
  fakeApi({
    slashCommands: async (workspace: string) => (asked.push(workspace), commands),
    send: async (_id: number, text: string) => void sent.push(text),
  });
  setSlice('transcript', { sessionId: 1, view: sessionView() });
  render(<Composer />);
  const box = screen.getByTestId('message-input') as HTMLTextAreaElement;
  return { sent, asked, box, type: (text: string) => fireEvent.change(box, { target: { value: text } }) };
}

const shown = () => screen.queryAllByTestId('command-option').map((o) => `${o.textContent}${o.getAttribute('aria-selected') === 'true' ? ' <' : ''}`);

describe('the command list under a message that starts with /', () => {
  it('lists the matching commands with hints, descriptions and origins; arrows choose, Tab completes, Enter then sends', async () => {
    const { sent, asked, box, type } = setup();
    expect(screen.queryByTestId('command-list')).toBeNull();
    type('/');
    await waitFor(() => expect(shown()).toEqual([
      '/review FILE Review a file (project) <', '/release Cut a release (personal)', '/component Make a component (project:frontend)',
      '/deploy Deploy (personal)runs Bash(npm run deploy:*) without asking in its turnmodel haiku is not used: the session keeps its model',
    ]));
    expect(asked).toEqual(['/code/ledger-api']);
    type('/re');
    expect(shown()).toEqual(['/review FILE Review a file (project) <', '/release Cut a release (personal)']);
    fireEvent.keyDown(box, { key: 'ArrowDown' });
    expect(shown()).toEqual(['/review FILE Review a file (project)', '/release Cut a release (personal) <']);
    fireEvent.keyDown(box, { key: 'ArrowDown' });
    expect(shown()[0]).toMatch(/ <$/);
    fireEvent.keyDown(box, { key: 'ArrowUp' });
    fireEvent.keyDown(box, { key: 'Tab' });
    expect(box.value).toBe('/release ');
    expect(screen.queryByTestId('command-list')).toBeNull();
    expect(sent).toEqual([]);
    type('/release v2');
    await act(async () => fireEvent.keyDown(box, { key: 'Enter' }));
    expect(sent).toEqual(['/release v2']);
  });

  it('completes with Enter, hides on Escape, and lists nothing for a path or a command that cannot run', async () => {
    const { sent, box, type } = setup();
    type('/rev');
    await waitFor(() => expect(shown()).toHaveLength(1));
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(box.value).toBe('/review ');
    expect(sent).toEqual([]);
    type('/c');
    await waitFor(() => expect(shown()).toHaveLength(1));
    fireEvent.keyDown(box, { key: 'Escape' });
    expect(screen.queryByTestId('command-list')).toBeNull();
    type('/usr/bin');
    expect(screen.queryByTestId('command-list')).toBeNull();
    type('/bro');
    await waitFor(() => expect(screen.queryByTestId('command-list')).toBeNull());
  });

  it("says under a command what its front matter does beyond the prompt: what runs unasked, a model that is not used", async () => {
    const { type } = setup();
    type('/dep');
    await waitFor(() => expect(shown()).toHaveLength(1));
    expect(screen.getAllByTestId('command-note').map((n) => n.textContent)).toEqual([
      'runs Bash(npm run deploy:*) without asking in its turn', 'model haiku is not used: the session keeps its model',
    ]);
  });
});
