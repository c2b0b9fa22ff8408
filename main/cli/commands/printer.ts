import type { RequestRow } from '../../core/state/types.js';
import type { LoopEvent } from '../../core/turn/loop.js';
import { cacheLine } from '../format.js';
import type { Writer } from '../io.js';

/**
 * Shows a reply as the agent makes it: the model's text as it streams, each tool call with its
 * result text exactly as the model got it (bracket first), and after the reply one cache line per
 * request it made.
 */
export class ReplyPrinter {
  private atLineStart = true;
  private requests: RequestRow[] = [];

  /**
   * `text`: where streamed text and tool results go (undefined: text is not streamed, as `keel say`
   * prints only the answer); `notes`: tool results when text is not streamed, cache figures.
   */
  constructor(private readonly text: Writer | undefined, private readonly notes: Writer) {}

  event = (e: LoopEvent): void => {
    switch (e.type) {
      case 'text':
        if (this.text) this.write(this.text, e.delta);
        break;
      case 'tool': {
        const to = this.text ?? this.notes;
        this.newline(to);
        this.write(to, `── ${e.name} ${JSON.stringify(e.args ?? null)}\n${e.result.text}\n`);
        break;
      }
      case 'request':
        this.requests.push(e.request);
        break;
      case 'compacted': {
        const to = this.text ?? this.notes;
        this.newline(to);
        this.write(to, `── compacted: the history is now\n${e.text}\n`);
        break;
      }
      case 'notice':
        this.newline(this.notes);
        this.notes.write(`${e.text}\n`);
        break;
      case 'message':
        break;
    }
  };

  /** The reply ended (or was stopped): ends its line and shows the cache figures of its requests. */
  endReply(): void {
    if (this.text) this.newline(this.text);
    for (const r of this.requests) this.notes.write(cacheLine(r) + '\n');
    this.requests = [];
  }

  private write(to: Writer, text: string): void {
    if (text === '') return;
    to.write(text);
    if (to === (this.text ?? this.notes)) this.atLineStart = text.endsWith('\n');
  }

  private newline(to: Writer): void {
    if (!this.atLineStart) this.write(to, '\n');
  }
}
