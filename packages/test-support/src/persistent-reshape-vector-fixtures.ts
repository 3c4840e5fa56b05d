// Reshapes after the row in inner persistent kernels whose output stores are vectorized through
// the reshape (scheduler loops-past-views.ts): the attention prologue reshape + layer_norm +
// reshape back at odd row counts, odd and non-power-of-two hidden sizes (the vector drops to 4,
// or to scalar stores when the hidden size is odd) and a persistent batch that does not divide
// the row's vectors, several rows per block (threadIdx.y) not dividing the rows; softmax over heads split out of the row and merged back; rms_norm over a
// merged row reshaped back; a layer_norm whose reshape splits the row into a dim the vector
// must divide; size-1 dims the reshape adds (leading, middle, trailing: broadcast dims the row
// lacks) and HuggingFace attention backward's glue reshaped to [1, H, S_q, S_k]. Each names the store vector width (`storeVector`, elements) its output gets at
// these sizes with the default H100 heuristics, 1 for scalar stores.
import { broadcast, cast, Fusion, layerNorm, makeTensor, mul, reshape, rmsNorm, softmax, sub, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { reshapeLayerNormPrologue } from './persistent-reshape-fixtures.js';
import type { ShapeOpsFixture } from './shape-ops-fixtures.js';
import { randomTensor } from './shape-ops-values.js';

export interface VectorReshapeFixture extends ShapeOpsFixture {
  /** Elements per store of the (reshaped) output. */
  storeVector: number;
  /** Rows per block (threadIdx.y) the heuristics pick, where the case is about it. */
  rowsPerBlock?: number;
  /**
   * The store's index still divides: the output's dims around a size-1 dim in the middle are
   * indexed through the reshape's splits of the row index (once per vector), not linearly.
   */
  storeIndexDivides?: boolean;
}

function oneInput(name: string, dtype: DataType, sizes: number[], build: (x: TensorView) => TensorView, storeVector: number): VectorReshapeFixture {
  const fusion = new Fusion();
  const x = makeTensor(fusion, { shape: sizes.map(() => -1), dtype });
  fusion.addInput(x);
  fusion.addOutput(build(x));
  return { name, fusion, inputs: (r) => [randomTensor(dtype, sizes, r)], segments: 'inner_persistent', storeVector };
}

/**
 * HuggingFace attention backward's glue on [B·H, S_q, S_k] (dy, attn in `dtype`, the keep mask
 * Bool): attn · (d − Σ_keys attn · d), d = dy · keep · 1.25, reshaped to [1, B·H, S_q, S_k]
 * (the sweep's huggingface_attn_bwd), or left [B·H, S_q, S_k] with `reshapeBack` false.
 */
export function huggingfaceAttnBackwardGlue(dtype: DataType, heads: number, queries: number, keys: number, reshapeBack = true): Fusion {
  const fusion = new Fusion();
  const input = (d: DataType): TensorView => {
    const t = makeTensor(fusion, { shape: [-1, -1, -1], dtype: d });
    fusion.addInput(t);
    return cast(t, 'Float');
  };
  const [dy, a, keep] = [input(dtype), input(dtype), input('Bool')];
  const d = mul(mul(dy, 1.25), keep);
  const s = broadcast(sum(mul(a, d), [2]), [false, false, true]);
  const grad = mul(a, sub(d, s));
  fusion.addOutput(cast(reshapeBack ? reshape(grad, [1, heads, queries, keys]) : grad, dtype));
  return fusion;
}

function huggingfaceAttnBackward(dtype: DataType, heads: number, queries: number, keys: number, storeVector: number): VectorReshapeFixture {
  const sizes = [heads, queries, keys];
  return {
    name: `huggingface_attn_bwd_${dtype}_${heads}x${queries}x${keys}`,
    fusion: huggingfaceAttnBackwardGlue(dtype, heads, queries, keys),
    inputs: (r) => [randomTensor(dtype, sizes, r), randomTensor(dtype, sizes, r), randomTensor('Bool', sizes, r)],
    segments: 'inner_persistent',
    storeVector,
  };
}

function prologue(dtype: DataType, b: number, s: number, h: number, storeVector: number): VectorReshapeFixture {
  return { ...reshapeLayerNormPrologue(dtype, b, s, h, `prologue_${dtype}_${b}x${s}x${h}`), storeVector };
}

export function vectorReshapeFixtures(): VectorReshapeFixture[] {
  return [
    prologue('BFloat16', 3, 5, 40, 8), // 15 rows, 5 vectors per row
    prologue('BFloat16', 3, 7, 36, 4), // hidden 36: the vector drops to 4
    prologue('Half', 5, 7, 33, 1), // odd hidden: scalar loads and stores
    prologue('Float', 3, 37, 1024, 4), // 111 rows
    prologue('BFloat16', 2, 3, 2056, 8), // 257 vectors per row: the persistent batch does not divide them
    { ...prologue('BFloat16', 43, 37, 16, 8), rowsPerBlock: 8 }, // 1591 rows, 8 per block: the last block's rows are predicated
    oneInput('softmax_heads_split_from_row_bf16', 'BFloat16', [12, 96], (x) => reshape(softmax(reshape(x, [12, 3, 32]), 2), [12, 96]), 8),
    oneInput('rms_norm_merged_row_reshaped_back_f16', 'Half', [10, 4, 16], (x) => reshape(rmsNorm(reshape(x, [10, 64]), 1, null, 1e-6).output, [10, 4, 16]), 8),
    oneInput('layer_norm_row_split_inner_36_bf16', 'BFloat16', [9, 72], (x) => reshape(layerNorm(x, 1).output, [9, 2, 36]), 4),
    // Size-1 dims the reshape adds (HuggingFace attention backward's [B·H, S_q, S_k] → [1, H, S_q,
    // S_k]): broadcast dims the row lacks, folded into the row's vec loop, stored with the vector.
    oneInput('softmax_reshaped_back_leading_one_bf16', 'BFloat16', [6, 4, 40], (x) => reshape(softmax(x, 2), [1, 6, 4, 40]), 8),
    { ...oneInput('softmax_reshaped_back_middle_one_f32', 'Float', [5, 3, 64], (x) => reshape(softmax(x, 2), [5, 1, 3, 64]), 4), storeIndexDivides: true },
    oneInput('softmax_reshaped_back_trailing_one_f16', 'Half', [7, 2, 24], (x) => reshape(softmax(x, 2), [7, 2, 24, 1]), 8),
    oneInput('softmax_merged_with_leading_ones_bf16', 'BFloat16', [5, 3, 48], (x) => reshape(softmax(x, 2), [1, 1, 15, 48]), 8),
    oneInput('softmax_leading_one_odd_row_bf16', 'BFloat16', [3, 5, 33], (x) => reshape(softmax(x, 2), [1, 3, 5, 33]), 1),
    huggingfaceAttnBackward('BFloat16', 6, 4, 2056, 8), // 257 vectors per row: the persistent batch does not divide them
    huggingfaceAttnBackward('Float', 3, 16, 96, 4),
  ];
}
