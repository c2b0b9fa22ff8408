/**
 * jsdom lays nothing out, so a virtualized list sees a 0×0 viewport and renders no rows. This
 * gives the transcript a fixed client size, and each row `rowHeight` (0: every row fits and renders).
 */
export function fakeLayout(size = { width: 1000, height: 900 }, rowHeight = 0): void {
  Object.defineProperty(HTMLElement.prototype, 'offsetHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return this.classList.contains('row') ? rowHeight : 0;
    },
  });
  for (const [prop, value] of [['clientHeight', size.height], ['clientWidth', size.width]] as const) {
    Object.defineProperty(HTMLElement.prototype, prop, {
      configurable: true,
      get(this: HTMLElement) {
        return this.classList.contains('transcript') ? value : 0;
      },
    });
  }
}
