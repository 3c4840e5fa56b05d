// Sweep families of nvFuser's benchmarks/python test_nanogpt_attn_{fwd,bwd} and
// test_huggingface_attn_{fwd,bwd}: the non-matmul glue of attention (scale, causal mask or added
// attention mask, softmax over the keys, dropout p = 0.2), in python_definition form with fp32
// math. A point's scores are [B, H, S_q, S_k] = [1, rows / 16, 16, hidden]: rows = H · S_q softmax
// rows of S_k = hidden keys (nvFuser's S_q = S_k ≤ 512 does not fit a rows × hidden point; a
// 16-query block of a long key sequence keeps the softmax rows and the mask broadcast over the
// heads). nanoGPT's causal bias is [1, 1, S_q, S_k] (f32, 1 = visible, the last S_q keys
// bottom-right aligned), its backward takes the Boolean `bias == 0` of the same size. The
// forward's broadcast mask output, as nvFuser's, is an expanded (stride-0) tensor.
// The forward draws its keep mask in the kernel (rand_like with the dropout families' seed and
// offset as Int scalars, not nvFuser's unseeded uniform, so a test can redraw it) and returns it
// as nvFuser's does. tools/bench/sweep_pytorch_model.py times the same outputs on the PyTorch side.

import { HostTensor } from '@tsfuser/fusion-ir';
import { ATTENTION_QUERIES } from './sweep-points.js';
import { SWEEP_DROPOUT_P } from './sweep-dropout-definitions.js';

/** nanoGPT's scores scale 1/√head_size for GPT-2's head size 64. */
export const SWEEP_ATTENTION_HEAD_SIZE = 64;

const scores = (t: string, dtype: string, dims = 4): string =>
  `    ${t} = fd.define_tensor(shape=[${Array(dims).fill('-1').join(', ')}], contiguity=[${Array(dims).fill('True').join(', ')}], dtype=DataType.${dtype}, is_cpu=False)\n`;
