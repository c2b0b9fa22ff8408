// Writes the GGUF test models: test-models/chatml.gguf (tiny, for tests), with --big also
// test-models/big.gguf (≈26.5M F16 weights, for benchmarks), with --templates one model per chat
// template in ../shared/templates (test-models/template-NAME.gguf). Same bytes on every run.
//   npx tsx scripts/makeTestModel.ts [--big] [--templates] [--arch llama|qwen2|qwen3] [--out DIR]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  BIG_MODEL_OPTIONS,
  type TestModelArchitecture,
  type TestModelOptions,
  testModelParameterCount,
  writeTestModel,
} from '../main/llm/testModel/makeTestModel.js';
import { sha256 } from '../main/core/hash.js';
import { TEMPLATE_NAMES, templateModelOptions } from '../main/llm/testModel/templates.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values } = parseArgs({
  options: {
    big: { type: 'boolean', default: false },
    templates: { type: 'boolean', default: false },
    arch: { type: 'string' },
    out: { type: 'string', default: path.join(repoRoot, 'test-models') },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

if (values.help) {
  console.log('usage: tsx scripts/makeTestModel.ts [--big] [--templates] [--arch llama|qwen2|qwen3] [--out DIR]');
  process.exit(0);
}

const arch = values.arch as TestModelArchitecture | undefined;
if (arch !== undefined && !['llama', 'qwen2', 'qwen3'].includes(arch)) {
  console.error(`unknown --arch ${arch}`);
  process.exit(2);
}
const outDir = path.resolve(values.out);
const archOption: TestModelOptions = arch ? { architecture: arch } : {};

function write(fileName: string, options: TestModelOptions): void {
  const file = path.join(outDir, fileName);
  const bytes = writeTestModel(file, options);
  const sha = sha256(bytes);
  const params = testModelParameterCount(options);
  console.log(`${path.relative(process.cwd(), file)}  ${bytes.length} bytes  ${params} weights  sha256 ${sha}`);
}

write('chatml.gguf', { ...archOption });
if (values.big) write('big.gguf', { ...BIG_MODEL_OPTIONS, ...archOption });
if (values.templates) {
  for (const name of TEMPLATE_NAMES) write(`template-${name}.gguf`, templateModelOptions(name, archOption));
}
