import type { MouseEvent } from 'react';
import { renderMarkdown } from '../../lib/markdown.js';
import { useKeel } from '../../stores/store.js';

/**
 * Opens id links inside rendered HTML; keeps links in the reply from navigating the window or
 * opening a new one. Bound to click and auxclick alike: a middle click opens a link in a new tab
 * or window without ever sending a click.
 */
export function onRenderedClick(e: MouseEvent<HTMLElement>): void {
  const target = e.target as Element;
  const idLink = target.closest<HTMLElement>('[data-id]');
  if (idLink?.dataset['id']) {
    e.preventDefault();
    void useKeel.getState().inspector.show(idLink.dataset['id']);
    return;
  }
  if (target.closest('a')) e.preventDefault();
}

/** The model's text as Markdown with highlighted code; every `#id` a link. */
export function Markdown({ text, className = '' }: { text: string; className?: string }) {
  return <div className={`markdown ${className}`} onClick={onRenderedClick} onAuxClick={onRenderedClick} dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}

export function ReplyText({ row }: { row: { seq: number; index: number; text: string; streaming: boolean } }) {
  return (
    <div className="reply" data-testid={`turn-${row.seq}-part-${row.index}`}>
      <div className="who">
        <span className="avatar keel">Keel</span>
      </div>
      <Markdown text={row.text} className={row.streaming ? 'streaming' : ''} />
    </div>
  );
}
