import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/common';
import { Marked } from 'marked';
import { ID_PATTERN } from './linkify.js';

/**
 * The model's text as Markdown: marked renders, highlight.js colours code, DOMPurify removes
 * anything active (scripts, handlers, styles), then every `#id` in a text node becomes an id link
 * (a button the container's click handler opens in the inspector). The result is HTML for
 * `dangerouslySetInnerHTML`, safe by construction.
 */
const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const language = lang && hljs.getLanguage(lang) ? lang : undefined;
      const html = language ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text);
      return `<pre class="md-code"><code class="hljs${language ? ` language-${language}` : ''}">${html}</code></pre>`;
    },
  },
});

const cache = new Map<string, string>();

export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const raw = marked.parse(text, { async: false });
  const fragment = DOMPurify.sanitize(raw, { RETURN_DOM_FRAGMENT: true, FORBID_ATTR: ['style'], FORBID_TAGS: ['style', 'form', 'input'] });
  linkifyIds(fragment);
  const holder = document.createElement('div');
  holder.appendChild(fragment);
  const html = holder.innerHTML;
  if (cache.size > 300) cache.delete(cache.keys().next().value!);
  cache.set(text, html);
  return html;
}

/** Replaces each `#id` in the fragment's text (outside links) with an id-link button. */
export function linkifyIds(root: Node): void {
  const doc = root.ownerDocument ?? document;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if ((node as Text).data.includes('#') && !node.parentElement?.closest('a, button')) texts.push(node as Text);
  }
  for (const node of texts) {
    const data = node.data;
    const matches = [...data.matchAll(ID_PATTERN)];
    if (!matches.length) continue;
    const out = doc.createDocumentFragment();
    let at = 0;
    for (const m of matches) {
      if (m.index > at) out.appendChild(doc.createTextNode(data.slice(at, m.index)));
      const button = doc.createElement('button');
      button.type = 'button';
      button.className = 'id-link';
      button.dataset['id'] = m[0];
      button.dataset['testid'] = 'id-link';
      button.title = `Open ${m[0]} in the Recall inspector`;
      button.textContent = m[0];
      out.appendChild(button);
      at = m.index + m[0].length;
    }
    if (at < data.length) out.appendChild(doc.createTextNode(data.slice(at)));
    node.replaceWith(out);
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
