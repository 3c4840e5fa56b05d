// Stride-ordered output fixtures (nvFuser's fd.ops.stride_order / add_output(…, stride_order=…)),
// part of shapeOpsFixtures(), so the simulation test, the nvcc compile test and the GPU shape-ops
// suite run them: outputs in permuted allocation orders from pointwise kernels (1-D and 2-D
// schedules, vectorized or not, an output that is also used, Half), and a stride-ordered result
// of a reduction's consumer, which the other schedulers refuse and segmentation hands to a
// pointwise segment. The runtime allocates each output densely in its allocation order; the
// reference evaluator returns the same strides.
import { add, broadcast, cast, exp, Fusion, makeTensor, mul, setStrideOrder, strideOrder, sum } from '@tsfuser/fusion-ir';
import type { ShapeOpsFixture } from './shape-ops-fixtures.js';
import { randomTensor } from './shape-ops-values.js';

export function strideOrderFixtures(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1] });
    const y = makeTensor(f, { shape: [-1, -1, -1] });
    f.addInput(x);
    f.addInput(y);
    const a = add(x, y);
    setStrideOrder(a, [0, 2, 1]);
    f.addOutput(a);
    f.addOutput(strideOrder(mul(x, 2), [1, 2, 0]));
    f.addOutput(strideOrder(exp(y), [0, 1, 2]));
    f.addOutput(mul(y, 3));
    out.push({ name: 'stride_order_3d_three_orders', fusion: f, inputs: (r) => [randomTensor('Float', [5, 37, 129], r), randomTensor('Float', [5, 37, 129], r)], segments: 'pointwise' });
  }
  for (const dtype of ['Float', 'Half'] as const) {
    // [0, 1] transposes (element stores); dim 2 stays innermost in [1, 2, 0] (vectorized stores).
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype });
    f.addInput(x);
    f.addOutput(strideOrder(add(x, 1), [0, 1]));
    out.push({ name: `stride_order_transposed_${dtype}`, fusion: f, inputs: (r) => [randomTensor(dtype, [64, 512], r)], segments: 'pointwise' });
    const g = new Fusion();
    const w = makeTensor(g, { shape: [-1, -1, -1], dtype });
    g.addInput(w);
    g.addOutput(strideOrder(cast(mul(w, 0.5), dtype), [1, 2, 0]));
    out.push({ name: `stride_order_inner_kept_${dtype}`, fusion: g, inputs: (r) => [randomTensor(dtype, [4, 40, 128], r)], segments: 'pointwise' });
  }
  {
    // An output that is also used (cacheFork) and a broadcast operand.
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    const b = makeTensor(f, { shape: [-1] });
    f.addInput(x);
    f.addInput(b);
    const s = add(x, broadcast(b, [true, false]));
    setStrideOrder(s, [0, 1]);
    f.addOutput(s);
    f.addOutput(mul(s, s));
    out.push({ name: 'stride_order_used_output', fusion: f, inputs: (r) => [randomTensor('Float', [33, 520], r), randomTensor('Float', [520], r)], segments: 'pointwise' });
  }
  {
    // A 2-D schedule (broadcast on the middle dim).
    const f = new Fusion();
    const y = makeTensor(f, { shape: [-1, 1, -1] });
    const w = makeTensor(f, { shape: [-1, -1, -1] });
    f.addInput(y);
    f.addInput(w);
    f.addOutput(strideOrder(add(y, w), [0, 2, 1]));
    out.push({ name: 'stride_order_2d_schedule', fusion: f, inputs: (r) => [randomTensor('Float', [16, 1, 300], r), randomTensor('Float', [16, 40, 300], r)], segments: 'pointwise' });
  }
  {
    // x - rowsum(x) transposed: the reduction scheduler takes the sum, pointwise the output.
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addOutput(strideOrder(add(x, broadcast(sum(x, [1]), [false, true])), [0, 1]));
    out.push({ name: 'stride_order_after_reduction', fusion: f, inputs: (r) => [randomTensor('Float', [48, 96], r)], segments: 'reduction+pointwise' });
  }
  {
    // A stride-ordered output read again by a reduction: the pointwise segment writes it in its
    // memory order, the reduction segment reads it through those strides.
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const t = strideOrder(mul(x, 3), [0, 1]);
    f.addOutput(t);
    f.addOutput(sum(t, [1]));
    out.push({ name: 'stride_order_output_read_by_reduction', fusion: f, inputs: (r) => [randomTensor('Float', [40, 72], r)], segments: 'pointwise+reduction' });
  }
  return out;
}
