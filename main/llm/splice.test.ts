import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LlamaText, type Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel, type LoadedModel } from './model.js';
import { replyFormat } from './chooseFormat.js';
import { ReplyReader } from './request.js';
import { callEnds } from './replyStream.js';
import { EvaluatedText, promptTokens } from './splice.js';
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
  it('gives the splice a fresh read gives, as the evaluated tokens grow, are cut back and change', () => {
    const m = model.model;
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
    for (const evaluated of steps) {
      const prompt = text(m.detokenize(evaluated, true) + 'and more text after it');
      const incremental = promptTokens(prompt, m, evaluated, kept);
      const fresh = promptTokens(prompt, m, evaluated, new EvaluatedText());
      expect(incremental).toEqual(fresh);
      // The evaluated tokens are kept where their text is still the prompt's (all but the last, at least).
      expect(incremental.tokens.slice(0, evaluated.length - 1)).toEqual(evaluated.slice(0, evaluated.length - 1));
    }
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
});
