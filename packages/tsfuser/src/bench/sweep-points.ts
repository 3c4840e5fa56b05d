// The points of `tsfuser bench --suite sweep`: workload families over the LLM size sweep, as
// nvFuser's benchmark suite sweeps them (batch × hidden, fp32 and bf16, plus hidden + 2/4/8/16 to
// stress vectorization). Shared with tools/bench/sweep_pytorch.py through the points JSON the
// sweep writes, so both sides time exactly the same (family, dtype, rows, hidden).
//
// Invariant: a point list is ordered (family, dtype, rows, hidden) and has no duplicates, so
// `--chunk i/n` splits it into disjoint chunks whose union is the whole sweep.

/**
 * Families tsfuser can express today: last-dim normalizations forward, the backward passes of
 * layer_norm, rms_norm and softmax, a row reduction (with and without an epilogue), and the
 * pointwise families of nvFuser's suite (gelu and its backward, silu·mul, mul, bias add,
 * scale·bias·relu).
 */
export const FIRST_SWEEP_FAMILIES = [
  'softmax',
  'layer_norm',
  'rms_norm',
  'row_sum',
  'layer_norm_bwd',
  'gelu',
  'silu_mul',
  'mul',
  'bias_add',
  'softmax_bwd',
  'rms_norm_bwd',
  'gelu_bwd',
  'scale_bias_relu',
  'reduction_epilogue',
] as const;

/**
 * nvFuser's benchmarks/python families added for issue 38: dropout + layer_norm / rms_norm forward
 * and backward (sweep-dropout-definitions.ts), the backward of silu·mul and scale·bias·relu, the
 * tanh-gelu backward with a reduction over rows or over hidden, the per-row broadcast add and the
 * residual add + rms_norm (sweep-glue-definitions.ts), batch_norm forward and backward in
 * channels-last form, [N·H·W, C] = [rows, hidden] (sweep-batch-norm-definitions.ts), and the
 * cross-entropy loss of [rows, vocab = hidden] logits (sweep-glue-definitions.ts), a 2-D
 * transpose and an embedding lookup (sweep-movement-definitions.ts), and instance_norm forward and
 * backward on [rows / 16, 16, hidden] = [N, C, H·W], group_norm on [rows / 64, 32, 2, hidden]
 * (sweep-batch-norm-definitions.ts; points whose rows N·C does not fit are left out of these).
 */
export const NVF_GLUE_SWEEP_FAMILIES = [
  'dropout_layer_norm',
  'dropout_layer_norm_bwd',
  'dropout_rms_norm',
  'dropout_rms_norm_bwd',
  'silu_mul_bwd',
  'scale_bias_relu_bwd',
  'gelu_bwd_reduction_outer',
  'gelu_bwd_reduction_inner',
  'broadcast_add_inner',
  'rms_norm_add',
  'batch_norm',
  'batch_norm_bwd',
  'cross_entropy',
  'transpose',
  'embedding',
  'instance_norm',
  'instance_norm_bwd',
  'group_norm',
] as const;

/**
 * The rest of nvFuser's benchmarks/python that a rows × hidden point can carry: group_norm
 * backward (sweep-batch-norm-definitions.ts), llama rotate-half RoPE on [1, hidden / 128, rows,
 * 128] = [B, H, S, D] and its backward, a two-way cat along the last dim
 * (sweep-resize-definitions.ts), and the softmax / dropout / mask glue of nanoGPT and HuggingFace
 * attention, forward and backward, on [1, rows / 16, 16, hidden] = [B, H, S_q, S_k]
 * (sweep-attention-definitions.ts).
 */
export const NVF_MODEL_SWEEP_FAMILIES = ['group_norm_bwd', 'rope', 'rope_bwd', 'cat', 'nanogpt_attn', 'nanogpt_attn_bwd', 'huggingface_attn', 'huggingface_attn_bwd'] as const;

/**
 * nvFuser's reduction_axis = 0 parametrizations of test_reduction, test_softmax_fwd and
 * test_softmax_bwd: the sum, softmax and softmax backward over rows (sweep-more-definitions.ts).
 */
