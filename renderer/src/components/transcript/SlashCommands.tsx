import { useEffect, useState, type KeyboardEvent } from 'react';
import type { SlashCommandView } from '../../../../main/contract.js';
import { callMain, useKeel } from '../../stores/store.js';
import './slashCommands.css';

/** The first word of a message being typed as a command: `/` and no space yet (a path's second `/` ends it). */
const TYPING = /^\/([^\s/]*)$/;

/**
 * The workspace's custom commands that match what the person types after `/`, read from main each
 * time the box starts with `/` (a command file added meanwhile shows). Up and Down choose, Tab or
 * Enter completes (`/name ` with its space, so the next Enter sends), Escape hides the list.
 * `onKeyDown` returns whether it used the key.
 */
export function useSlashCommands(text: string, setText: (text: string) => void) {
  const workspace = useKeel((s) => s.transcript.view?.summary.workspace);
  const typed = TYPING.exec(text)?.[1];
  const typing = typed !== undefined;
  const [commands, setCommands] = useState<SlashCommandView[]>([]);
  const [chosen, setChosen] = useState(0);
  const [hidden, setHidden] = useState(false);
  useEffect(() => {
    setHidden(false);
    if (!typing || workspace === undefined) return;
    let current = true;
    void callMain((api) => api.slashCommands(workspace), { quiet: true }).then((got) => {
      if (current) setCommands(got.ok ? got.value : []);
    });
    return () => {
      current = false;
    };
  }, [typing, workspace]);
  const matches = typing && !hidden ? commands.filter((c) => c.problem === undefined && c.name.startsWith(typed)) : [];
  useEffect(() => setChosen(0), [typed]);
  const at = Math.min(chosen, Math.max(0, matches.length - 1));

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (matches.length === 0) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      setChosen((at + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
    } else if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
      setText(`/${matches[at].name} `);
    } else if (e.key === 'Escape') {
      setHidden(true);
    } else {
      return false;
    }
    // The list had the key: Escape hides it without stopping the reply or denying an approval (shortcuts.ts).
    e.preventDefault();
    e.stopPropagation();
    return true;
  };
  return { matches, chosen: at, choose: (i: number) => setText(`/${matches[i].name} `), onKeyDown };
}

/** The matching commands, each with its argument hint, description and where it comes from. */
export function SlashCommandList({ matches, chosen, choose }: { matches: SlashCommandView[]; chosen: number; choose: (i: number) => void }) {
  if (matches.length === 0) return null;
  return (
    <ul className="slash-commands" role="listbox" aria-label="Commands" data-testid="command-list">
      {matches.map((c, i) => (
        <li
          key={c.file}
          role="option"
          aria-selected={i === chosen}
          className={i === chosen ? 'chosen' : undefined}
          onMouseDown={(e) => (e.preventDefault(), choose(i))}
          data-testid="command-option"
        >
          <span className="slash-name">/{c.name}</span>
          {c.argumentHint && <span className="muted"> {c.argumentHint}</span>}
          <span className="slash-description"> {c.description}</span>
          <span className="muted small"> {c.label}</span>
          {c.notes?.map((note) => <div key={note} className="muted small" data-testid="command-note">{note}</div>)}
        </li>
      ))}
    </ul>
  );
}
