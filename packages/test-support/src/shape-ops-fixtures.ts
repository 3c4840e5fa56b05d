// Named shape-op and tensor-factory fixtures shared by the simulation test, the nvcc compile
// test and the GPU suite (packages/tsfuser/gpu/shape-ops-suite.ts): full / zeros / ones / iota
// in pointwise, reduction and persistent kernels; expanded outputs and stride-0 inputs; permuted
// inputs and outputs in pointwise kernels;
// metadata-only fusions (expr_eval views) and a reshape between pointwise ops (one kernel);
// zero-size tensors (identities of reductions over empty dims, empty outputs, no_op); slice /
// pad / cat (resize-fixtures.ts); stride-ordered outputs (stride-order-fixtures.ts). Each
// fixture builds its fusion and its inputs from a seeded generator, and names the schedulers
// its segments should get with the default registry.
import {
  add, arange, broadcast, cast, expand, Fusion, full, fullLike, HostTensor, iota, makeTensor, max, min, mul, ones, permute, prod,
  reshape, shape, size, slice, softmax, squeeze, sub, sum, varMean, zeros, type DataType, type EvalValue, type TensorView,
} from '@tsfuser/fusion-ir';
import { randomTensor } from './shape-ops-values.js';
import { resizeFixtures } from './resize-fixtures.js';
import { strideOrderFixtures } from './stride-order-fixtures.js';

export interface ShapeOpsFixture {
  name: string;
  fusion: Fusion;
  inputs: (r: () => number) => EvalValue[];
  /** The default registry's segments, joined by '+', e.g. `pointwise` or `pointwise+expr_eval+pointwise` ('*': not checked). */
  segments: string;
}

/** A stride-0 view of `t` along a new dim `dim` of extent `n` (torch's unsqueeze(dim).expand). */
export function expandedInput(t: HostTensor, dim: number, n: number): HostTensor {
  const sizes = [...t.sizes];
  const strides = [...t.strides];
  sizes.splice(dim, 0, n);
  strides.splice(dim, 0, 0);
  return new HostTensor(t.dtype, sizes, strides, t.data, t.offset);
}

function withInput(dtype: DataType, shapeSpec: number[], build: (f: Fusion, x: TensorView) => TensorView[], contiguity?: boolean): { fusion: Fusion; x: TensorView } {
  const fusion = new Fusion();
  const x = makeTensor(fusion, { shape: shapeSpec, dtype, ...(contiguity === undefined ? {} : { contiguity }) });
  fusion.addInput(x);
  for (const o of build(fusion, x)) fusion.addOutput(o);
  return { fusion, x };
}

function factoryFixtures(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  for (const dtype of ['Float', 'Half', 'BFloat16'] as const) {
    const { fusion } = withInput(dtype, [-1, -1], (f, x) => [cast(mul(cast(x, 'Float'), full(f, [], 0.125, 'Double')), dtype)]);
    out.push({ name: `scale_0.125_${dtype}`, fusion, inputs: (r) => [randomTensor(dtype, [67, 515], r)], segments: 'pointwise' });
  }
  {
    // Even sizes: the input and output are vectorized, the fill value is not a load.
    const { fusion } = withInput('Float', [-1, -1], (f, x) => [mul(x, full(f, [], 0.125, 'Float')), add(x, broadcast(iota(f, size(x, 1), 0, 1, 'Float'), [true, false]))]);
    out.push({ name: 'scale_iota_vectorized', fusion, inputs: (r) => [randomTensor('Float', [16, 1024], r)], segments: 'pointwise' });
  }
  for (const dtype of ['Float', 'Int32', 'Int'] as const) {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [-1, -1], dtype });
    const s = fusion.newSymbolicScalar('Double');
    fusion.addInput(x);
    fusion.addInput(s);
    fusion.addOutput(add(x, fullLike(x, s)));
    fusion.addOutput(sub(mul(x, ones(fusion, shape(x), dtype)), zeros(fusion, [size(x, 0), size(x, 1)], dtype)));
    out.push({ name: `full_like_ones_zeros_${dtype}`, fusion, inputs: (r) => [randomTensor(dtype, [33, 131], r), 2.5], segments: 'pointwise' });
  }
  for (const dtype of ['Int', 'Float', 'Half'] as const) {
    const { fusion } = withInput(dtype, [-1, -1], (f, x) => [
      add(x, broadcast(iota(f, size(x, 0), 3, 2, dtype), [false, true])),
      mul(x, broadcast(iota(f, size(x, 1), 0, 1, dtype), [true, false])),
    ]);
    out.push({ name: `iota_rows_cols_${dtype}`, fusion, inputs: (r) => [randomTensor(dtype, [129, 65], r)], segments: 'pointwise' });
  }
  {
    const fusion = new Fusion();
    fusion.addOutput(arange(fusion, 2, 30000, 3, 'Float'));
    out.push({ name: 'arange_output', fusion, inputs: () => [], segments: 'pointwise' });
  }
  {
    const { fusion } = withInput('Float', [-1, -1], (f, x) => [full(f, shape(x), 7, 'Half')]);
    out.push({ name: 'full_output', fusion, inputs: (r) => [randomTensor('Float', [3, 517], r)], segments: 'pointwise' });
  }
  for (const [dims, sizes] of [[[1], [64, 1000]], [[0], [300, 96]], [[0, 1], [17, 33]]] as const) {
    const { fusion } = withInput('Float', [-1, -1], (f, x) => [sum(add(mul(x, full(f, [], 0.125, 'Float')), broadcast(iota(f, size(x, 1), 0, 0.01, 'Float'), [true, false])), [...dims])]);
    out.push({ name: `sum_scaled_iota_[${dims.join(',')}]`, fusion, inputs: (r) => [randomTensor('Float', [...sizes], r)], segments: 'reduction' });
  }
  {
    const { fusion } = withInput('Half', [-1, -1], (f, x) => [cast(softmax(mul(cast(x, 'Float'), full(f, [], 0.125, 'Float')), 1), 'Half')]);
    out.push({ name: 'scaled_softmax_Half', fusion, inputs: (r) => [randomTensor('Half', [64, 1024], r)], segments: 'inner_persistent' });
  }
  return out;
}

