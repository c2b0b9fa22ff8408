// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PersonMessage } from './PersonMessage.js';

afterEach(cleanup);

describe('PersonMessage', () => {
  it('shows the notes in their own block, apart from the person’s words', () => {
    render(
      <PersonMessage
        row={{
          kind: 'person',
          key: 'turn-3',
          pending: false,
          turn: {
            seq: 3,
            status: 'done',
            words: 'Do /customers the same way? Don’t change anything yet.',
            notes: [
              { kind: 'date', text: 'Today is 2026-11-30.' },
              { kind: 'mode', text: 'The permission mode is now plan: read and search as you need.' },
              { kind: 'instructions', text: 'AGENTS.md was edited: see #0012.' },
            ],
            parts: [],
          },
        }}
      />,
    );
    const turn = screen.getByTestId('turn-3');
    const words = within(turn).getByTestId('person-words');
    const notes = within(turn).getByTestId('notes');
    expect(words.textContent).toBe('Do /customers the same way? Don’t change anything yet.');
    expect(words.contains(notes)).toBe(false);
    expect(notes.contains(words)).toBe(false);
    expect(words.textContent).not.toContain('Today is');
    expect(notes.textContent).toContain('Notes, added by Keel');
    expect(within(notes).getAllByTestId('note')).toHaveLength(3);
    expect(within(notes).getByTestId('id-link').textContent).toBe('#0012');
  });
});
