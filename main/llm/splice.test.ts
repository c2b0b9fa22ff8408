import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LlamaText, type LlamaContextSequence, type Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel, type LoadedModel } from './model.js';
import { replyFormat } from './chooseFormat.js';
import { ReplyReader } from './request.js';
import { callEnds } from './replyStream.js';
import { ChunkedText, EvaluatedText, promptTokens } from './splice.js';
import { writeTestModel } from './testModel/makeTestModel.js';
import { callSyntax, formatCall } from './toolCalls.js';
import { sessionWrapper } from './wrapper.js';

let dir: string;
let model: LoadedModel;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-splice-'));
  const file = path.join(dir, 'chatml.gguf');
  writeTestModel(file);
  model = await loadModel({ modelPath: file, contextSize: 4096, threads: 1 });
}, 120_000);
afterAll(async () => {
  await model?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

const text = (s: string) => LlamaText([s]);

describe('the evaluated text kept per sequence', { timeout: 60_000 }, () => {
  /** Makes the sequence hold exactly `tokens`, as anything but a request could (a restored state, another session). */
  async function hold(sequence: LlamaContextSequence, tokens: Token[]): Promise<void> {
    const same = sequence.compareContextTokens(tokens).firstDifferentIndex;
    if (same < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: same, end: sequence.nextTokenIndex }]);
    if (same < tokens.length) await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(same));
  }

  it('gives the splice a fresh read gives, as the sequence grows, is cut back and changes under it', async () => {
    const m = model.model;
    const sequence = model.context.getSequence();
    try {
      const kept = new EvaluatedText();
      const a = 'The queue holds jobs; each job has an id and a number of tries.\n';
      const b = 'A lease is taken per job: héllo wörld, 日本語 and emoji 🙂 split across tokens.\n';
      const steps: Token[][] = [
        m.tokenize(a),
        [...m.tokenize(a), ...m.tokenize(b)], // appended
        m.tokenize(a).slice(0, 5), // erased back
        [...m.tokenize(a).slice(0, 5), ...m.tokenize(b)], // another tail after the cut
        m.tokenize(b), // another sequence's tokens altogether
      ];
      for (const held of steps) {
        kept.changing();
        await hold(sequence, held);
        kept.sync(m, sequence);
        expect(kept.tokens).toEqual(sequence.contextTokens);
        const prompt = text(m.detokenize(held, true) + 'and more text after it');
        const incremental = promptTokens(prompt, m, kept);
        const fresh = new EvaluatedText();
        fresh.sync(m, sequence);
        const expected = promptTokens(prompt, m, fresh);
        const tokens = incremental.from(0);
        expect(tokens).toEqual(expected.from(0));
        expect([incremental.length, incremental.rewritten]).toEqual([tokens.length, expected.rewritten]);
        // The first difference is the sequence's own, and the evaluated tokens are kept (all but the last, at least).
        expect(incremental.firstDiff).toBe(sequence.compareContextTokens(tokens).firstDifferentIndex);
        expect(tokens.slice(0, held.length - 1)).toEqual(held.slice(0, held.length - 1));
        expect(incremental.from(3)).toEqual(tokens.slice(3));
      }
    } finally {
      sequence.dispose();
    }
  });

  it('takes what a request recorded as it is, and compares the sequence where something else changed it', async () => {
    const m = model.model;
    const sequence = model.context.getSequence();
    let reads = 0;
    let compares = 0;
    const counted = new Proxy(sequence, {
      get: (target, key) => {
        if (key === 'contextTokens') reads++;
        if (key === 'compareContextTokens') compares++;
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    try {
      const kept = new EvaluatedText();
      const first = m.tokenize('Each job has an id and a number of tries.');
      await hold(sequence, first);
      kept.sync(m, counted);
      expect([reads, compares]).toEqual([1, 1]);
      // A request evaluated more tokens from index 4 on and recorded them: nothing is compared or read back.
      const more = [...first.slice(0, 4), ...m.tokenize(' lease and retry')];
      kept.changing();
      await hold(sequence, more);
      kept.record(4, more.slice(4));
      kept.sync(m, counted);
      expect([reads, compares]).toEqual([1, 1]);
      expect(kept.tokens).toEqual(sequence.contextTokens);
      // A request that failed midway recorded nothing: the sequence is compared, and read back from where it departs.
      kept.changing();
      await hold(sequence, [...more.slice(0, 2), ...m.tokenize(' something else, as long')]);
      kept.sync(m, counted);
      expect([reads, compares]).toEqual([2, 2]);
      expect(kept.tokens).toEqual(sequence.contextTokens);
      expect(kept.read()?.text.slice(0, Infinity)).toBe(m.detokenize(sequence.contextTokens, true));
      // A sequence that holds another number of tokens than recorded is compared, whatever was said.
      await hold(sequence, more.slice(0, 3));
      kept.sync(m, counted);
      expect([reads, compares]).toEqual([3, 3]);
      expect(kept.tokens).toEqual(sequence.contextTokens);
    } finally {
      sequence.dispose();
    }
  });
});

describe('the evaluated text in chunks', { timeout: 60_000 }, () => {
  it('reads, slices and cuts as one string does, across chunk boundaries', () => {
    let seed = 3;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const chunked = new ChunkedText();
    let plain = '';
    for (let step = 0; step < 3000; step++) {
      if (next(10) === 0) {
        const length = next(plain.length + 1);
        chunked.cut(length);
        plain = plain.slice(0, length);
      } else {
        // Pieces up to a few thousand characters, so the text passes many chunk boundaries.
        const piece = `${step}:`.padEnd(next(next(8) === 0 ? 40_000 : 40), 'ab🙂');
        chunked.append(piece);
        plain += piece;
      }
      expect(chunked.length).toBe(plain.length);
      const from = next(plain.length + 1);
      const to = from + next(next(4) === 0 ? 60_000 : 50);
      expect(chunked.slice(from, to)).toBe(plain.slice(from, to));
    }
    expect(plain.length).toBeGreaterThan(100_000);
  });
});

describe('the reply read as it streams', { timeout: 60_000 }, () => {
  it('finds the call, the end and the streamed words at the token a whole re-read finds them', () => {
    const m = model.model;
    const wrapper = sessionWrapper(m, '2026-12-01');
    const syntax = callSyntax(wrapper);
    const format = replyFormat(wrapper, syntax);
    const replies = [
      `Reading it — naïve 🙂 first.\n\n${formatCall(syntax, 'read', { path: 'src/a.ts' })}${formatCall(syntax, 'read', { path: 'b' })}`,
      `${formatCall(syntax, 'edit', { path: 'a.ts', old: 'f(x) { return }', new: '[1, {"a": 2}]' })} trailing words`,
      'Just words, no call at all: { not json ] and a brace }.',
    ];
    for (const reply of replies) {
      const tokens = m.tokenize(reply, true);
      const streamed: string[] = [];
      const reader = new ReplyReader({ model: m, format, callEnds: callEnds({ harmony: false, suffix: syntax.suffix }), stopTriggers: [], continueOn: [], onText: (d) => streamed.push(d) });
      let stop: string | undefined;
      let at = 0;
      for (; at < tokens.length && !stop; at++) stop = reader.add(tokens[at]);
      // What reading the whole text after each token finds: the first token after which a call is complete.
      let expected = tokens.length;
      for (let n = 1; n <= tokens.length; n++) {
        if (format.read(m.detokenize(tokens.slice(0, n), true)).calls.length > 0) {
          expected = n;
          break;
        }
      }
      expect(at).toBe(expected);
      expect(stop).toBe(expected < tokens.length || format.read(reply).calls.length > 0 ? 'call' : undefined);
      const final = reader.finish();
      expect(final).toBe(m.detokenize(tokens.slice(0, at), true));
      expect(streamed.join('')).toBe(format.visible(final, true));
    }
  });

  it('goes on after a call to the next where the template writes calls together, and cuts words after them', () => {
    const m = model.model;
    const wrapper = sessionWrapper(m, '2026-12-01');
    const syntax = callSyntax(wrapper);
    const format = replyFormat(wrapper, syntax);
    const [end] = m.tokenize('<|im_end|>', true);
    expect(m.isEogToken(end)).toBe(true);
    const first = formatCall(syntax, 'read', { path: 'a.ts' });
    const second = formatCall(syntax, 'grep', { pattern: 'x' });
    const read = (reply: string, callsTogether: boolean, withEnd: boolean) => {
      const reader = new ReplyReader({ model: m, format, callEnds: callEnds({ harmony: false, suffix: syntax.suffix }), callsTogether, stopTriggers: [], continueOn: [] });
      const tokens = [...m.tokenize(reply, true), ...(withEnd ? [end] : [])];
      let stop: string | undefined;
      let at = 0;
      for (; at < tokens.length && !stop; at++) stop = reader.add(tokens[at]);
      const text = reader.finish();
      return { stop, text, calls: format.read(text).calls.map((c) => c.name), used: at, of: tokens.length };
    };
    // Two calls, the template's line between them, then the end token: both read, nothing cut.
    expect(read(`${first}\n${second}`, true, true)).toMatchObject({ stop: 'call', text: `${first}\n${second}`, calls: ['read', 'grep'] });
    // Words after a call (an invented result): the reply ends at the first of them, and they are cut.
    const invented = read(`${first}\nThe file holds 42 lines.`, true, true);
    expect(invented).toMatchObject({ stop: 'call', text: first, calls: ['read'] });
    expect(invented.used).toBeLessThan(invented.of);
    // Blank text after the last call, then the end: cut.
    expect(read(`${first}\n\n`, true, true)).toMatchObject({ stop: 'call', text: first, calls: ['read'] });
    // Where the template does not write calls together, the reply ends at its first call.
    const one = read(`${first}\n${second}`, false, true);
    expect(one).toMatchObject({ stop: 'call', text: first, calls: ['read'] });
  });
});
