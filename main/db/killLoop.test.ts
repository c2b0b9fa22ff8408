/**
 * Trust, 2: crash safety. The kill loop (bench/crash/killLoop.ts) kills a child running a scripted
 * session with SIGKILL at seeded random moments and reopens the same database each time. A quick
 * run by default; KEEL_KILL_ITERATIONS=<n> for a long one (`npm run bench:crash` runs 200+).
 */
import { describe, expect, it } from 'vitest';
import { runKillLoop } from '../../bench/crash/killLoop.js';

const iterations = Number(process.env.KEEL_KILL_ITERATIONS ?? 15);
const seed = Number(process.env.KEEL_KILL_SEED ?? 0x7e57);

describe('crash safety: the kill loop', () => {
  it(`${iterations} SIGKILLs: nothing acknowledged is lost, no file torn, every reopen passes integrity_check`, async () => {
    const f = await runKillLoop({ iterations, seed, minMs: 5, maxMs: 200 });
    expect(f.problems).toEqual([]);
    expect(f).toMatchObject({ iterations, lost: 0, tornFiles: 0, integrityFailures: 0, inconsistencies: 0, childFailures: 0 });
    // The loop did real work: results were acknowledged and kills landed mid-write.
    expect(f.acknowledged).toBeGreaterThan(iterations);
    expect(f.killsMidWrite).toBeGreaterThan(0);
  }, 60_000 + iterations * 4_000);
});
