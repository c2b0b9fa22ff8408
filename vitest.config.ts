import { defineConfig } from 'vitest/config';

/** Unit and engine tests live beside the code as *.test.ts(x); conformance cases run via `npm run conformance`. */
export default defineConfig({
  test: {
    include: ['{main,renderer,conformance}/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**', 'out/**'],
    // Separate processes: tests load native modules (better-sqlite3, node-llama-cpp).
    pool: 'forks',
    // Engine tests load real models in their hooks: on a busy 2-core machine that takes more than the default 10 s.
    hookTimeout: 60_000,
  },
});
