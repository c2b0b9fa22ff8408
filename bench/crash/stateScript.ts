/** What the state kill loop's child runs and the parent checks: the model, the session's size, the messages. */
import type { TestModelOptions } from '../../main/llm/testModel/makeTestModel.js';
import type { ToolName } from '../../main/core/tools/types.js';

/**
 * A generated model whose KV cache is large for the compute it costs: many thin layers
 * (48 × 4 heads × 32 dims, F32) make a state of 48 × 128 × 4 = 24 KiB per token, so a session of a
 * thousand-odd tokens saves ~30 MB — a write long enough (a few hundred ms with its fsync) for kills
 * to land inside it — while a message of a few tokens still evaluates quickly on one thread.
 */
export const STATE_MODEL: Readonly<TestModelOptions> = Object.freeze({ embedding: 128, layers: 48, heads: 4, ff: 128, seed: 7 });

export const STATE_CONTEXT = 4096;

/** Once the cache holds this many tokens, the child goes on in a new session (saves stay of one size range). */
export const STATE_SESSION_CAP = 2500;

/** The session's tools: a short list keeps the cold prefill of a new session short. */
export const STATE_TOOLS: readonly ToolName[] = ['read', 'list'];

/** The n-th message the child sends, and the scripted reply it must get back. */
export const stateMessage = (n: number): string => `Please look at the file number ${n} and check the code.`;
export const stateReply = (n: number): string => `Done with file ${n}.`;