const queryKey = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[1, 1, -1, -1], contiguity=[None, None, True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;
const seedOffset = `    S90 = fd.define_scalar(None, dtype=DataType.Int)
    S91 = fd.define_scalar(None, dtype=DataType.Int)
`;

/** Softmax over the last of `rank` dims of X (Float), shape `shape`: P43 = exp(X − max) / Σ. */
function softmaxLast(x: string, shape: string, rank: number): string {
  const last = rank - 1;
  const keep = `[${Array.from({ length: last }, (_, i) => i).join(', ')}]`;
  return `    T40 = fd.ops.max(${x}, dims=[${last}], keepdim=False, dtype=DataType.Null)
    T41 = fd.ops.exp(fd.ops.sub(${x}, fd.ops.broadcast_in_dim(T40, shape=${shape}, broadcast_dims=${keep})))
    T42 = fd.ops.sum(T41, dims=[${last}], keepdim=False, dtype=DataType.Null)
    P43 = fd.ops.mul(T41, fd.ops.reciprocal(fd.ops.broadcast_in_dim(T42, shape=${shape}, broadcast_dims=${keep})))
`;
}

/** The keep mask K53 = rand_like(P43) < 1 − p and O57 = P43 · K53 / (1 − p). */
const dropout = `    T51 = fd.ops.rand_like(P43, rng_seed=S90, rng_offset=S91)
    S52 = fd.define_scalar(${1 - SWEEP_DROPOUT_P}, dtype=DataType.Double)
    K53 = fd.ops.lt(T51, S52)
    S56 = fd.define_scalar(${1 / (1 - SWEEP_DROPOUT_P)}, dtype=DataType.Double)
    O57 = fd.ops.mul(fd.ops.mul(P43, fd.ops.cast(K53, dtype=DataType.Float)), S56)
`;

/**
 * nanoGPT attention forward glue: masked_fill(x / √64, bias == 0, −inf), softmax, dropout.
 * Inputs: scores [B, H, S_q, S_k], bias [1, 1, S_q, S_k] (f32), seed, offset. Outputs (nvFuser's):
 * out, keep mask (Bool), attn (the softmax), the causal mask broadcast to the scores' shape (Bool).
 */
export function nanogptAttnDef(dtype: string): string {
  return `def nanogpt_attn(fd : FusionDefinition) -> None :
${scores('T0', dtype)}${queryKey('T1', 'Float')}${seedOffset}    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    S3 = fd.define_scalar(${1 / Math.sqrt(SWEEP_ATTENTION_HEAD_SIZE)}, dtype=DataType.Double)
    T4 = fd.ops.mul(T2, S3)
    S5 = fd.define_scalar(0.00000, dtype=DataType.Double)
    B11 = fd.ops.broadcast_in_dim(fd.ops.eq(T1, S5), shape=T0.shape(), broadcast_dims=[0, 1, 2, 3])
    S12 = fd.define_scalar(float("-inf"), dtype=DataType.Double)
    T13 = fd.ops.where(B11, S12, T4)
${softmaxLast('T13', 'T0.shape()', 4)}${dropout}    fd.add_output(fd.ops.cast(O57, dtype=DataType.${dtype}))
    fd.add_output(K53)
    fd.add_output(fd.ops.cast(P43, dtype=DataType.${dtype}))
    fd.add_output(B11)
`;
}

/**
 * nanoGPT attention backward glue: with d = dy · keep / (1 − p), dx = where(masked, 0,
 * attn · (d − Σ_keys attn · d)) / √64. Inputs (nvFuser's order): grad_out, attn, keep mask (Bool),
 * causal mask bias == 0 (Bool [1, 1, S_q, S_k]). Output: grad of the scores.
 */
export function nanogptAttnBackwardDef(dtype: string): string {
  return `def nanogpt_attn_bwd(fd : FusionDefinition) -> None :
${scores('T2', dtype)}${scores('T3', dtype)}${scores('T4', 'Bool')}${queryKey('T5', 'Bool')}    S0 = fd.define_scalar(${1 / (1 - SWEEP_DROPOUT_P)}, dtype=DataType.Double)
    S1 = fd.define_scalar(${1 / Math.sqrt(SWEEP_ATTENTION_HEAD_SIZE)}, dtype=DataType.Double)
    T6 = fd.ops.cast(T3, dtype=DataType.Float)
    T8 = fd.ops.mul(fd.ops.mul(fd.ops.cast(T2, dtype=DataType.Float), S0), fd.ops.cast(T4, dtype=DataType.Float))
    T9 = fd.ops.mul(T6, T8)
    T10 = fd.ops.sum(T9, dims=[3], keepdim=False, dtype=DataType.Null)
    T22 = fd.ops.broadcast_in_dim(T10, shape=T2.shape(), broadcast_dims=[0, 1, 2])
    T24 = fd.ops.mul(T6, fd.ops.sub(T8, T22))
    S25 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T26 = fd.ops.where(fd.ops.broadcast_in_dim(T5, shape=T2.shape(), broadcast_dims=[0, 1, 2, 3]), S25, T24)
    fd.add_output(fd.ops.cast(fd.ops.mul(T26, S1), dtype=DataType.${dtype}))
`;
}

/**
 * HuggingFace attention forward glue: softmax of (scores + attention_mask) viewed as
 * [B·H, S_q, S_k], dropout. Inputs (nvFuser's order): attention_mask, scores (both [B, H, S_q,
 * S_k]), seed, offset. Outputs: out, attn ([B·H, S_q, S_k]), keep mask (Bool).
 */
export function huggingfaceAttnDef(dtype: string): string {
  const shape = '[fd.ops.mul(T0.size(0), T0.size(1)), T0.size(2), T0.size(3)]';
  return `def huggingface_attn(fd : FusionDefinition) -> None :
${scores('T0', dtype)}${scores('T1', dtype)}${seedOffset}    T4 = fd.ops.add(fd.ops.cast(T1, dtype=DataType.Float), fd.ops.cast(T0, dtype=DataType.Float))
    T10 = fd.ops.reshape(T4, new_shape=${shape})
${softmaxLast('T10', shape, 3)}${dropout}    fd.add_output(fd.ops.cast(O57, dtype=DataType.${dtype}))
    fd.add_output(fd.ops.cast(P43, dtype=DataType.${dtype}))
    fd.add_output(K53)
`;
}

/**
 * HuggingFace attention backward glue: attn · (d − Σ_keys attn · d), d = dy · keep / (1 − p),
 * reshaped back to [B = 1, H, S_q, S_k]. Inputs: grad_out, attn, keep mask (Bool), all [B·H, S_q, S_k].
 */
export function huggingfaceAttnBackwardDef(dtype: string): string {
  return `def huggingface_attn_bwd(fd : FusionDefinition) -> None :
${scores('T5', dtype, 3)}${scores('T6', dtype, 3)}${scores('T7', 'Bool', 3)}    S0 = fd.define_scalar(${1 / (1 - SWEEP_DROPOUT_P)}, dtype=DataType.Double)
    T8 = fd.ops.cast(T6, dtype=DataType.Float)
    T11 = fd.ops.mul(fd.ops.mul(fd.ops.cast(T5, dtype=DataType.Float), S0), fd.ops.cast(T7, dtype=DataType.Float))
    T14 = fd.ops.sum(fd.ops.mul(T8, T11), dims=[2], keepdim=False, dtype=DataType.Null)
    T25 = fd.ops.broadcast_in_dim(T14, shape=T5.shape(), broadcast_dims=[0, 1])
    T28 = fd.ops.mul(T8, fd.ops.sub(T11, T25))
    T35 = fd.ops.reshape(T28, new_shape=[1, T5.size(0), T5.size(1), T5.size(2)])
    fd.add_output(fd.ops.cast(T35, dtype=DataType.${dtype}))
`;
}

/** Whether query q (of ATTENTION_QUERIES, the last ones of the sequence) sees key k of `keys`. */
export function causallyVisible(q: number, k: number, keys: number): boolean {
  return k <= keys - ATTENTION_QUERIES + q;
}

/** nanoGPT's causal bias for S_q = 16 queries over `keys`: [1, 1, 16, keys] f32, 1 visible, 0 masked. */
export function causalBias(keys: number): HostTensor {
  const v = Array.from({ length: ATTENTION_QUERIES * keys }, (_, i) => (causallyVisible(Math.floor(i / keys), i % keys, keys) ? 1 : 0));
  return HostTensor.fromValues('Float', [1, 1, ATTENTION_QUERIES, keys], v);
}

/** The backward's causal mask bias == 0: [1, 1, 16, keys] Bool, true where masked. */
export function causalMasked(keys: number): HostTensor {
  const v = Array.from({ length: ATTENTION_QUERIES * keys }, (_, i) => !causallyVisible(Math.floor(i / keys), i % keys, keys));
  return HostTensor.fromValues('Bool', [1, 1, ATTENTION_QUERIES, keys], v);
}
