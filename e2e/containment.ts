/**
 * Layout containment, measured in the real browser: every pane (sidebar, title bar, main column,
 * inspector, status bar, a popover) lies inside the viewport; nothing a pane holds is drawn outside
 * it (an element counts as far as the boxes between it and its pane let it show, and the pane's own
 * box only where it scrolls: content a pane cuts off counts as outside); the composer and the status
 * bar are fully inside the viewport and not covered; and the document itself does not scroll.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/**
 * The panes, by selector: the grid's areas, the main column's parts (tabs, the view, the composer),
 * and a popover, a pane of its own drawn over the others.
 */
export const PANES = ['.sidebar', '.titlebar', '.main', '.topbar', '.content', '.composer', '.inspector', '.statusbar', '.popover'] as const;

export interface Containment {
  /** One line per problem: what, where, by how much. Empty when contained. */
  problems: string[];
  /** The panes found, with their boxes (to read in a failure). */
  panes: { pane: string; box: [number, number, number, number] }[];
}

/** Measures the page as it is now (see the file's comment); changes nothing. */
export function measure(page: Page, panes: readonly string[] = PANES): Promise<Containment> {
  return page.evaluate((paneSelectors) => {
    const problems: string[] = [];
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    const doc = document.scrollingElement ?? document.documentElement;
    if (doc.scrollHeight > vh + 0.5 || doc.scrollWidth > vw + 0.5) problems.push(`the document scrolls: ${doc.scrollWidth}×${doc.scrollHeight} in a ${vw}×${vh} viewport`);
    const name = (el: Element) => {
      const id = el.getAttribute('data-testid');
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      return `${el.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : ''}${cls}`;
    };
    const shown = (el: Element) => {
      const style = getComputedStyle(el);
      return style.display !== 'none' && style.visibility !== 'hidden';
    };
    type Box = { left: number; top: number; right: number; bottom: number };
    const box = (r: DOMRect): Box => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
    const cut = (a: Box, b: Box): Box => ({ left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) });
    const empty = (b: Box) => b.right - b.left < 0.5 || b.bottom - b.top < 0.5;
    const outside = (inner: Box, outer: Box) => Math.max(outer.left - inner.left, outer.top - inner.top, inner.right - outer.right, inner.bottom - outer.bottom);
    const clips = (el: Element) => {
      const style = getComputedStyle(el);
      return style.overflowX !== 'visible' || style.overflowY !== 'visible';
    };
    const scrolls = (el: Element) => /auto|scroll/.test(`${getComputedStyle(el).overflowX} ${getComputedStyle(el).overflowY}`);
    const view: Box = { left: 0, top: 0, right: vw, bottom: vh };
    const found: { pane: string; box: [number, number, number, number] }[] = [];
    const paneEls = paneSelectors.flatMap((sel) => [...document.querySelectorAll(sel)].filter(shown).map((el) => ({ sel, el })));
    for (const { sel, el } of paneEls) {
      const paneBox = box(el.getBoundingClientRect());
      found.push({ pane: sel, box: [paneBox.left, paneBox.top, paneBox.right, paneBox.bottom].map(Math.round) as [number, number, number, number] });
      // A pane scrolls up and down if it must, never sideways (its lines wrap or shorten instead).
      for (const scroller of [el, ...(sel === '.content' ? el.children : [])]) {
        if (scroller.scrollWidth > scroller.clientWidth + 1 && getComputedStyle(scroller).overflowX !== 'hidden') problems.push(`${name(scroller)} scrolls sideways (${scroller.scrollWidth} px in ${scroller.clientWidth})`);
      }
      const by = outside(paneBox, view);
      if (by > 0.5) problems.push(`${sel} reaches ${Math.round(by)} px outside the ${vw}×${vh} viewport`);
      // Panes nested in this one are checked as panes of their own.
      const nested = new Set(paneEls.filter((p) => p.el !== el && el.contains(p.el)).map((p) => p.el));
      const walk = (node: Element, clip: Box) => {
        for (const child of node.children) {
          if (!shown(child)) continue;
          const r = box(child.getBoundingClientRect());
          const visible = cut(r, clip);
          // A popover is drawn over the panes, so only the viewport holds it.
          if (!empty(visible) && !child.matches('.popover')) {
            const over = outside(visible, paneBox);
            if (over > 0.5) problems.push(`${name(child)} is drawn ${Math.round(over)} px outside ${sel}`);
          }
          if (!nested.has(child)) walk(child, clips(child) ? cut(clip, r) : clip);
        }
      };
      // A pane that scrolls shows its content through itself; one that only hides would cut it off.
      walk(el, scrolls(el) ? paneBox : { left: -1e9, top: -1e9, right: 1e9, bottom: 1e9 });
    }
    // The composer and the status bar: wholly in view, and on top at their corners and centre.
    for (const sel of ['.composer', '.statusbar']) {
      const el = document.querySelector(sel);
      if (!el) {
        problems.push(`${sel} is missing`);
        continue;
      }
      const r = el.getBoundingClientRect();
      if (outside(box(r), view) > 0.5 || r.height < 1) problems.push(`${sel} is not wholly in view (${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},${Math.round(r.bottom)})`);
      for (const [x, y] of [[r.left + 2, r.top + 2], [r.right - 2, r.top + 2], [r.left + 2, r.bottom - 2], [r.right - 2, r.bottom - 2], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]]) {
        const hit = document.elementFromPoint(x, y);
        if (!hit || !el.contains(hit)) problems.push(`${sel} is covered at (${Math.round(x)}, ${Math.round(y)}) by ${hit ? name(hit) : 'nothing'}`);
      }
    }
    return { problems: [...new Set(problems)], panes: found };
  }, [...panes]);
}

/** Fails with every problem named when the page is not contained. */
export async function assertContained(page: Page, where: string): Promise<void> {
  const got = await measure(page);
  assert.deepEqual(got.problems, [], `${where}: layout not contained (panes ${JSON.stringify(got.panes)})`);
}