function expandFixtures(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  for (const dtype of ['Float', 'Half'] as const) {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [-1], dtype });
    const y = makeTensor(fusion, { shape: [-1, -1], dtype });
    fusion.addInput(x);
    fusion.addInput(y);
    fusion.addOutput(expand(broadcast(mul(x, 2), [false, true]), [size(x, 0), size(y, 1)]));
    out.push({ name: `expanded_output_${dtype}`, fusion, inputs: (r) => [randomTensor(dtype, [3000], r), randomTensor(dtype, [3000, 77], r)], segments: 'pointwise' });
  }
  {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [1, 1, -1] });
    const y = makeTensor(fusion, { shape: [-1, -1, -1] });
    fusion.addInput(x);
    fusion.addInput(y);
    fusion.addOutput(expand(cast(mul(x, 0.5), 'Half'), [size(y, 0), size(y, 1), size(x, 2)]));
    out.push({ name: 'expanded_leading_dims', fusion, inputs: (r) => [randomTensor('Float', [1, 1, 1031], r), randomTensor('Float', [3, 5, 1031], r)], segments: 'pointwise' });
  }
  const reductions: [string, (t: TensorView) => TensorView, string][] = [
    ['add', (t) => t, 'pointwise'],
    ['sum1', (t) => sum(t, [1]), 'reduction'],
    ['sum0', (t) => sum(t, [0]), 'reduction'],
    ['softmax', (t) => softmax(t, 1), 'inner_persistent'],
  ];
  for (const [name, build, segments] of reductions) {
    for (const along of [0, 1] as const) {
      const fusion = new Fusion();
      const x = makeTensor(fusion, { shape: [-1, -1], contiguity: false });
      const y = makeTensor(fusion, { shape: [-1, -1] });
      fusion.addInput(x);
      fusion.addInput(y);
      fusion.addOutput(build(add(x, y)));
      const inputs = (r: () => number): EvalValue[] =>
        along === 0 ? [expandedInput(randomTensor('Float', [512], r), 0, 40), randomTensor('Float', [40, 512], r)] : [expandedInput(randomTensor('Float', [40], r), 1, 512), randomTensor('Float', [40, 512], r)];
      out.push({ name: `stride0_input_dim${along}_${name}`, fusion, inputs, segments });
    }
  }
  return out;
}

function permuteFixtures(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  {
    const { fusion } = withInput('Float', [-1, -1], (_f, x) => [permute(mul(x, 2), [1, 0])]);
    out.push({ name: 'permuted_output', fusion, inputs: (r) => [randomTensor('Float', [136, 132], r)], segments: 'pointwise' });
  }
  {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [-1, -1], dtype: 'Half' });
    const y = makeTensor(fusion, { shape: [-1, -1], dtype: 'Half' });
    fusion.addInput(x);
    fusion.addInput(y);
    fusion.addOutput(add(permute(x, [1, 0]), y));
    out.push({ name: 'permuted_input_plus_other', fusion, inputs: (r) => [randomTensor('Half', [33, 70], r), randomTensor('Half', [70, 33], r)], segments: 'pointwise' });
  }
  {
    const { fusion } = withInput('Float', [-1, -1, -1], (_f, x) => {
      const y = mul(x, 2);
      return [y, add(permute(y, [2, 0, 1]), 1)];
    });
    out.push({ name: 'permute_3d_two_outputs', fusion, inputs: (r) => [randomTensor('Float', [4, 6, 40], r)], segments: 'pointwise' });
  }
  return out;
}

