/** How bench:reuse writes its figures: whole numbers grouped, seconds with one decimal, ratios with two. */
export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '–');