export const NVF_OUTER_SWEEP_FAMILIES = ['col_sum', 'softmax_outer', 'softmax_bwd_outer'] as const;

export const SWEEP_FAMILIES = [...FIRST_SWEEP_FAMILIES, ...NVF_GLUE_SWEEP_FAMILIES, ...NVF_MODEL_SWEEP_FAMILIES, ...NVF_OUTER_SWEEP_FAMILIES] as const;
export type SweepFamily = (typeof SWEEP_FAMILIES)[number];

/** Channels of the instance_norm families' [rows / C, C, hidden] view (sweep-batch-norm-definitions.ts re-exports it). */
export const INSTANCE_NORM_CHANNELS = 16;

/** Channels of the group_norm family's [rows / C, 32, C / 32, hidden] view. */
export const GROUP_NORM_CHANNELS = 64;

/** The rope family's head size D (llama's): a point's hidden is H · D. */
export const ROPE_HEAD_SIZE = 128;

/** Queries S_q of the attention families' [1, rows / S_q, S_q, hidden] scores: rows = H · S_q, hidden = S_k. */
export const ATTENTION_QUERIES = 16;

/**
 * Whether a family has a point at rows × hidden: instance_norm needs rows = N · 16, group_norm
 * N · 64, the attention families H · 16, rope (and its backward) hidden = H · 128.
 */
export function familyTakesPoint(family: SweepFamily, rows: number, hidden: number): boolean {
  switch (family) {
    case 'instance_norm':
    case 'instance_norm_bwd':
      return rows % INSTANCE_NORM_CHANNELS === 0;
    case 'group_norm':
    case 'group_norm_bwd':
      return rows % GROUP_NORM_CHANNELS === 0;
    case 'nanogpt_attn':
    case 'nanogpt_attn_bwd':
    case 'huggingface_attn':
    case 'huggingface_attn_bwd':
      return rows % ATTENTION_QUERIES === 0;
    case 'rope':
    case 'rope_bwd':
      return hidden % ROPE_HEAD_SIZE === 0;
    case 'cat':
      return hidden >= 2;
    default:
      return true;
  }
}

export const SWEEP_DTYPES = ['Float', 'BFloat16'] as const;
export type SweepDtype = (typeof SWEEP_DTYPES)[number];

/** Hidden sizes of LLM configurations: GPT-2 small … PaLM-540B. */
export const LLM_HIDDEN_SIZES: readonly number[] = [768, 1024, 1600, 2048, 2560, 4096, 5120, 8192, 12288, 16384, 18432];
/** Batch (rows) sizes: nvFuser's 16 … 16384. */
export const SWEEP_ROWS: readonly number[] = [16, 1024, 8192, 16384];
/** nvFuser's weekly hidden offsets (hidden + k: vectorization-hostile widths). */
export const HIDDEN_OFFSETS: readonly number[] = [2, 4, 8, 16];
/** The sizes the issue-38 sweep measured (rows 16/1024/8192 × 5 hidden sizes): `--sizes measured`. */
export const MEASURED_SIZES: readonly (readonly [number, number])[] = [16, 1024, 8192].flatMap((r) => [768, 2048, 4096, 8192, 16384].map((h) => [r, h] as const));
/** SWEEP_ROWS × LLM_HIDDEN_SIZES: `--sizes llm`. */
export const LLM_SIZES: readonly (readonly [number, number])[] = SWEEP_ROWS.flatMap((r) => LLM_HIDDEN_SIZES.map((h) => [r, h] as const));
/** Hidden sizes whose + 2/4/8/16 neighbours the default sweep takes (small, middle, large). */
export const OFFSET_BASE_HIDDEN: readonly number[] = [768, 4096, 16384];
/**
 * The default sweep: the llm sizes (which contain every measured size), batch 16384 included,
 * and rows 16/1024/8192/16384 × (768, 4096, 16384) + 2/4/8/16 — 92 sizes.
 */
export const DEFAULT_SIZES: readonly (readonly [number, number])[] = [
  ...LLM_SIZES,
  ...SWEEP_ROWS.flatMap((r) => OFFSET_BASE_HIDDEN.flatMap((h) => HIDDEN_OFFSETS.map((o) => [r, h + o] as const))),
];
/**
 * Points per default chunk (`--chunk N`): the H100 took ~1.9 s a point (torch.compile's compile
 * included) on the first families, so 150 points take ~5 minutes, leaving room within one
 * 8-minute device call for torch.compile's longer compiles of the multi-output backward graphs.
 */
