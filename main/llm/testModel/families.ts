// What each architecture makeTestModel writes needs beyond the shared vocabulary: its metadata and
// its tensors, by name and shape, as the bundled llama.cpp source loads them (src/models/<arch>.cpp,
// load_arch_hparams and load_arch_tensors; names in src/llama-arch.cpp). Shapes are ggml's order:
// the first dimension is the input. A model must load and run; what it computes does not matter.
import type { GgufValue } from './gguf.js';
import { gguf } from './gguf.js';

/**
 * Weights llama.cpp's converter always stores as F32, whatever the file type (conversion/base.py):
 * its CPU kernels for them read F32 only (an F16 ssm_conv1d fails an assertion in ggml's ssm_conv).
 */
export const ALWAYS_F32 = /\.(ffn_gate_inp|ssm_conv1d|shortconv\.conv)\.weight$/;

/** The dimensions every family shares, resolved from the options. */
export interface Shape {
  embedding: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headSize: number;
  ff: number;
  /** Attention window of sliding-window layers, in tokens. */
  window: number;
}

/** Adds tensors: random matrices, constant vectors (norms: 1). */
export interface TensorSink {
  matrix(name: string, dims: readonly number[]): void;
  /** A constant tensor (default 1, as a norm's weight). */
  vector(name: string, dims: number | readonly number[], value?: number): void;
}

export interface Family {
  /** `${arch}.…` metadata beyond the shared keys, keys given without the prefix. */
  metadata(s: Shape): Array<readonly [string, GgufValue]>;
  /** The tensors of layer `i` (named `blk.i.…`). */
  layer(t: TensorSink, blk: string, i: number, s: Shape): void;
  /** Tensors outside the layers besides token_embd and output (default: output_norm). */
  globals?(t: TensorSink, s: Shape): void;
  /** Whether the embedding is tied (no output.weight). Default false. */
  tiedOutput?: boolean;
}

const attention = (t: TensorSink, blk: string, s: Shape, q = s.heads * s.headSize) => {
  const kv = s.kvHeads * s.headSize;
  t.matrix(`${blk}.attn_q.weight`, [s.embedding, q]);
  t.matrix(`${blk}.attn_k.weight`, [s.embedding, kv]);
  t.matrix(`${blk}.attn_v.weight`, [s.embedding, kv]);
  t.matrix(`${blk}.attn_output.weight`, [s.heads * s.headSize, s.embedding]);
};
const headNorms = (t: TensorSink, blk: string, s: Shape) => {
  t.vector(`${blk}.attn_q_norm.weight`, s.headSize);
  t.vector(`${blk}.attn_k_norm.weight`, s.headSize);
};
const feedForward = (t: TensorSink, blk: string, s: Shape) => {
  t.matrix(`${blk}.ffn_gate.weight`, [s.embedding, s.ff]);
  t.matrix(`${blk}.ffn_up.weight`, [s.embedding, s.ff]);
  t.matrix(`${blk}.ffn_down.weight`, [s.ff, s.embedding]);
};
export /**
 * Whether layer `i` is the model's kind of every-`n`th layer; with fewer than `n` layers the last one
 * is, so that a small model keeps at least one (a model without attention layers has no KV cache).
 */
const everyNth = (i: number, n: number, s: Shape) => (i + 1) % Math.min(n, s.layers) === 0;

export const outputNorm = (t: TensorSink, s: Shape) => t.vector('output_norm.weight', s.embedding);

/** llama / qwen2 (q/k/v biases optional) / qwen3 (per-head q/k norms). */
const transformer = (qkNorms: boolean): Family => ({
  metadata: () => [],
  layer(t, blk, _i, s) {
    t.vector(`${blk}.attn_norm.weight`, s.embedding);
    attention(t, blk, s);
    if (qkNorms) headNorms(t, blk, s);
    t.vector(`${blk}.ffn_norm.weight`, s.embedding);
    feedForward(t, blk, s);
  },
});

