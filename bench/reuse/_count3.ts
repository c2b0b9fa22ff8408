import { getLlama } from 'node-llama-cpp';
const llama = await getLlama({ gpu: false, build: 'never' });
const model = await llama.loadModel({ modelPath: '/tmp/tiny.gguf' });
for (const t of ['    total = 0', '    text_list.append(create_text(text))', 'def check_code(tool, limit=84):', '<tool_call>\n{"name": "read", "arguments": {"path": "src/retry.py"}}\n</tool_call>', 'The test is done now and the code is fixed.']) {
  const toks = model.tokenize(t, true);
  console.log(toks.length, JSON.stringify(toks.map((x) => model.detokenize([x], true))));
}