export const MAX_POINTS_PER_CHUNK = 150;

/** How many default chunks a point list takes. */
export function defaultChunkCount(points: number): number {
  return Math.max(1, Math.ceil(points / MAX_POINTS_PER_CHUNK));
}

export interface SweepPoint {
  family: SweepFamily;
  dtype: SweepDtype;
  rows: number;
  hidden: number;
}

export interface SweepSelection {
  families?: readonly SweepFamily[];
  dtypes?: readonly SweepDtype[];
  /** rows × hidden pairs; default DEFAULT_SIZES. */
  sizes?: readonly (readonly [number, number])[];
  /** Also hidden + each offset (nvFuser's +2/4/8/16 vectorization stress). */
  hiddenOffsets?: readonly number[];
  /** Skip points whose largest tensor exceeds this many bytes (default 4 GiB). */
  maxTensorBytes?: number;
}

export class SweepSelectionError extends Error {
  override readonly name: string = 'SweepSelectionError';
}

export function elementBytes(dtype: SweepDtype): number {
  return dtype === 'Float' ? 4 : 2;
}

/** Minimal global traffic of a point: inputs read once, outputs written once. */
export function pointBytes(p: SweepPoint): number {
  const e = elementBytes(p.dtype);
  const n = p.rows * p.hidden;
  switch (p.family) {
    case 'softmax':
      return 2 * n * e;
    case 'layer_norm':
      return (2 * n + 2 * p.hidden) * e;
    case 'rms_norm':
      return (2 * n + p.hidden) * e;
    case 'row_sum':
      return n * e + p.rows * e;
    case 'layer_norm_bwd':
      // grad_out and x read, grad_input written; mean and rstd (f32); weight, grad_weight, grad_bias.
      return 3 * n * e + 2 * p.rows * 4 + 3 * p.hidden * e;
    case 'gelu':
      return 2 * n * e;
    case 'silu_mul':
    case 'mul':
      return 3 * n * e;
    case 'bias_add':
      return (2 * n + p.hidden) * e;
    case 'softmax_bwd':
    case 'gelu_bwd':
      return 3 * n * e;
    case 'rms_norm_bwd':
      // grad_out and x read, grad_input written; rstd (f32); weight and grad_weight.
      return 3 * n * e + p.rows * 4 + 2 * p.hidden * e;
    case 'scale_bias_relu':
      return (2 * n + 2 * p.hidden) * e;
    case 'reduction_epilogue':
      return n * e + 2 * p.rows * e;
    case 'dropout_layer_norm':
      // input1, input2 read, y written; weight, bias; mean and invstd (f32) and the mask (1 byte) written.
      return 3 * n * e + 2 * p.hidden * e + 2 * p.rows * 4 + n;
    case 'dropout_layer_norm_bwd':
      // grad_out, input1, input2, mask read; grad_input1, grad_input2 written; mean, invstd; weight, grad_weight, grad_bias.
      return 5 * n * e + n + 2 * p.rows * 4 + 3 * p.hidden * e;
    case 'dropout_rms_norm':
      // input1, input2 read, y written; weight; mask and rms (f32) written.
      return 3 * n * e + p.hidden * e + n + p.rows * 4;
    case 'dropout_rms_norm_bwd':
      // grad_out, input1, input2, mask read; grad_input1, grad_input2 written; rms; weight, grad_weight.
      return 5 * n * e + n + p.rows * 4 + 2 * p.hidden * e;
    case 'silu_mul_bwd':
      return 5 * n * e;
    case 'scale_bias_relu_bwd':
      // grad_out and the mask (1 byte) read, grad_input written; scale.
      return 2 * n * e + n + p.hidden * e;
    case 'gelu_bwd_reduction_outer':
      return 2 * n * e + 2 * p.hidden * e;
    case 'gelu_bwd_reduction_inner':
      return 2 * n * e + (p.hidden + p.rows) * e;
    case 'broadcast_add_inner':
      return (2 * n + p.rows) * e;
    case 'rms_norm_add':
      // x, residual read; y and the new residual written; weight.
      return (4 * n + p.hidden) * e;
    case 'batch_norm':
      // x read, y written; weight, bias; mean and invstd (f32, per column) written.
      return (2 * n + 2 * p.hidden) * e + 2 * p.hidden * 4;
    case 'batch_norm_bwd':
      // x, grad_out read, grad_input written; weight, grad_weight, grad_bias; mean, invstd read.
      return (3 * n + 3 * p.hidden) * e + 2 * p.hidden * 4;
    case 'cross_entropy':
      // logits read; Int64 labels; one f32 loss written.
      return n * e + p.rows * 8 + 4;
    case 'transpose':
      return 2 * n * e;
    case 'embedding':
      // the looked-up rows read once, the output written; Int64 ids.
      return 2 * n * e + p.rows * 8;
    case 'instance_norm':
      // x read, y written; weight, bias (16 channels); mean and invstd (f32, one per row = (n, c)) written.
      return (2 * n + 2 * INSTANCE_NORM_CHANNELS) * e + 2 * p.rows * 4;
    case 'instance_norm_bwd':
      // x, grad_out read, grad_input written; weight, grad_weight, grad_bias; mean, invstd read.
      return (3 * n + 3 * INSTANCE_NORM_CHANNELS) * e + 2 * p.rows * 4;
    case 'group_norm':
      // x read, y written; weight, bias (64 channels).
      return (2 * n + 2 * GROUP_NORM_CHANNELS) * e;
    case 'group_norm_bwd':
      // x, grad_out read, grad_input written; weight, grad_weight, grad_bias; mean, invstd (f32, [N, 32] = rows / 2 each) read.
      return (3 * n + 3 * GROUP_NORM_CHANNELS) * e + 2 * (p.rows / 2) * 4;
    case 'rope':
    case 'rope_bwd':
      // x (grad_out) read, the roped x (grad_input) written; cos and sin [S, D] = [rows, 128].
      return (2 * n + 2 * p.rows * ROPE_HEAD_SIZE) * e;
    case 'cat':
      return 2 * n * e;
    case 'nanogpt_attn':
      // scores read; out and attn written; the dropout mask written (Bool); the [S_q, S_k] f32 bias
      // read; the broadcast causal mask is an expanded (stride-0) Bool output: [S_q, S_k] bytes.
      return 3 * n * e + n + ATTENTION_QUERIES * p.hidden * 5;
    case 'nanogpt_attn_bwd':
      // grad_out, attn, the dropout mask (Bool) read, grad_input written; the [S_q, S_k] Bool causal mask read.
      return 3 * n * e + n + ATTENTION_QUERIES * p.hidden;
    case 'huggingface_attn':
      // attention_mask and scores read; out and attn written; the dropout mask written (Bool).
      return 4 * n * e + n;
    case 'huggingface_attn_bwd':
      // grad_out, attn, the dropout mask read; grad_input written.
      return 3 * n * e + n;
    case 'col_sum':
      return n * e + p.hidden * e;
    case 'softmax_outer':
      return 2 * n * e;
    case 'softmax_bwd_outer':
      return 3 * n * e;
    default: {
      const unreachable: never = p.family;
      throw new SweepSelectionError(`unknown family ${String(unreachable)}`);
    }
  }
}

