// Slice / pad / cat inside inner persistent (normalization) kernels (issue 20), shared by
// codegen's simulation and nvcc tests and the GPU shape-ops suite: softmax over a padded row
// (Float, and BFloat16 where the row vectorizes), a layer_norm-like centering over a cat of two
// inputs and layer_norm(weight, bias) over a cat (BFloat16), softmax over a stepped slice of
// rows and row (Half), log_softmax over a pad of the rows, rms_norm followed by RoPE's
// rotate-half (slice + neg + cat of the normalized row, times cos / sin: Llama's q/k norm; Float
// and BFloat16), a slice of the normalized row written as an output (the (c): stored at
// the shifted index; Float, BFloat16 vectorized, an odd window, a window of rows and columns
// beside the whole row) — each one inner_persistent
// kernel; batch_norm-like normalizations over the rows of a cat of rows and of a pad of the
// columns (Float, BFloat16) — one outer_persistent kernel each; layer_norm backward over a cat
// (BFloat16) — one inner_outer_persistent kernel; and the boundaries that remain:
// a pad of the normalized row written as an output, a pad of the rows after the reduction. Each
// names the segments the default registry gives it.
import {
  add, broadcast, cast, cat, div, exp, Fusion, layerNorm, logSoftmax, makeTensor, max, mul, neg, pad, rmsNorm, rsqrt, slice, softmax, sub, sum,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import type { ShapeOpsFixture } from './shape-ops-fixtures.js';
import { randomTensor } from './shape-ops-values.js';

interface Spec {
  dtype: DataType;
  sizes: number[];
}

function fixture(name: string, specs: Spec[], build: (xs: TensorView[]) => TensorView[], segments: string): ShapeOpsFixture {
  const fusion = new Fusion();
  const xs = specs.map((s) => {
    const x = makeTensor(fusion, { shape: s.sizes.map(() => -1), dtype: s.dtype });
    fusion.addInput(x);
    return x;
  });
  for (const o of build(xs)) fusion.addOutput(o);
  return { name, fusion, inputs: (r) => specs.map((s) => randomTensor(s.dtype, s.sizes, r)), segments };
}

const at = (xs: TensorView[], i: number): TensorView => xs[i] as TensorView;
const toFloat = (t: TensorView): TensorView => (t.dtype === 'Float' ? t : cast(t, 'Float'));
const back = (t: TensorView, dtype: DataType): TensorView => (dtype === 'Float' ? t : cast(t, dtype));

/** (a) T1 = pad(T0, [0, 8]) then max / sub / exp / sum / div over the row. */
export function softmaxOverPad(dtype: DataType, rows: number, row: number): ShapeOpsFixture {
  return fixture(`softmax_over_pad_${dtype}_${rows}x${row}`, [{ dtype, sizes: [rows, row] }], (xs) => {
    const t1 = pad(toFloat(at(xs, 0)), [0, 8, 0, 0], 0);
    const m = broadcast(max(t1, [1]), [false, true]);
    const e = exp(sub(t1, m));
    return [back(div(e, broadcast(sum(e, [1]), [false, true])), dtype)];
  }, 'inner_persistent');
}

/** (b) T2 = cat([T0, T1], 1), then T2 − sum(T2) over the row. */
function centerOverCat(): ShapeOpsFixture {
  const F: DataType = 'Float';
  return fixture('center_over_cat_Float', [{ dtype: F, sizes: [6, 32] }, { dtype: F, sizes: [6, 17] }], (xs) => {
    const t2 = cat([at(xs, 0), at(xs, 1)], 1);
    return [sub(t2, broadcast(sum(t2, [1]), [false, true]))];
  }, 'inner_persistent');
}

/** layer_norm(weight, bias) over cat([a, b], 1), in BFloat16 (the row vectorizes: 64 + 32). */
function layerNormOverCat(): ShapeOpsFixture {
  const B: DataType = 'BFloat16';
  return fixture('layer_norm_over_cat_BFloat16', [{ dtype: B, sizes: [8, 64] }, { dtype: B, sizes: [8, 32] }, { dtype: B, sizes: [96] }, { dtype: B, sizes: [96] }], (xs) => {
    const row = cat([toFloat(at(xs, 0)), toFloat(at(xs, 1))], 1);
    return [cast(layerNorm(row, 1, toFloat(at(xs, 2)), toFloat(at(xs, 3)), 1e-5).output, B)];
  }, 'inner_persistent');
}

/** rms_norm over D then RoPE's rotate-half of the normalized row: y·cos + cat([−y[D/2:], y[:D/2]])·sin. */
export function rmsNormRope(dtype: DataType, rows: number, d: number): ShapeOpsFixture {
  const specs = [{ dtype, sizes: [rows, d] }, { dtype, sizes: [d] }, { dtype, sizes: [rows, d] }, { dtype, sizes: [rows, d] }];
  return fixture(`rms_norm_rope_${dtype}_${rows}x${d}`, specs, (xs) => {
    const y = rmsNorm(toFloat(at(xs, 0)), 1, toFloat(at(xs, 1)), 1e-6).output;
    const half = d / 2;
    const rot = cat([neg(slice(y, [0, half], [rows, d], [1, 1])), slice(y, [0, 0], [rows, half], [1, 1])], 1);
    return [back(add(mul(y, toFloat(at(xs, 2))), mul(rot, toFloat(at(xs, 3)))), dtype)];
  }, 'inner_persistent');
}

/** softmax over a stepped slice of rows and row, in Half. */
function softmaxOverSteppedSlice(): ShapeOpsFixture {
  const H: DataType = 'Half';
  return fixture('softmax_over_stepped_slice_Half', [{ dtype: H, sizes: [11, 45] }], (xs) => [cast(softmax(slice(toFloat(at(xs, 0)), [1, 2], [11, 45], [2, 3]), 1), H)], 'inner_persistent');
}

/** log_softmax over a pad of the rows (a kept dim; the padded rows are all the pad value). */
function logSoftmaxOverRowPad(): ShapeOpsFixture {
  return fixture('log_softmax_over_row_pad_Float', [{ dtype: 'Float', sizes: [5, 24] }], (xs) => [logSoftmax(pad(at(xs, 0), [0, 0, 2, 1], 0.5), 1)], 'inner_persistent');
}

/** (c) T5 = x − sum(x); a slice of T5 (columns start:stop) written as an output: stored at the shifted index. */
export function sliceOfNormalizedRow(dtype: DataType, rows: number, row: number, start: number, stop: number): ShapeOpsFixture {
  return fixture(`slice_of_normalized_row_${dtype}_${rows}x${row}_${start}_${stop}`, [{ dtype, sizes: [rows, row] }], (xs) => {
    const x = toFloat(at(xs, 0));
    const t5 = sub(x, broadcast(sum(x, [1]), [false, true]));
    return [back(slice(t5, [0, start], [rows, stop], [1, 1]), dtype)];
  }, 'inner_persistent');
}

/** A window of rows and columns of the normalized row written as an output (a kept dim sliced: nothing read shifted). */
function windowOfNormalizedRows(): ShapeOpsFixture {
  return fixture('window_of_normalized_rows_BFloat16_7x32', [{ dtype: 'BFloat16', sizes: [7, 32] }], (xs) => {
    const x = toFloat(at(xs, 0));
    const t5 = sub(x, broadcast(sum(x, [1]), [false, true]));
    return [cast(slice(t5, [2, 8], [5, 24], [1, 1]), 'BFloat16'), t5];
  }, 'inner_persistent');
}

/** A pad of the normalized row written as an output: its pad region is no point of the row's loops (a boundary). */
function padOfNormalizedRow(): ShapeOpsFixture {
  return fixture('pad_of_normalized_row_Float', [{ dtype: 'Float', sizes: [6, 32] }], (xs) => {
    const t5 = sub(at(xs, 0), broadcast(sum(at(xs, 0), [1]), [false, true]));
    return [pad(t5, [2, 2], 0)];
  }, 'reduction+pointwise');
}

/** A pad of the rows after the row's reduction: the statistics would be wanted at shifted rows (a boundary). */
function rowPadAfterReduction(): ShapeOpsFixture {
  return fixture('row_pad_after_reduction_Float', [{ dtype: 'Float', sizes: [6, 32] }], (xs) => {
    const y = sub(at(xs, 0), broadcast(sum(at(xs, 0), [1]), [false, true]));
    return [add(slice(pad(y, [0, 0, 1, 0], 0), [0, 0], [6, 32], [1, 1]), y)];
  }, '*');
}

/** Outer persistent (batch_norm-like, over the rows): (x − mean(x, 0))·rsqrt(var + eps) of cat([a, b], 0), and of pad(x) over the columns. */
function batchNormLikeOverResize(kind: 'cat' | 'pad', dtype: DataType): ShapeOpsFixture {
  const specs = kind === 'cat' ? [{ dtype, sizes: [40, 24] }, { dtype, sizes: [24, 24] }] : [{ dtype, sizes: [64, 13] }];
  return fixture(`batch_norm_like_over_${kind}_${dtype}`, specs, (xs) => {
    const x = kind === 'cat' ? cat([toFloat(at(xs, 0)), toFloat(at(xs, 1))], 0) : pad(toFloat(at(xs, 0)), [1, 2], 0.5);
    const mean = (t: TensorView): TensorView => div(broadcast(sum(t, [0]), [true, false]), 64);
    const c = sub(x, mean(x));
    return [back(mul(c, rsqrt(add(mean(mul(c, c)), 1e-5))), dtype)];
  }, 'outer_persistent');
}

/** Inner-outer persistent: layer_norm backward whose x is cat([x1, x2], 1) (the row 40 = 32 + 8), BFloat16 rows. */
function layerNormBackwardOverCat(): ShapeOpsFixture {
  const B: DataType = 'BFloat16';
  const F: DataType = 'Float';
  const specs = [{ dtype: B, sizes: [24, 40] }, { dtype: B, sizes: [24, 32] }, { dtype: B, sizes: [24, 8] }, { dtype: F, sizes: [24] }, { dtype: F, sizes: [24] }, { dtype: B, sizes: [40] }];
  return fixture('layer_norm_backward_over_cat_BFloat16', specs, (xs) => {
    const go = toFloat(at(xs, 0));
    const x = cat([toFloat(at(xs, 1)), toFloat(at(xs, 2))], 1);
    const rstd = broadcast(at(xs, 4), [false, true]);
    const xhat = mul(sub(x, broadcast(at(xs, 3), [false, true])), rstd);
    const g = mul(go, broadcast(toFloat(at(xs, 5)), [true, false]));
    const a = broadcast(sum(mul(g, xhat), [1]), [false, true]);
    const b = broadcast(sum(g, [1]), [false, true]);
    const gi = mul(sub(sub(g, div(b, 40)), div(mul(xhat, a), 40)), rstd);
    return [cast(gi, B), sum(mul(go, xhat), [0]), sum(go, [0])];
  }, 'inner_outer_persistent');
}

export function persistentResizeFixtures(): ShapeOpsFixture[] {
  return [
    softmaxOverPad('Float', 6, 32),
    softmaxOverPad('BFloat16', 6, 64),
    centerOverCat(),
    layerNormOverCat(),
    rmsNormRope('Float', 6, 10),
    rmsNormRope('BFloat16', 12, 64),
    softmaxOverSteppedSlice(),
    logSoftmaxOverRowPad(),
    sliceOfNormalizedRow('Float', 6, 32, 0, 16),
    sliceOfNormalizedRow('BFloat16', 6, 64, 8, 40),
    sliceOfNormalizedRow('Float', 5, 37, 3, 29),
    windowOfNormalizedRows(),
    padOfNormalizedRow(),
    rowPadAfterReduction(),
    batchNormLikeOverResize('cat', 'Float'),
    batchNormLikeOverResize('pad', 'BFloat16'),
    layerNormBackwardOverCat(),
  ];
}
