// The seeded PRNG lives with the test support (test/prng.ts): tests and benches share it.
export { Rng } from '../test/prng.js';