function metadataFixtures(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  {
    const { fusion } = withInput('Float', [-1, -1, -1], (_f, x) => [permute(x, [2, 0, 1]), slice(x, [0, -3, 1], [2, 100, 7], [1, 2, 3]), expand(broadcast(x, [false, true, false, false]), [size(x, 0), 5, size(x, 1), size(x, 2)])]);
    out.push({ name: 'views_permute_slice_expand', fusion, inputs: (r) => [randomTensor('Float', [3, 8, 9], r)], segments: 'expr_eval' });
  }
  {
    const { fusion } = withInput('BFloat16', [-1, 1, -1], (_f, x) => [reshape(squeeze(x, [1]), [2, -1, 3])]);
    out.push({ name: 'view_squeeze_reshape', fusion, inputs: (r) => [randomTensor('BFloat16', [4, 1, 6], r)], segments: 'expr_eval' });
  }
  {
    const { fusion } = withInput('Float', [-1, -1], (_f, x) => {
      const z = reshape(mul(x, 2), [size(x, 0), 2, -1]);
      return [add(z, 1)];
    });
    out.push({ name: 'pointwise_reshape_pointwise', fusion, inputs: (r) => [randomTensor('Float', [8, 64], r)], segments: 'pointwise' });
  }
  {
    // A permute (inside the first kernel) and a strided slice, which the second kernel reads at
    // its shifted index (a resize in the pointwise scheduler; before that, a view between kernels).
    const { fusion } = withInput('Float', [-1, -1], (_f, x) => [add(permute(mul(x, 2), [1, 0]), 1), sub(slice(mul(x, 3), [1, 0], [-1, 1000], [2, 3]), 1)]);
    out.push({ name: 'pointwise_permute_slice_pointwise', fusion, inputs: (r) => [randomTensor('Float', [33, 70], r)], segments: 'pointwise+pointwise' });
  }
  {
    // A row sum expanded back, beside a dead intermediate of the same input (a segment used to
    // keep the dead consumer and fail to lower).
    const { fusion } = withInput('Float', [-1, -1], (f, x) => {
      mul(x, full(f, [], 0.5, 'Float'));
      return [expand(broadcast(sum(x, [1]), [false, true]), [size(x, 0), size(x, 1)])];
    });
    out.push({ name: 'rowsum_expanded_beside_dead_code', fusion, inputs: (r) => [randomTensor('Float', [34, 10], r)], segments: 'reduction' }); // the expand is the kernel's expanded (stride-0) output
  }
  {
    const { fusion } = withInput('Float', [-1, -1], (_f, x) => [sum(reshape(x, [-1, 4]), [1])]);
    out.push({ name: 'reshape_then_sum', fusion, inputs: (r) => [randomTensor('Float', [32, 64], r)], segments: 'reduction' });
  }
  return out;
}

function zeroSizeFixtures(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  const ops = { sum, prod, max, min } as const;
  for (const op of ['sum', 'prod', 'max', 'min'] as const) {
    for (const [dims, sizes] of [[[1], [5, 0]], [[0], [0, 7]], [[0, 1], [0, 3]]] as const) {
      const { fusion } = withInput('Float', [-1, -1], (_f, x) => [ops[op](mul(x, 2), [...dims])]);
      out.push({ name: `${op}_over_empty_[${dims.join(',')}]_of_[${sizes.join(',')}]`, fusion, inputs: (r) => [randomTensor('Float', [...sizes], r)], segments: 'reduction' });
    }
  }
  {
    const { fusion } = withInput('Float', [-1, -1], (_f, x) => {
      const vm = varMean(x, [1]);
      return [vm.var, vm.mean];
    });
    out.push({ name: 'var_mean_over_empty_rows', fusion, inputs: (r) => [randomTensor('Float', [5, 0], r)], segments: 'reduction' });
  }
  for (const sizes of [[0, 64], [5, 0]]) {
    const { fusion } = withInput('Float', [-1, -1], (_f, x) => [softmax(x, 1)]);
    out.push({ name: `softmax_[${sizes.join(',')}]`, fusion, inputs: (r) => [randomTensor('Float', sizes, r)], segments: 'no_op' });
  }
  {
    const { fusion } = withInput('Float', [-1, -1], (_f, x) => [add(x, 1)]);
    out.push({ name: 'pointwise_empty', fusion, inputs: (r) => [randomTensor('Float', [0, 9], r)], segments: 'pointwise' });
  }
  return out;
}

export function shapeOpsFixtures(): ShapeOpsFixture[] {
  return [...factoryFixtures(), ...expandFixtures(), ...permuteFixtures(), ...metadataFixtures(), ...zeroSizeFixtures(), ...resizeFixtures(), ...strideOrderFixtures()];
}
