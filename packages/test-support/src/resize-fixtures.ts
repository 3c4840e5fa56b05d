// Named slice / pad / cat fixtures (resize ops in the pointwise scheduler), part of
// shapeOpsFixtures(): the simulation test, the nvcc compile test and the GPU shape-ops suite run
// them. Slices with steps, negative and out-of-range bounds (the shapes and bounds of
// test-fixtures/torch-values/resize.json, whose values the evaluator is checked against), pads
// (negative = crop, a value), cat of N tensors along every dim, RoPE (slice + neg + cat + mul +
// add: one kernel), chains (pad of a slice, cat of a tensor with itself), and resize ops feeding
// a reduction or a normalization (fused into the reduction / inner persistent kernel).
import {
  add, binaryOp, cast, cat, exp, Fusion, makeTensor, mul, neg, pad, slice, softmax, size, sum, type DataType, type EvalValue, type TensorView,
} from '@tsfuser/fusion-ir';
import { randomTensor } from './shape-ops-values.js';
import type { ShapeOpsFixture } from './shape-ops-fixtures.js';

function single(dtype: DataType, rank: number, build: (f: Fusion, x: TensorView) => TensorView[]): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(x);
  for (const o of build(f, x)) f.addOutput(o);
  return f;
}

/** RoPE over the last dim of x [B, S, H, D] with cos/sin [1, S, 1, D] (rotate-half form). */
export function ropeFusion(dtype: DataType, d: number): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1, -1, -1], dtype });
  const c = makeTensor(f, { shape: [1, -1, 1, -1], dtype });
  const s = makeTensor(f, { shape: [1, -1, 1, -1], dtype });
  f.addInput(x);
  f.addInput(c);
  f.addInput(s);
  const xf = cast(x, 'Float');
  const b = [size(x, 0), size(x, 1), size(x, 2)];
  const x1 = slice(xf, [0, 0, 0, 0], [...b, d / 2]);
  const x2 = slice(xf, [0, 0, 0, d / 2], [...b, d]);
  const rotated = cat([neg(x2), x1], 3);
  f.addOutput(cast(add(mul(xf, cast(c, 'Float')), mul(rotated, cast(s, 'Float'))), dtype));
  return f;
}

export function ropeInputs(dtype: DataType, sizes: readonly [number, number, number, number], r: () => number): EvalValue[] {
  const [bb, ss, hh, dd] = sizes;
  return [randomTensor(dtype, [bb, ss, hh, dd], r), randomTensor(dtype, [1, ss, 1, dd], r), randomTensor(dtype, [1, ss, 1, dd], r)];
}

