import { describe, expect, it, afterAll } from 'vitest';
import { contextConfig, fill, toolConfig } from '../config.js';
import { bashTool, type BashArgs } from './bash.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';

const ws = makeTempRoot();
afterAll(() => ws.remove());

const body = async (args: BashArgs, signal?: AbortSignal): Promise<string> => {
  const out = await bashTool.run(args, makeContext(ws.root, signal));
  if (out.kind !== 'text') throw new Error('expected text');
  return out.body;
};

describe('bash', () => {
  it('keeps stdout and stderr in the order they were written', async () => {
    for (let i = 0; i < 20; i++) {
      expect(await body({ command: 'echo a; echo b >&2; echo c; echo d >&2' })).toBe('a\nb\nc\nd');
    }
  });

  it('runs in the workspace root and removes exactly one trailing newline', async () => {
    expect(await body({ command: 'pwd' })).toBe(ws.root);
    expect(await body({ command: "printf 'x\\n\\n'" })).toBe('x\n');
  });

  it('gives an empty body for no output', async () => {
    expect(await body({ command: 'true' })).toBe('');
  });

  it('adds the exit code on its own line', async () => {
    expect(await body({ command: 'echo hi; exit 3' })).toBe('hi\n[exit code 3]');
    expect(await body({ command: 'exit 2' })).toBe('[exit code 2]');
    expect(await body({ command: 'printf partial; exit 1' })).toBe('partial\n[exit code 1]');
  });

  it('captures a large output whole and decodes UTF-8 across chunks', async () => {
    const lines = (await body({ command: 'seq 1 200000' })).split('\n');
    expect(lines).toHaveLength(200000);
    expect(lines[199999]).toBe('200000');
    const accents = await body({ command: "for i in $(seq 1 50000); do printf 'é'; done" });
    expect(accents).toBe('é'.repeat(50000));
  });

  it('kills the whole process group on timeout', async () => {
    const started = Date.now();
    const out = await body({ command: '(sleep 5; echo late) & echo early; sleep 5', timeout_ms: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(out).toBe('early\n[timed out after 300 ms]');
  });

  it('reports a process killed by a signal', async () => {
    expect(await body({ command: 'echo before; kill -TERM $$' })).toBe('before\n[killed by SIGTERM]');
  });

  it('kills the command when the context signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    expect(await body({ command: 'sleep 5' }, controller.signal)).toBe('[killed by SIGKILL]');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('returns soon after the command exits even if a background process holds the output open', async () => {
    const started = Date.now();
    const out = await body({ command: 'sleep 3 & echo $!' });
    expect(Date.now() - started).toBeLessThan(2000);
    process.kill(Number(out), 'SIGKILL');
  });

  it('refuses a timeout below 1 ms', async () => {
    await expect(body({ command: 'true', timeout_ms: 0 })).rejects.toThrow(/^Error: timeout_ms must be at least 1/);
  });
});

describe('bash output past its limit', () => {
  const limit = toolConfig.bash.max_output_bytes;

  it('stops the command there, keeps exactly the limit, and says so', async () => {
    const started = Date.now();
    const out = await body({ command: 'head -c 200000000 /dev/zero | tr "\\0" x; echo never' });
    expect(Date.now() - started).toBeLessThan(30_000);
    const stop = fill(contextConfig.texts.output_stopped, { bytes: limit });
    expect(out.endsWith(`\n${stop}`)).toBe(true);
    expect(out.length).toBe(limit + 1 + stop.length);
    expect(out.slice(0, limit)).toBe('x'.repeat(limit));
  });

  it('stops an endless command too, and drops a character the cut split', async () => {
    // Lines of k x's, an é (2 bytes) and a newline, with k chosen so the limit falls inside an é.
    const k = [...Array(64).keys()].find((n) => limit % (n + 3) === n + 1)!;
    const out = await body({ command: `yes '${'x'.repeat(k)}é'` });
    const [text] = out.split('\n[the output');
    expect(text.startsWith(`${'x'.repeat(k)}é\n`)).toBe(true);
    expect(text.endsWith('x'.repeat(k))).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(limit);
    expect(text).not.toContain('\uFFFD');
  });

  it('keeps credential variables out of the command', async () => {
    process.env.KEEL_TEST_API_TOKEN = 'tok-123';
    try {
      expect(await body({ command: 'env' })).not.toContain('tok-123');
      expect(await body({ command: 'echo ${KEEL_TEST_API_TOKEN:-unset}' })).toBe('unset');
    } finally {
      delete process.env.KEEL_TEST_API_TOKEN;
    }
  });
});
