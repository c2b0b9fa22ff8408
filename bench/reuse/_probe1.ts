import { writeTestModel, BIG_MODEL_OPTIONS } from '../../main/llm/testModel/makeTestModel.js';
import { loadModel } from '../../main/llm/model.js';
import { resolveChatWrapper } from 'node-llama-cpp';
writeTestModel('/tmp/big.gguf', BIG_MODEL_OPTIONS);
const m = await loadModel({ modelPath: '/tmp/big.gguf', threads: 1, contextSize: 16384 });
const w = resolveChatWrapper(m.model);
console.log(w.constructor.name, JSON.stringify(w.settings.functions, null, 1));
const seq = m.context.getSequence();
const text = 'export function foo(a: number) { return a + 1; }\n'.repeat(120);
const toks = m.model.tokenize(text);
console.log('tokens', toks.length, 'chars', text.length);
let t = performance.now();
await seq.evaluateWithoutGeneratingNewTokens(toks);
console.log('prefill ms', performance.now() - t);
t = performance.now();
let n = 0;
for await (const tok of seq.evaluate([toks[0]], { temperature: 0 })) { if (++n >= 50) break; void tok; }
console.log('decode ms/token', (performance.now() - t) / 50, 'at', seq.nextTokenIndex);
const toks2 = m.model.tokenize(text.repeat(3));
t = performance.now();
await seq.evaluateWithoutGeneratingNewTokens(toks2);
console.log('prefill2 ms', performance.now() - t, toks2.length, seq.nextTokenIndex);
t = performance.now(); n = 0;
for await (const tok of seq.evaluate([toks[0]], { temperature: 0 })) { if (++n >= 50) break; void tok; }
console.log('decode ms/token at', seq.nextTokenIndex, (performance.now() - t) / 50);
await m.dispose();
