/** Runs `keel` in this process (runCli) and keeps what it wrote: the CLI tests' one way to call it. */
import { runCli } from '../main/cli/index.js';

/** A writer that keeps what it is given. */
export function collector() {
  const chunks: string[] = [];
  return { write: (text: string) => chunks.push(text), get text() { return chunks.join(''); } };
}

export async function cli(...argv: string[]) {
  const out = collector();
  const err = collector();
  const code = await runCli(argv, { out, err });
  return { code, out: out.text, err: err.text };
}
