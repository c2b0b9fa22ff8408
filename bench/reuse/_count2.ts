import { getLlama } from 'node-llama-cpp';
import { writeTestModel } from '../../main/llm/testModel/makeTestModel.js';
import { generateScript } from './script.js';
import { spacedJson } from './stock.js';
writeTestModel('/tmp/tiny.gguf', {});
const llama = await getLlama({ gpu: false, build: 'never' });
const model = await llama.loadModel({ modelPath: '/tmp/tiny.gguf' });
const s = generateScript(0x6b65656c, 62);
const n = (t: string) => model.tokenize(t, true).length;
console.log(s.files["src/retry.py"], s.files["src/queue.py"]);
let total = 0;
const byKind = new Map<string, number[]>();
for (const r of s.turns.flatMap((t) => t.replies)) {
  const text = r.call ? `${r.text}\n<tool_call>\n{"name": "${r.call.name}", "arguments": ${spacedJson(r.call.args)}}\n</tool_call>` : r.text;
  const k = r.call?.name ?? 'answer';
  byKind.set(k, [...(byKind.get(k) ?? []), n(text)]);
  total += n(text);
}
console.log('reply tokens', total);
for (const [k, v] of byKind) console.log(k, v.length, 'avg', Math.round(v.reduce((a, b) => a + b, 0) / v.length));
for (const [f, c] of Object.entries(s.files)) console.log(f, c.split('\n').length, 'lines', n(c), 'tokens', (c.length / n(c)).toFixed(2), 'c/t');
console.log(s.turns.map((t) => n(t.words)).reduce((a, b) => a + b, 0), 'user tokens');
