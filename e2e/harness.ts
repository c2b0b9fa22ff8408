/**
 * Browser-test harness: Keel's real host (store, tools, engine) on a temporary data folder with
 * generated test models, served by the real loopback server, driven by Debian's Chromium through
 * playwright-core. It builds nothing: the renderer must already be in out/renderer
 * (`npx electron-vite build`; `npm run test:e2e` does it first).
 *
 * The model's replies are scripted: push the text of each request's reply (a tool call written
 * with `harness.call(name, args)`, or plain text) before sending the message that needs them.
 * The real engine still evaluates every prompt and every scripted token, so the cache figures,
 * the streaming events and the tool results are the app's own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startHost, type Host } from '../main/appHost.js';
import { DEFAULT_PROMPTS_DIR } from '../main/core/prompts/buildSystemPrompt.js';
import { loadModel } from '../main/llm/model.js';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { callSyntax, formatCall, type CallSyntax } from '../main/llm/toolCalls.js';
import { sessionWrapper } from '../main/llm/wrapper.js';
import { startServer, type RunningServer } from '../main/server/server.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const RENDERER_DIR = path.join(REPO, 'out/renderer');
/** Screenshots go here (git-ignored). */
export const RESULTS_DIR = path.join(REPO, 'test-results');

export const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/**
 * Launches Chromium. Playwright gives every launch a fresh profile of its own (it passes a new
 * temporary --user-data-dir and removes it on close; it refuses one given in args).
 */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium).`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** The same seed for the whole suite keeps the models (and so every figure) deterministic. */
export interface ModelSpec {
  /** File name in the models folder, ending in .gguf. */
  name: string;
  seed: number;
}

export const DEFAULT_MODELS: readonly ModelSpec[] = [
  { name: 'tiny-a.gguf', seed: 1 },
  { name: 'tiny-b.gguf', seed: 2 },
];

export interface HarnessOptions {
  browser: Browser;
  models?: readonly ModelSpec[];
  /** Files of the workspace `ws` (relative path → content). */
  files?: Record<string, string>;
  /** Opens the host on this data folder instead of an empty one (the benchmark's stored session). */
  dataFolder?: string;
  contextSize?: number;
  viewport?: { width: number; height: number };
}

export interface Harness {
  /** Temporary root: data/, models/, ws/. Removed by close(). */
  readonly dir: string;
  readonly dataFolder: string;
  readonly modelsFolder: string;
  /** The workspace folder (real path). */
  readonly workspace: string;
  /** Absolute paths of the generated models, in the order given. */
  readonly modelPaths: string[];
  readonly host: Host;
  readonly server: RunningServer;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Scripted replies, one per model request, taken in order by every session. */
  readonly replies: string[];
  /** Requests that found no scripted reply (the model then samples freely: a test bug). */
  readonly unscripted: number;
  /** Errors the page threw or logged; a test checks none are left. */
  readonly pageErrors: string[];
  /** How the generated models write a tool call (undefined when `models` was empty). */
  readonly syntax?: CallSyntax;
  /** A scripted reply that is one tool call. */
  call(name: string, args: unknown): string;
  /** Opens the app (the server's URL, token included) and waits for the link to main. */
  open(): Promise<Page>;
  /** Saves a screenshot under test-results/ and returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

let syntaxCache: CallSyntax | undefined;

/** The call syntax of the generated models (all share the ChatML template), read from a real load. */
export async function modelSyntax(file: string): Promise<CallSyntax> {
  if (syntaxCache) return syntaxCache;
  const loaded = await loadModel({ modelPath: file, threads: 1, contextSize: 2048 });
  try {
    syntaxCache = callSyntax(sessionWrapper(loaded.model, '2026-11-30'));
  } finally {
    await loaded.dispose();
  }
  return syntaxCache;
}

export async function startHarness(o: HarnessOptions): Promise<Harness> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-e2e-')));
  const cleanups: (() => Promise<void> | void)[] = [() => fs.rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch {
        // Best effort: the next cleanup still runs.
      }
    }
    cleanups.length = 0;
  };
  try {
    const dataFolder = o.dataFolder ?? path.join(dir, 'data');
    const modelsFolder = path.join(dir, 'models');
    const workspace = path.join(dir, 'ws');
    fs.mkdirSync(dataFolder, { recursive: true });
    fs.mkdirSync(modelsFolder);
    fs.mkdirSync(workspace);
    for (const [rel, text] of Object.entries(o.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
      fs.writeFileSync(path.join(workspace, rel), text);
    }
    const modelPaths = (o.models ?? DEFAULT_MODELS).map((m) => {
      const file = path.join(modelsFolder, m.name);
      writeTestModel(file, { seed: m.seed });
      return file;
    });
    const syntax = modelPaths.length > 0 ? await modelSyntax(modelPaths[0]) : undefined;

    const replies: string[] = [];
    let unscripted = 0;
    const host = startHost({
      dataFolder, promptsDir: DEFAULT_PROMPTS_DIR, threads: 1, contextSize: o.contextSize ?? 16384,
      scriptFor: () => ({
        next: () => {
          const reply = replies.shift();
          if (reply !== undefined) return reply;
          unscripted++;
          // A short fixed reply rather than free sampling: keeps a broken test fast and readable.
          return 'No scripted reply was left.';
        },
      }),
    });
    cleanups.push(() => host.close());
    if (host.problem) throw new Error(`The host could not open its store: ${host.problem}`);

    const server = await startServer({ host, rendererDir: RENDERER_DIR });
    cleanups.push(() => server.close());

    const context = await o.browser.newContext({ viewport: o.viewport ?? { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    cleanups.push(() => context.close());
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const url = msg.location().url;
      // Chromium asks for /favicon.ico outside the token's path on its own; the server refuses
      // every path without the token (404), and index.html names no icon.
      if (new URL(url || 'about:blank').pathname === '/favicon.ico') return;
      pageErrors.push(`console: ${msg.text()} (${url})`);
    });

    const harness: Harness = {
      dir, dataFolder, modelsFolder, workspace, modelPaths, host, server, context, page, replies, syntax, pageErrors,
      get unscripted() {
        return unscripted;
      },
      call(name, args) {
        if (!syntax) throw new Error('This harness has no model, so no call syntax.');
        return formatCall(syntax, name, args);
      },
      async open() {
        await page.goto(server.url);
        // The sidebar's footer names the data folder once main answered getState over the socket (a
        // narrow window has it collapsed: in the page, not in view).
        await page.locator('.sidebar-foot', { hasText: dataFolder }).waitFor({ state: 'attached' });
        return page;
      },
      async screenshot(name) {
        fs.mkdirSync(RESULTS_DIR, { recursive: true });
        const file = path.join(RESULTS_DIR, `${name}.png`);
        await page.screenshot({ path: file });
        return file;
      },
      close: cleanup,
    };
    return harness;
  } catch (err) {
    await cleanup();
    throw err;
  }
}