/** A stable name: `layer_norm_bf16_8192x4096`. */
export function pointName(p: SweepPoint): string {
  return `${p.family}_${p.dtype === 'Float' ? 'f32' : 'bf16'}_${p.rows}x${p.hidden}`;
}

export function sweepPoints(selection: SweepSelection = {}): SweepPoint[] {
  const families = selection.families ?? SWEEP_FAMILIES;
  const dtypes = selection.dtypes ?? SWEEP_DTYPES;
  const offsets = [0, ...(selection.hiddenOffsets ?? [])];
  const maxBytes = selection.maxTensorBytes ?? 4 * 2 ** 30;
  const sizes = selection.sizes ?? DEFAULT_SIZES;
  const points: SweepPoint[] = [];
  const seen = new Set<string>();
  for (const family of families) {
    for (const dtype of dtypes) {
      const pairs = sizes.flatMap(([rows, hidden]) => offsets.map((o) => [rows, hidden + o] as const));
      pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      for (const [rows, hidden] of pairs) {
        const p: SweepPoint = { family, dtype, rows, hidden };
        const key = pointName(p);
        if (seen.has(key) || rows * hidden * elementBytes(dtype) > maxBytes || !familyTakesPoint(family, rows, hidden)) continue;
        seen.add(key);
        points.push(p);
      }
    }
  }
  return points;
}

