import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import { sha256 } from '../core/hash.js';
import { sequenceChanging } from './request.js';

/** Prefixes kept per process: the newest few, each a saved state (a subagent's siblings start from it). */
const KEPT = 4;

/**
 * The shared prefixes of subagents on this process's models: the first engine to need one evaluates
 * it and saves its state; the others (waiting while it does) load that state: a copy, nothing read
 * again. Keyed by the state's identity (the model and every setting that shapes the cache) and the
 * tokens themselves. The files live in a folder of this process's, removed when it exits.
 */
class SharedPrefixes {
  private readonly states = new Map<string, Promise<string>>();
  private folder?: string;

  /** Brings an empty `sequence` to hold `tokens`: evaluated once, copied after. */
  async start(sequence: LlamaContextSequence, identity: string, tokens: Token[]): Promise<void> {
    const key = sha256(`${identity}\n${tokens.join(',')}`);
    const saved = this.states.get(key);
    if (saved) {
      const file = await saved.catch(() => undefined);
      if (file && fs.existsSync(file)) {
        sequenceChanging(sequence);
        await sequence.loadStateFromFile(file, { acceptRisk: true });
        this.states.delete(key);
        this.states.set(key, saved);
        return;
      }
    }
    const made = this.make(sequence, tokens, key);
    this.states.set(key, made);
    this.prune();
    await made.catch((e: unknown) => {
      if (this.states.get(key) === made) this.states.delete(key);
      throw e;
    });
  }

  private async make(sequence: LlamaContextSequence, tokens: Token[], key: string): Promise<string> {
    sequenceChanging(sequence);
    await sequence.evaluateWithoutGeneratingNewTokens(tokens);
    const file = path.join(this.dir(), `${key}.state`);
    await sequence.saveStateToFile(file);
    return file;
  }

  private prune(): void {
    for (const [key, state] of [...this.states].slice(0, Math.max(0, this.states.size - KEPT))) {
      this.states.delete(key);
      void state.then((file) => fs.rmSync(file, { force: true }), () => {});
    }
  }

  private dir(): string {
    if (!this.folder) {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-prefixes-'));
      process.once('exit', () => fs.rmSync(folder, { recursive: true, force: true }));
      this.folder = folder;
    }
    return this.folder;
  }
}

export const sharedPrefixes = new SharedPrefixes();