export function resizeFixtures(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  const slices: [number[], number[], number[], number[]][] = [
    [[7, 9], [1, -4], [-1, 100], [2, 3]],
    [[7, 9], [-100, 5], [3, 2], [1, 1]],
    [[7, 9], [-3, -9], [100, -2], [4, 2]],
    [[4, 5, 6], [1, 0, 3], [3, 5, 6], [1, 2, 1]],
  ];
  for (const [k, [shape, starts, stops, steps]] of slices.entries()) {
    const f = single('Float', shape.length, (_f, x) => [mul(slice(exp(x), starts, stops, steps), 2)]);
    out.push({ name: `slice_${k}_[${starts.join(',')}:${stops.join(',')}:${steps.join(',')}]`, fusion: f, inputs: (r) => [randomTensor('Float', shape, r)], segments: 'pointwise' });
  }
  const pads: [number[], number[], number, DataType][] = [
    [[5, 6], [2, 1], 0, 'Float'],
    [[5, 6], [2, -1, 1, 3], 7, 'Half'],
    [[5, 6], [-2, -3], -1.5, 'Float'],
    [[3, 4, 5], [0, 0, -1, 2, 3, 0], 2, 'BFloat16'],
    [[64, 1024], [8, 8], 0, 'Float'],
  ];
  for (const [shape, widths, value, dtype] of pads) {
    const f = single(dtype, shape.length, (_f, x) => [add(pad(mul(x, 3), widths, value), 1)]);
    out.push({ name: `pad_[${widths.join(',')}]_${value}_${dtype}`, fusion: f, inputs: (r) => [randomTensor(dtype, shape, r)], segments: 'pointwise' });
  }
  {
    const f = single('BFloat16', 2, (_f, x) => [pad(x, [8, 8, 1, 1])]);
    out.push({ name: 'pad_rows_and_columns_vectorized', fusion: f, inputs: (r) => [randomTensor('BFloat16', [64, 1024], r)], segments: 'pointwise' });
  }
  for (const dim of [0, 1, 2]) {
    const f = new Fusion();
    const shapes = [[3, 4, 16], [3, 4, 16], [3, 4, 16]].map((s, k) => s.map((v, d) => (d === dim ? v + 2 * k : v)));
    const ts = shapes.map(() => makeTensor(f, { shape: [-1, -1, -1], dtype: 'BFloat16' }));
    ts.forEach((t) => f.addInput(t));
    f.addOutput(cat(ts, dim));
    out.push({ name: `cat3_dim${dim}_BFloat16`, fusion: f, inputs: (r) => shapes.map((s) => randomTensor('BFloat16', s, r)), segments: 'pointwise' });
  }
  {
    // Vectorized along the cat dim (every piece a multiple of 8 wide).
    const f = new Fusion();
    const ts = [0, 1, 2].map(() => makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' }));
    ts.forEach((t) => f.addInput(t));
    f.addOutput(cat(ts, 1));
    out.push({ name: 'cat3_inner_vectorized', fusion: f, inputs: (r) => [randomTensor('BFloat16', [64, 512], r), randomTensor('BFloat16', [64, 256], r), randomTensor('BFloat16', [64, 768], r)], segments: 'pointwise' });
  }
  for (const dtype of ['Float', 'BFloat16'] as const) {
    // 32768 elements: enough for 8-wide (BFloat16) / 4-wide (Float) vectors.
    out.push({ name: `rope_${dtype}`, fusion: ropeFusion(dtype, 128), inputs: (r) => ropeInputs(dtype, [2, 16, 8, 128], r), segments: 'pointwise' });
  }
  out.push({ name: 'rope_odd_head_dim', fusion: ropeFusion('Float', 10), inputs: (r) => ropeInputs('Float', [1, 3, 5, 10], r), segments: 'pointwise' });
  {
    const f = single('Float', 2, (_f, x) => [slice(pad(exp(x), [3, 2], 0.5), [0, 1], [size(x, 0), 100], [1, 2])]);
    out.push({ name: 'slice_of_pad', fusion: f, inputs: (r) => [randomTensor('Float', [6, 11], r)], segments: 'pointwise' });
  }
  {
    const f = single('Float', 2, (_f, x) => {
      const y = mul(x, 2);
      return [add(cat([y, y, neg(y)], 0), 1)];
    });
    out.push({ name: 'cat_of_itself', fusion: f, inputs: (r) => [randomTensor('Float', [5, 7], r)], segments: 'pointwise' });
  }
  {
    // Two inputs read in a shifted space by one expression: each gets its own cache there.
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
    const b = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
    f.addInput(a);
    f.addInput(b);
    const p = mul(a, b);
    f.addOutput(cat([p, neg(p)], 0));
    out.push({ name: 'cat_of_product_and_its_negation', fusion: f, inputs: (r) => [randomTensor('Half', [4, 6], r), randomTensor('Half', [4, 6], r)], segments: 'pointwise' });
  }
  {
    // Zero-size pieces: a pad of an empty tensor is all pad value; an empty cat input is skipped.
    const f = single('Float', 2, (_f, x) => [pad(exp(x), [2, 2], 3)]);
    out.push({ name: 'pad_of_empty', fusion: f, inputs: (r) => [randomTensor('Float', [3, 0], r)], segments: 'pointwise' });
    const g = new Fusion();
    const a = makeTensor(g, { shape: [-1, -1] });
    const b = makeTensor(g, { shape: [-1, -1] });
    g.addInput(a);
    g.addInput(b);
    g.addOutput(mul(cat([a, b, a], 1), 2));
    out.push({ name: 'cat_with_empty_pieces', fusion: g, inputs: (r) => [randomTensor('Float', [3, 0], r), randomTensor('Float', [3, 5], r)], segments: 'pointwise' });
  }
  {
    // A slice start computed from a size (x[:, size(x, 1) // 2:]): offsets computed in the kernel.
    const f = single('Float', 2, (fu, x) => [mul(slice(x, [0, binaryOp('div', size(x, 1), fu.index(2))], [size(x, 0), size(x, 1)]), 2)]);
    out.push({ name: 'slice_from_computed_half', fusion: f, inputs: (r) => [randomTensor('Float', [3, 9], r)], segments: 'pointwise' });
  }
  {
    // A resize feeding a reduction: fused into the reduction kernel (the reduction loops over
    // the padded row, the pad value where the read is out of range).
    const f = single('Float', 2, (_f, x) => [sum(pad(x, [1, 1]), [1])]);
    out.push({ name: 'pad_then_sum', fusion: f, inputs: (r) => [randomTensor('Float', [8, 30], r)], segments: 'reduction' });
  }
  {
    // A resize feeding a normalization: fused into the inner persistent kernel (the row is the cat).
    const f = single('Float', 2, (_f, x) => [softmax(cat([x, exp(x)], 1), 1)]);
    out.push({ name: 'cat_then_softmax', fusion: f, inputs: (r) => [randomTensor('Float', [8, 64], r)], segments: 'inner_persistent' });
  }
  return out;
}