/** Chunk `index` (0-based) of `count` near-equal contiguous chunks. */
export function chunkOf<T>(items: readonly T[], index: number, count: number): T[] {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new SweepSelectionError(`chunk ${index + 1}/${count} does not exist (write --chunk i/n with 1 ≤ i ≤ n)`);
  }
  const start = Math.floor((index * items.length) / count);
  const end = Math.floor(((index + 1) * items.length) / count);
  return items.slice(start, end);
}

function parseList<T extends string>(what: string, text: string, allowed: readonly T[], alias: (s: string) => string = (s) => s): T[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const v = alias(s);
      if (!(allowed as readonly string[]).includes(v)) throw new SweepSelectionError(`--${what}: unknown '${s}' (known: ${allowed.join(', ')})`);
      return v as T;
    });
}

export function parseFamilies(text: string): SweepFamily[] {
  return parseList('family', text, SWEEP_FAMILIES);
}

export function parseDtypes(text: string): SweepDtype[] {
  const alias = (s: string): string => ({ f32: 'Float', float32: 'Float', bf16: 'BFloat16', bfloat16: 'BFloat16' })[s.toLowerCase()] ?? s;
  return parseList('dtype', text, SWEEP_DTYPES, alias);
}

/** `16x768,1024x4096` → pairs; `llm`, `measured`, `default` → those size sets. */
export function parseSizes(text: string): [number, number][] {
  const sets: Record<string, readonly (readonly [number, number])[]> = { llm: LLM_SIZES, measured: MEASURED_SIZES, default: DEFAULT_SIZES };
  const named = Object.hasOwn(sets, text.trim()) ? sets[text.trim()] : undefined;
  if (named !== undefined) return named.map(([r, h]): [number, number] => [r, h]);
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s): [number, number] => {
      const m = /^(\d+)x(\d+)$/.exec(s);
      const rows = m === null ? NaN : Number(m[1]);
      const hidden = m === null ? NaN : Number(m[2]);
      if (!Number.isSafeInteger(rows) || !Number.isSafeInteger(hidden) || rows < 1 || hidden < 1) {
        throw new SweepSelectionError(`--sizes: '${s}' is not ROWSxHIDDEN with positive integers (or llm, measured, default)`);
      }
      return [rows, hidden];
    });
}

/** `2/3` → chunk index 1 of 3; `2` → chunk index 1 of the default count (count left to the caller). */
export function parseChunk(text: string): { index: number; count?: number } {
  const m = /^(\d+)(?:\/(\d+))?$/.exec(text.trim());
  if (m === null) throw new SweepSelectionError(`--chunk: '${text}' is not i/n or i`);
  const index = Number(m[1]) - 1;
  if (m[2] === undefined) {
    if (index < 0) throw new SweepSelectionError(`--chunk: ${text} does not exist (chunks count from 1)`);
    return { index };
  }
  const count = Number(m[2]);
  if (count < 1 || index < 0 || index >= count) throw new SweepSelectionError(`--chunk: ${text} does not exist (1 ≤ i ≤ n)`);
  return { index, count };
}

/** `--chunk` resolved against the selection's points: `i` alone is chunk i of defaultChunkCount. */
export function resolveChunk(chunk: { index: number; count?: number }, points: number): { index: number; count: number } {
  const count = chunk.count ?? defaultChunkCount(points);
  if (chunk.index >= count) throw new SweepSelectionError(`--chunk: ${chunk.index + 1} does not exist: ${points} points make ${count} default chunks of at most ${MAX_POINTS_PER_CHUNK}`);
  return { index: chunk.index, count };
}
