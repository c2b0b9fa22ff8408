/**
 * How the generated test model writes a tool call (its chat wrapper's syntax), read from a real
 * load of it: tests that script the model's replies for the app write their calls with it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../main/llm/model.js';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { callSyntax, type CallSyntax } from '../main/llm/toolCalls.js';
import { sessionWrapper } from '../main/llm/wrapper.js';

export async function generatedModelSyntax(): Promise<CallSyntax> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-syntax-')), 'tiny.gguf');
  writeTestModel(file);
  const loaded = await loadModel({ modelPath: file, threads: 1, contextSize: 2048 });
  try {
    return callSyntax(sessionWrapper(loaded.model, '2026-11-30'));
  } finally {
    await loaded.dispose();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}
