import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const root = import.meta.dirname;

/**
 * Explicit entries for the top-level main/, preload/ and renderer/ folders (electron-vite's
 * defaults expect src/main, src/preload, src/renderer). Outputs go to out/ (git-ignored).
 */
export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      rolldownOptions: {
        input: { index: resolve(root, 'main/index.ts') },
        // A native module: loaded from node_modules at run time (rebuilt for Electron's ABI),
        // never bundled. node-llama-cpp likewise ships native binaries per platform.
        external: ['better-sqlite3', 'node-llama-cpp', /^@node-llama-cpp\//],
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      rolldownOptions: {
        input: { index: resolve(root, 'preload/index.ts') },
        // Sandboxed preload scripts cannot be ES modules: CommonJS, with a .cjs name because
        // package.json says "type": "module". main/index.ts points at out/preload/index.cjs.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rolldownOptions: {
        input: { index: resolve(root, 'renderer/index.html') },
      },
    },
  },
});
