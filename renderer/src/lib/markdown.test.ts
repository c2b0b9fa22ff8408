// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown.js';

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('renderMarkdown', () => {
  it('renders Markdown with highlighted code and id links', () => {
    const out = dom(renderMarkdown('Fixed in **#0018**; see `#0012`.\n\n```ts\nconst a = 1;\n```'));
    expect(out.querySelector('strong')?.textContent).toBe('#0018');
    expect([...out.querySelectorAll('[data-testid="id-link"]')].map((b) => (b as HTMLElement).dataset['id'])).toEqual(['#0018', '#0012']);
    expect(out.querySelector('pre code.hljs.language-ts span')).toBeTruthy();
  });

  it('removes anything active the model wrote', () => {
    const out = dom(renderMarkdown('<img src=x onerror="alert(1)"> <script>alert(2)</script> <a href="javascript:alert(3)">x</a> <b style="color:red">b</b>'));
    expect(out.innerHTML).not.toMatch(/onerror|<script|javascript:|style=/);
  });
});