/** Qwen3.5 (src/models/qwen35.cpp): Gated DeltaNet layers, every 4th layer gated full attention. */
const QWEN35_SSM = { convKernel: 4, groups: 2, stateSize: 16, vHeads: 4, attentionEvery: 4 };
const qwen35: Family = {
  metadata(s) {
    const { convKernel, groups, stateSize, vHeads, attentionEvery } = QWEN35_SSM;
    const section = Math.ceil(s.headSize / 6); // M-RoPE: sections of the rotated half (Qwen3.5: 11, 11, 10 of 32)
    return [
      ['rope.dimension_sections', gguf.int32Array([section, section, s.headSize / 2 - 2 * section, 0])],
      ['ssm.conv_kernel', gguf.uint32(convKernel)],
      ['ssm.state_size', gguf.uint32(stateSize)],
      ['ssm.group_count', gguf.uint32(groups)],
      ['ssm.time_step_rank', gguf.uint32(vHeads)],
      ['ssm.inner_size', gguf.uint32(stateSize * vHeads)],
      ['full_attention_interval', gguf.uint32(Math.min(attentionEvery, s.layers))],
    ];
  },
  layer(t, blk, i, s) {
    const { convKernel, groups, stateSize, vHeads, attentionEvery } = QWEN35_SSM;
    t.vector(`${blk}.attn_norm.weight`, s.embedding);
    t.vector(`${blk}.post_attention_norm.weight`, s.embedding);
    if (everyNth(i, attentionEvery, s)) {
      attention(t, blk, s, 2 * s.heads * s.headSize); // the query and its gate
      headNorms(t, blk, s);
    } else {
      const keyDim = stateSize * groups;
      const valueDim = stateSize * vHeads;
      t.matrix(`${blk}.attn_qkv.weight`, [s.embedding, 2 * keyDim + valueDim]);
      t.matrix(`${blk}.attn_gate.weight`, [s.embedding, valueDim]);
      t.matrix(`${blk}.ssm_conv1d.weight`, [convKernel, 2 * keyDim + valueDim]);
      t.vector(`${blk}.ssm_dt.bias`, vHeads, 0);
      t.vector(`${blk}.ssm_a`, vHeads, -1); // decay: A = -exp(A_log) < 0
      t.matrix(`${blk}.ssm_beta.weight`, [s.embedding, vHeads]);
      t.matrix(`${blk}.ssm_alpha.weight`, [s.embedding, vHeads]);
      t.vector(`${blk}.ssm_norm.weight`, stateSize);
      t.matrix(`${blk}.ssm_out.weight`, [valueDim, s.embedding]);
    }
    feedForward(t, blk, s);
  },
};

/** gpt-oss (src/models/openai-moe.cpp): alternate sliding-window and full attention, with sinks; experts. */
const GPT_OSS_EXPERTS = { count: 4, used: 2 };
const gptOss: Family = {
  metadata: (s) => [
    ['expert_count', gguf.uint32(GPT_OSS_EXPERTS.count)],
    ['expert_used_count', gguf.uint32(GPT_OSS_EXPERTS.used)],
    ['expert_feed_forward_length', gguf.uint32(s.ff)],
    ['attention.sliding_window', gguf.uint32(s.window)],
    ['attention.key_length', gguf.uint32(s.headSize)],
    ['attention.value_length', gguf.uint32(s.headSize)],
  ],
  layer(t, blk, _i, s) {
    const n = GPT_OSS_EXPERTS.count;
    t.vector(`${blk}.attn_norm.weight`, s.embedding);
    t.vector(`${blk}.post_attention_norm.weight`, s.embedding);
    attention(t, blk, s);
    t.vector(`${blk}.attn_output.bias`, s.embedding, 0);
    t.vector(`${blk}.attn_sinks.weight`, s.heads, 0);
    t.matrix(`${blk}.ffn_gate_inp.weight`, [s.embedding, n]);
    t.vector(`${blk}.ffn_gate_inp.bias`, n, 0);
    t.matrix(`${blk}.ffn_gate_exps.weight`, [s.embedding, s.ff, n]);
    t.matrix(`${blk}.ffn_up_exps.weight`, [s.embedding, s.ff, n]);
    t.matrix(`${blk}.ffn_down_exps.weight`, [s.ff, s.embedding, n]);
    t.vector(`${blk}.ffn_gate_exps.bias`, [s.ff, n], 0);
    t.vector(`${blk}.ffn_up_exps.bias`, [s.ff, n], 0);
    t.vector(`${blk}.ffn_down_exps.bias`, [s.embedding, n], 0);
  },
};

