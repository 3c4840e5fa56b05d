// Reshape fixtures for the pointwise scheduler (a reshape inside a kernel, indexed through its
// split/merge), shared by codegen's simulation and nvcc tests and the GPU shape-ops suite: a
// reshape before, after and between pointwise work; to and from size-1 / broadcast dims;
// squeeze + reshape; a reshape that cancels a previous one; outputs on both sides of a reshape;
// the GPT-NeoX attention prologue [B, S, 3·H·D] → [B, S, H, 3, D]; a reshape of an expanded
// tensor; a Half output that vectorizes (its input, read through the reshape, does not);
// reshapes feeding a reduction and a reshape after one (one reduction kernel), and the
// boundaries that remain: a reshape after a reduction that merges kept dims the reduced dim
// separates, a reduction input with size-1 dims made by a reshape; dynamic
// reshapes (sizes from Int scalar inputs, from input sizes). Each names the segments the
// default registry gives it.
import {
  add, broadcast, cast, expand, Fusion, makeTensor, mul, permute, reshape, size, squeeze, sum, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import type { ShapeOpsFixture } from './shape-ops-fixtures.js';
import { randomTensor } from './shape-ops-values.js';

/** Dynamic reshape: new sizes [s0, -1, s1] from Int scalar inputs (values given at run time). */
function dynamicReshape(): ShapeOpsFixture {
  const fusion = new Fusion();
  const x = makeTensor(fusion, { shape: [-1, -1], dtype: 'Float' });
  const s0 = fusion.newSymbolicScalar('Int');
  const s1 = fusion.newSymbolicScalar('Int');
  fusion.addInput(x);
  fusion.addInput(s0);
  fusion.addInput(s1);
  fusion.addOutput(add(reshape(mul(x, 2), [s0, -1, s1]), 1));
  return { name: 'dynamic_reshape_scalar_inputs', fusion, inputs: (r) => [randomTensor('Float', [6, 40], r), 4n, 5n], segments: 'pointwise' };
}

/** Dynamic reshape whose sizes are computed from input sizes: [B, S·H] → [B·S, H], S and H the sizes of another input (read for its sizes only). */
function dynamicReshapeFromSizes(): ShapeOpsFixture {
  const fusion = new Fusion();
  const x = makeTensor(fusion, { shape: [-1, -1], dtype: 'Float' });
  const y = makeTensor(fusion, { shape: [-1, -1], dtype: 'Float' });
  fusion.addInput(x);
  fusion.addInput(y);
  const rows = mul(size(x, 0), size(y, 0));
  fusion.addOutput(add(reshape(x, [rows, size(y, 1)]), 1));
  return { name: 'dynamic_reshape_from_sizes', fusion, inputs: (r) => [randomTensor('Float', [3, 35], r), randomTensor('Float', [5, 7], r)], segments: 'pointwise' };
}

function fixture(name: string, specs: { dtype: DataType; sizes: number[]; shape?: number[] }[], build: (f: Fusion, xs: TensorView[]) => TensorView[], segments = 'pointwise'): ShapeOpsFixture {
  const fusion = new Fusion();
  const xs = specs.map((s) => {
    const x = makeTensor(fusion, { shape: s.shape ?? s.sizes.map(() => -1), dtype: s.dtype });
    fusion.addInput(x);
    return x;
  });
  for (const o of build(fusion, xs)) fusion.addOutput(o);
  return { name, fusion, inputs: (r) => specs.map((s) => randomTensor(s.dtype, s.sizes, r)), segments };
}

const first = (xs: TensorView[]): TensorView => xs[0] as TensorView;
const second = (xs: TensorView[]): TensorView => xs[1] as TensorView;

export function reshapeFixtures(): ShapeOpsFixture[] {
  const F: DataType = 'Float';
  return [
    fixture('reshape_pointwise_reshape_pointwise', [{ dtype: F, sizes: [8, 64] }], (_f, [x]) => {
      const t = x as TensorView;
      return [add(reshape(mul(t, 2), [size(t, 0), 2, -1]), 1)];
    }),
    fixture('reshape_input_then_add', [{ dtype: F, sizes: [6, 35] }, { dtype: F, sizes: [6, 5, 7] }], (_f, xs) => [add(reshape(first(xs), [6, 5, 7]), second(xs))]),
    fixture('pointwise_then_merge_dims', [{ dtype: F, sizes: [4, 6, 9] }], (_f, xs) => [reshape(mul(first(xs), 3), [24, 9])]),
    fixture('merge_all_odd_sizes', [{ dtype: F, sizes: [7, 15] }], (_f, xs) => [add(reshape(reshape(first(xs), [-1]), [3, 35]), 0.5)]),
    fixture('outputs_both_sides_split', [{ dtype: F, sizes: [4, 48] }], (_f, xs) => {
      const t = mul(first(xs), 2);
      return [t, add(reshape(t, [4, 6, 8]), 1)];
    }),
    fixture('outputs_both_sides_merge', [{ dtype: F, sizes: [4, 6, 8] }], (_f, xs) => {
      const t = mul(first(xs), 2);
      return [t, add(reshape(t, [4, 48]), 1)];
    }),
    fixture('reshape_cancels_previous', [{ dtype: F, sizes: [8, 64] }], (_f, xs) => {
      const x = first(xs);
      return [add(reshape(mul(reshape(x, [8, 2, 32]), 2), [8, 64]), x)];
    }),
    fixture('reshape_to_size1_dims', [{ dtype: F, sizes: [8, 64] }, { dtype: F, sizes: [8, 5, 2, 32] }], (_f, xs) => [add(reshape(first(xs), [8, 1, 2, 32]), second(xs))]),
    fixture('squeeze_reshape_unsqueeze', [{ dtype: F, sizes: [4, 1, 30], shape: [-1, 1, -1] }], (_f, xs) => [
      mul(broadcast(reshape(squeeze(first(xs), [1]), [4, 5, 6]), [false, true, false, false]), 2),
    ]),
    fixture('reshape_from_size1_dims', [{ dtype: F, sizes: [3, 1, 20, 1], shape: [-1, 1, -1, 1] }], (_f, xs) => [add(reshape(first(xs), [3, 4, 5]), 1)]),
    fixture('gpt_neox_qkv_split', [{ dtype: 'Half', sizes: [2, 16, 3 * 4 * 8] }], (_f, xs) => {
      const x = first(xs);
      const qkv = reshape(cast(x, 'Float'), [size(x, 0), size(x, 1), 4, 3, 8]);
      return [cast(mul(qkv, 0.5), 'Half')];
    }),
    fixture('gpt_neox_qkv_split_permuted', [{ dtype: F, sizes: [2, 6, 3 * 2 * 4] }], (_f, xs) => {
      const x = first(xs);
      return [add(permute(reshape(x, [2, 6, 2, 3, 4]), [0, 2, 3, 1, 4]), 1)];
    }),
    fixture('reshape_expanded', [{ dtype: F, sizes: [8] }, { dtype: F, sizes: [8, 2, 16] }], (_f, xs) => {
      const w = first(xs);
      const e = expand(broadcast(mul(w, 2), [false, true]), [size(w, 0), 32]);
      return [add(reshape(e, [8, 2, 16]), second(xs))];
    }),
    fixture('reshape_half_vectorized_output', [{ dtype: 'Half', sizes: [32, 256] }], (_f, xs) => [cast(add(reshape(cast(first(xs), 'Float'), [32, 4, 64]), 1), 'Half')]),
    fixture('reshape_row_broadcast', [{ dtype: F, sizes: [6, 40] }, { dtype: F, sizes: [8] }], (_f, xs) => [
      mul(reshape(first(xs), [6, 5, 8]), broadcast(second(xs), [true, true, false])),
    ]),
    dynamicReshape(),
    dynamicReshapeFromSizes(),
    fixture('reshape_then_sum', [{ dtype: F, sizes: [16, 48] }], (_f, xs) => [sum(reshape(mul(first(xs), 2), [16, 6, 8]), [2])], 'reduction'),
    fixture('heads_reshape_then_outer_sum', [{ dtype: F, sizes: [40, 24] }], (_f, xs) => [sum(reshape(first(xs), [10, 4, 24]), [0, 1])], 'reduction'),
    fixture('sum_then_reshape', [{ dtype: F, sizes: [12, 8, 5] }], (_f, xs) => [add(reshape(sum(first(xs), [2]), [96]), 1)], 'reduction'),
    // The kept dims 0 and 2 merged across the reduced dim 1: nvFuser's reductionInterferingView.
    fixture('sum_middle_then_merging_reshape_segmented', [{ dtype: F, sizes: [4, 7, 6] }], (_f, xs) => [add(reshape(sum(first(xs), [1]), [24]), 1)], 'reduction+pointwise'),
    fixture('reshape_to_size1_then_sum_segmented', [{ dtype: F, sizes: [6, 20] }], (_f, xs) => [sum(reshape(first(xs), [6, 1, 20]), [2])], 'expr_eval+reduction'),
  ];
}
