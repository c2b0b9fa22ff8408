// Writes the GGUF test models: test-models/chatml.gguf (tiny, for tests), with --big also
// test-models/big.gguf (≈26.5M F16 weights, for benchmarks), with --templates one model per chat
// template in ../shared/templates (test-models/template-NAME.gguf), with --architectures one model
// per architecture family people run now, with its real template (test-models/arch-NAME.gguf:
// qwen35 and lfm2 hybrid, gpt-oss and gemma4 sliding window). Same bytes on every run.
//   npx tsx scripts/makeTestModel.ts [--big] [--templates] [--architectures] [--arch NAME] [--out DIR]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ARCHITECTURE_MODELS } from '../main/llm/testModel/architectureModels.js';
import {
  BIG_MODEL_OPTIONS,
  TEST_MODEL_ARCHITECTURES,
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
    architectures: { type: 'boolean', default: false },
    arch: { type: 'string' },
    out: { type: 'string', default: path.join(repoRoot, 'test-models') },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

if (values.help) {
  console.log(`usage: tsx scripts/makeTestModel.ts [--big] [--templates] [--architectures] [--arch ${TEST_MODEL_ARCHITECTURES.join('|')}] [--out DIR]`);
  process.exit(0);
}

const arch = values.arch as TestModelArchitecture | undefined;
if (arch !== undefined && !TEST_MODEL_ARCHITECTURES.includes(arch)) {
  console.error(`unknown --arch ${arch}: one of ${TEST_MODEL_ARCHITECTURES.join(', ')}`);
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
if (values.architectures) {
  for (const spec of ARCHITECTURE_MODELS) write(`arch-${spec.architecture}.gguf`, spec);
}
