// @vitest-environment jsdom
import { cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Markdown } from './ReplyText.js';

afterEach(cleanup);

describe('links in a reply', () => {
  it('navigate nowhere on a left click or a middle click (auxclick)', () => {
    const { container } = render(<Markdown text="See [the docs](https://example.com/x) and <https://evil.example/>." />);
    const links = [...container.querySelectorAll('a')];
    expect(links).toHaveLength(2);
    for (const link of links) {
      for (const [type, button] of [['click', 0], ['auxclick', 1]] as const) {
        const event = new MouseEvent(type, { bubbles: true, cancelable: true, button });
        fireEvent(link, event);
        expect(event.defaultPrevented).toBe(true);
      }
    }
  });
});
