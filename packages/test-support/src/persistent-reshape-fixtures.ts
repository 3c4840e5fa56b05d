// Reshapes inside persistent (normalization) kernels, shared by codegen's simulation and nvcc
// tests and the GPU shape-ops suite: the attention prologue reshape([B, S, H·D] → [B·S, H·D]) +
// layer_norm + reshape back (Float, BFloat16 vectorized, sizes from fd.ops.size), a reshape of
// the reduced statistics (mean / invstd as [B, S]), softmax over heads split out of a batch, a
// reshape that splits the row or merges dims into it, a reshape between two pointwise ops of
// the row, a reshape after the normalization that splits the row, batch_norm (outer
// persistent) on a reshaped input and reshaped back, layer_norm backward (inner-outer
// persistent) on reshaped grad_out / x, reshapes to size-1 dims, of a weight, merging rows,
// flattening the output, from a flat input; and the boundary that remains: iota on the other
// side of a reshape from the row. Each names the segments the default registry gives it.
import {
  add, batchNorm, broadcast, cast, exp, Fusion, iota, layerNorm, makeTensor, mul, reshape, rmsNorm, size, softmax, sub, sum, truediv,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import type { ShapeOpsFixture } from './shape-ops-fixtures.js';
import { randomTensor } from './shape-ops-values.js';

interface Spec {
  dtype: DataType;
  sizes: number[];
}

function fixture(name: string, specs: Spec[], build: (f: Fusion, xs: TensorView[]) => TensorView[], segments: string): ShapeOpsFixture {
  const fusion = new Fusion();
  const xs = specs.map((s) => {
    const x = makeTensor(fusion, { shape: s.sizes.map(() => -1), dtype: s.dtype });
    fusion.addInput(x);
    return x;
  });
  for (const o of build(fusion, xs)) fusion.addOutput(o);
  return { name, fusion, inputs: (r) => specs.map((s) => randomTensor(s.dtype, s.sizes, r)), segments };
}

const at = (xs: TensorView[], i: number): TensorView => xs[i] as TensorView;

/** reshape([B, S, H] → [B·S, H]) + layer_norm(weight, bias) + reshape back, in `dtype`. */
export function reshapeLayerNormPrologue(dtype: DataType, b: number, s: number, h: number, name = `reshape_layer_norm_reshape_${dtype}`): ShapeOpsFixture {
  const specs = [{ dtype, sizes: [b, s, h] }, { dtype, sizes: [h] }, { dtype, sizes: [h] }];
  return fixture(name, specs, (_f, xs) => {
    const x = at(xs, 0);
    const rows = reshape(x, [mul(size(x, 0), size(x, 1)), size(x, 2)]);
    const ln = layerNorm(rows, 1, at(xs, 1), at(xs, 2), 1e-5);
    return [reshape(ln.output, [size(x, 0), size(x, 1), size(x, 2)])];
  }, 'inner_persistent');
}

/** A row-normalization kernel's layer_norm backward (grad_out and x reshaped from [B, S, H]). */
function layerNormBackwardReshaped(): ShapeOpsFixture {
  const F: DataType = 'Float';
  const specs = [{ dtype: F, sizes: [4, 6, 40] }, { dtype: F, sizes: [4, 6, 40] }, { dtype: F, sizes: [24] }, { dtype: F, sizes: [24] }, { dtype: F, sizes: [40] }];
  return fixture('layer_norm_backward_reshaped_inputs', specs, (_f, xs) => {
    const go = reshape(at(xs, 0), [24, 40]);
    const x = reshape(at(xs, 1), [24, 40]);
    const rstd = broadcast(at(xs, 3), [false, true]);
    const xhat = mul(sub(x, broadcast(at(xs, 2), [false, true])), rstd);
    const g = mul(go, broadcast(at(xs, 4), [true, false]));
    const a = broadcast(sum(mul(g, xhat), [1]), [false, true]);
    const bb = broadcast(sum(g, [1]), [false, true]);
    const gi = mul(sub(sub(g, truediv(bb, 40)), truediv(mul(xhat, a), 40)), rstd);
    return [gi, sum(mul(go, xhat), [0]), sum(go, [0])];
  }, 'inner_outer_persistent');
}

export function persistentReshapeFixtures(): ShapeOpsFixture[] {
  const F: DataType = 'Float';
  return [
    reshapeLayerNormPrologue('Float', 2, 3, 32),
    reshapeLayerNormPrologue('BFloat16', 2, 8, 256),
    reshapeLayerNormPrologue('Half', 3, 5, 72, 'reshape_layer_norm_reshape_Half_odd_rows'),
    fixture('layer_norm_stats_reshaped', [{ dtype: F, sizes: [2, 5, 48] }], (_f, xs) => {
      const x = at(xs, 0);
      const ln = layerNorm(reshape(x, [10, 48]), 1);
      return [reshape(ln.output, [2, 5, 48]), reshape(ln.mean, [2, 5]), reshape(ln.invstd, [2, 5, 1])];
    }, 'inner_persistent'),
    fixture('softmax_heads_split_from_batch', [{ dtype: F, sizes: [12, 40] }], (_f, xs) => [reshape(softmax(reshape(at(xs, 0), [3, 4, 40]), 2), [12, 40])], 'inner_persistent'),
    fixture('softmax_row_split_by_reshape', [{ dtype: F, sizes: [6, 64] }], (_f, xs) => [softmax(reshape(at(xs, 0), [6, 2, 32]), 2)], 'inner_persistent'),
    fixture('rms_norm_row_merged_by_reshape', [{ dtype: 'Half', sizes: [10, 4, 16] }, { dtype: 'Half', sizes: [64] }], (_f, xs) => [
      rmsNorm(reshape(at(xs, 0), [10, 64]), 1, at(xs, 1), 1e-6).output,
    ], 'inner_persistent'),
    fixture('reshape_between_row_ops', [{ dtype: F, sizes: [9, 64] }], (_f, xs) => {
      const t = reshape(mul(at(xs, 0), 0.5), [9, 8, 8]);
      const e = exp(t);
      return [truediv(e, broadcast(sum(e, [1, 2]), [false, true, true]))];
    }, 'inner_persistent'),
    fixture('layer_norm_then_row_split', [{ dtype: F, sizes: [7, 96] }], (_f, xs) => [add(reshape(layerNorm(at(xs, 0), 1).output, [7, 3, 32]), 1)], 'inner_persistent'),
    fixture('batch_norm_on_reshaped_input', [{ dtype: F, sizes: [4, 32, 24] }], (_f, xs) => [
      batchNorm(reshape(at(xs, 0), [128, 24]), null, null, null, null, 0.1, 1e-5, true).output,
    ], 'outer_persistent'),
    fixture('softmax_cast_reshape_bf16', [{ dtype: 'BFloat16', sizes: [4, 4, 128] }], (_f, xs) => [
      cast(reshape(softmax(reshape(cast(at(xs, 0), F), [16, 128]), 1), [4, 4, 128]), 'BFloat16'),
    ], 'inner_persistent'),
    layerNormBackwardReshaped(),
    fixture('layer_norm_size1_dims_by_reshape', [{ dtype: F, sizes: [6, 20] }], (_f, xs) => [layerNorm(reshape(at(xs, 0), [6, 1, 20]), 1).output], 'inner_persistent'),
    fixture('rms_norm_weight_reshaped', [{ dtype: F, sizes: [5, 64] }, { dtype: F, sizes: [4, 16] }], (_f, xs) => [
      rmsNorm(at(xs, 0), 1, reshape(at(xs, 1), [64]), 1e-6).output,
    ], 'inner_persistent'),
    fixture('softmax_rows_merged_across_reshape', [{ dtype: F, sizes: [8, 32] }], (_f, xs) => [softmax(reshape(at(xs, 0), [4, 64]), 1)], 'inner_persistent'),
    fixture('softmax_output_flattened', [{ dtype: F, sizes: [5, 48] }], (_f, xs) => [reshape(softmax(at(xs, 0), 1), [240])], 'inner_persistent'),
    fixture('batch_norm_reshape_round_trip', [{ dtype: F, sizes: [4, 8, 24] }], (_f, xs) => [
      reshape(batchNorm(reshape(at(xs, 0), [32, 24]), null, null, null, null, 0.1, 1e-5, true).output, [4, 8, 24]),
    ], 'outer_persistent'),
    fixture('layer_norm_of_sum_with_reshaped_input', [{ dtype: F, sizes: [6, 40] }, { dtype: F, sizes: [2, 3, 40] }], (_f, xs) => {
      const t = add(at(xs, 0), reshape(at(xs, 1), [6, 40]));
      return [layerNorm(t, 1).output, t];
    }, 'inner_persistent'),
    fixture('softmax_from_flat_input', [{ dtype: F, sizes: [240] }], (_f, xs) => [softmax(reshape(at(xs, 0), [5, 48]), 1)], 'inner_persistent'),
    fixture('iota_across_reshape_segmented', [{ dtype: F, sizes: [6, 32] }], (f, xs) => [
      softmax(add(at(xs, 0), reshape(iota(f, 192, 0, 1, 'Float'), [6, 32])), 1),
    ], 'pointwise+inner_persistent'),
  ];
}