/** Gemma 4 (src/models/gemma4.cpp): sliding-window layers, every 4th full attention (proportional RoPE). */
const GEMMA4_FULL_EVERY = 4;
const gemma4: Family = {
  metadata: (s) => [
    ['attention.sliding_window', gguf.uint32(s.window)],
    ['attention.sliding_window_pattern', gguf.boolArray(Array.from({ length: s.layers }, (_, i) => !everyNth(i, GEMMA4_FULL_EVERY, s)))],
    ['embedding_length_per_layer_input', gguf.uint32(0)],
    ['attention.key_length', gguf.uint32(s.headSize)],
    ['attention.value_length', gguf.uint32(s.headSize)],
    ['attention.key_length_swa', gguf.uint32(s.headSize)],
    ['attention.value_length_swa', gguf.uint32(s.headSize)],
    ['final_logit_softcapping', gguf.float32(30)],
  ],
  layer(t, blk, _i, s) {
    t.vector(`${blk}.attn_norm.weight`, s.embedding);
    attention(t, blk, s);
    headNorms(t, blk, s);
    t.vector(`${blk}.post_attention_norm.weight`, s.embedding);
    t.vector(`${blk}.ffn_norm.weight`, s.embedding);
    feedForward(t, blk, s);
    t.vector(`${blk}.post_ffw_norm.weight`, s.embedding);
  },
  globals(t, s) {
    outputNorm(t, s);
    t.vector('rope_freqs.weight', s.headSize / 2); // one, shared by the full-attention layers
  },
  tiedOutput: true,
};

/** LFM2 (src/models/lfm2.cpp): short-convolution layers; the layers with key/value heads attend. */
const LFM2 = { conv: 3, attentionEvery: 3 };
const lfm2Attends = (i: number, s: Shape) => everyNth(i, LFM2.attentionEvery, s);
const lfm2: Family = {
  metadata: (s) => [
    ['shortconv.l_cache', gguf.uint32(LFM2.conv)],
    ['attention.head_count_kv', gguf.int32Array(Array.from({ length: s.layers }, (_, i) => (lfm2Attends(i, s) ? s.kvHeads : 0)))],
  ],
  layer(t, blk, i, s) {
    t.vector(`${blk}.ffn_norm.weight`, s.embedding);
    feedForward(t, blk, s);
    t.vector(`${blk}.attn_norm.weight`, s.embedding);
    if (lfm2Attends(i, s)) {
      headNorms(t, blk, s);
      attention(t, blk, s);
    } else {
      t.matrix(`${blk}.shortconv.conv.weight`, [LFM2.conv, s.embedding]);
      t.matrix(`${blk}.shortconv.in_proj.weight`, [s.embedding, 3 * s.embedding]);
      t.matrix(`${blk}.shortconv.out_proj.weight`, [s.embedding, s.embedding]);
    }
  },
  globals: (t, s) => t.vector('token_embd_norm.weight', s.embedding), // LFM2's output norm
  tiedOutput: true,
};

export type FamilyName = 'llama' | 'qwen2' | 'qwen3' | 'qwen35' | 'gpt-oss' | 'gemma4' | 'lfm2';

export const FAMILIES: Readonly<Record<FamilyName, Family>> = {
  llama: transformer(false),
  qwen2: transformer(false),
  qwen3: transformer(true),
  qwen35: qwen35,
  'gpt-oss': gptOss,
  gemma4: gemma4,
  lfm2: lfm2,
};
