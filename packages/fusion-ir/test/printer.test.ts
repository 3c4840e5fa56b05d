import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { Fusion, Merge, Split, makeTensor, printFusion, printKernelLegacy, printTransforms } from '../src/index.js';
import { expectGolden } from './golden.js';

/** The fusion of nvFuser issue #785 (pow + sum), built with the ops API. */
function powSum(): Fusion {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: [-1, -1, -1] });
  const t1 = makeTensor(fusion, { shape: [-1, -1, -1] });
  fusion.addInput(t0);
  fusion.addInput(t1);
  const t3 = ops.pow(t1, fusion.constant(3, 'Double'));
  const t4 = ops.sum(t0, [0, 1]);
  fusion.addOutput(t4);
  fusion.addOutput(t3);
  return fusion;
}

/** Inference batch norm written out the way parseJitIR lowers it (seed exercise). */
function batchNormInference(fusion: Fusion, x: ops.TensorView, w: ops.TensorView, b: ops.TensorView, mean: ops.TensorView, variance: ops.TensorView): ops.TensorView {
  const bcast = (t: ops.TensorView): ops.TensorView => ops.broadcast(t, [true, false, true, true]);
  const centered = ops.sub(x, bcast(mean));
  const invstd = ops.rsqrt(ops.add(variance, fusion.constant(1e-5, 'Double')));
  return ops.add(ops.mul(ops.mul(centered, bcast(invstd)), bcast(w)), bcast(b));
}

export function seedExercise(): Fusion {
  const fusion = new Fusion();
  const x0 = makeTensor(fusion, { shape: [-1, -1, -1, -1] });
  const p0 = [0, 1, 2, 3].map(() => makeTensor(fusion, { shape: [-1] }));
  const x1 = makeTensor(fusion, { shape: [-1, -1, -1, -1] });
  const p1 = [0, 1, 2, 3].map(() => makeTensor(fusion, { shape: [-1] }));
  const alpha = fusion.newSymbolicScalar('Int');
  for (const v of [x0, ...p0, x1, ...p1, alpha]) fusion.addInput(v);
  const [w0, b0, m0, v0] = p0 as [ops.TensorView, ops.TensorView, ops.TensorView, ops.TensorView];
  const [w1, b1, m1, v1] = p1 as [ops.TensorView, ops.TensorView, ops.TensorView, ops.TensorView];
  const bn1 = batchNormInference(fusion, x1, w1, b1, m1, v1);
  const bn0 = batchNormInference(fusion, x0, w0, b0, m0, v0);
  const scaled = ops.mul(bn0, ops.cast(alpha, 'Double'));
  fusion.addOutput(ops.relu(ops.add(bn1, scaled)));
  return fusion;
}

describe('nvFuser-format printer', () => {
  it('prints the issue-785 pow+sum fusion like fusion_ir_presched', () => {
    const text = printFusion(powSum());
    expect(text).toContain('  T0_g[ iS0{i0}, iS1{i1}, iS2{i2} ], float');
    expect(text).toContain('   = reduction( T0_g[ iS0{i0}, iS1{i1}, iS2{i2} ], op = add, initial value = float(0), allreduce = false )');
    expect(text).toContain('   = pow(T1_g[ iS3{i3}, iS4{i4}, iS5{i5} ]\n  , double(3));');
    expectGolden(text, 'fusion-ir/issue785_pow_sum.txt');
  });

  it('prints the seed exercise fusion with the structure of the seed dump', () => {
    const fusion = seedExercise();
    const kinds = fusion.exprs().map((e) => (e.kind === 'UnaryOp' || e.kind === 'BinaryOp' ? e.op : e.kind));
    // per-channel params are broadcast, rsqrt of var + eps, mul by the alpha scalar, relu last
    expect(kinds.filter((k) => k === 'BroadcastOp').length).toBe(8);
    expect(kinds.filter((k) => k === 'rsqrt').length).toBe(2);
    expect(kinds.at(-1)).toBe('relu');
    const text = printKernelLegacy(fusion);
    expect(text).toMatch(/= rsqrt\(T\d+_l\[ iS\d+\{i\d+\} \]\);/);
    expect(text).toMatch(/d\d+ = \(double\)\(i\d+\);/);
    expectGolden(text, 'fusion-ir/seed_exercise_kernel.txt');
    expectGolden(printFusion(fusion, { transforms: true }), 'fusion-ir/seed_exercise_fusion.txt');
  });

  it('prints splits, merges, parallel types, rFactor marks and inlining positions', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1] });
    fusion.addInput(t0);
    const t1 = ops.exp(t0);
    fusion.addOutput(t1);
    const [a, b] = t1.domain.loop as [ops.IterDomain, ops.IterDomain];
    const merged = fusion.newIterDomain(ops.mul(a.extent, b.extent), 'Iteration');
    new Merge(fusion, merged, a, b);
    const outer = fusion.newIterDomain(ops.ceilDiv(merged.extent, fusion.index(128)), 'Iteration');
    const inner = fusion.newIterDomain(fusion.index(128), 'Iteration');
    new Split(fusion, outer, inner, merged, fusion.index(128), true);
    outer.parallelize('BIDx');
    inner.parallelize('TIDx');
    t1.domain.loop = [outer, inner];
    t1.maxProducerPosition = 2;
    const text = printTransforms(fusion);
    expect(text).toContain('Merge: iS2{i0} and iS3{i1} -> iS4{( i0 * i1 )}');
    expect(text).toContain('Split: iS4{( i0 * i1 )} by factor 128 -> iblockIdx.x5{( ceilDiv(( i0 * i1 ), 128) )}, ithreadIdx.x6{128}');
    expect(text).toContain('T1_g[ iblockIdx.x5{( ceilDiv(( i0 * i1 ), 128) )}, ithreadIdx.x6{128} ] produce_pos( 2 )');
  });

  it('prints every kind of tensor expression', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1] });
    const c = makeTensor(fusion, { shape: [-1, -1], dtype: 'Bool' });
    fusion.addInput(t0);
    fusion.addInput(c);
    const outs = [
      ops.where(c, t0, 0) as ops.TensorView,
      ops.neg(t0),
      ops.cast(t0, 'Half'),
      ops.add(t0, t0),
      ops.atan2(t0, t0),
      ops.max(t0, [1]),
    ];
    for (const o of outs) fusion.addOutput(o);
    const text = printFusion(fusion);
    expect(text).toContain('= where(T1_g');
    expect(text).toContain('= -T0_g');
    expect(text).toContain('= (__half)(T0_g');
    expect(text).toMatch(/= T0_g\[ iS0\{i0\}, iS1\{i1\} \]\n    \+ T0_g/);
    expect(text).toContain('= atan2(T0_g');
    expect(text).toContain('op = max, initial value = float(-INFINITY)');
  });
});
