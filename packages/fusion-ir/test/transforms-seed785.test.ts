// The two scheduled segments of nvFuser issue #785, rebuilt with the scheduling API the way
// nvFuser's pointwise and reduction schedulers do it (cache, transform the reference, rFactor,
// propagate, parallelize, inline), compared line by line with nvFuser's fusion_ir_math dump
// (names canonicalized: only structure, extents, parallel types and positions must agree).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  Fusion,
  inlineMost,
  makeTensor,
  parallelizeAllLike,
  pow,
  propagateTransforms,
  sum,
  tensorViewToString,
  type TensorView,
} from '../src/index.js';
import { canonicalNames } from './golden.js';

const seedText = readFileSync(new URL('../../../test-fixtures/golden/fusion-ir/seed/issue785_fusion_ir_math.txt', import.meta.url), 'utf8');

/** The tensor part of the first seed line starting with `prefix` (operands and dtype dropped). */
function seedTensor(prefix: string): string {
  const line = seedText.split('\n').find((l) => l.trimStart().startsWith(prefix));
  if (line === undefined) throw new Error(`no seed line starting with ${prefix}`);
  return line.trim().replace(/\s+= .*$/, '').replace(/, float$/, '');
}

const same = (tv: TensorView, prefix: string): void => {
  expect(canonicalNames(tensorViewToString(tv))).toBe(canonicalNames(seedTensor(prefix)));
};

describe('issue #785 schedules reproduced with the transforms API', () => {
  it('pointwise segment: merge all, split 4 / 1 / 128, vectorized caches, unswitch, inlineMost', () => {
    const fusion = new Fusion();
    const t1 = makeTensor(fusion, { shape: [-1, -1, -1] });
    fusion.addInput(t1);
    const t3 = pow(t1, fusion.constant(3, 'Double'));
    fusion.addOutput(t3);
    const c5 = t1.cacheAfter();
    const c6 = t3.cacheBefore();
    t3.merge(1, 2).merge(0, 1).split(0, 4).split(0, 1).split(0, 128).reorder({ 1: 3 });
    propagateTransforms(t3);
    t3.axis(0).parallelize('BIDx');
    t3.axis(1).parallelize('Unswitch');
    t3.axis(3).parallelize('TIDx');
    parallelizeAllLike(t3);
    c5.axis(2).parallelize('Vectorize');
    t3.axis(2).parallelize('Vectorize');
    inlineMost(fusion);
    same(t1, 'T1_g[');
    same(c5, 'T5_l[ iblockIdx.x46');
    same(c6, 'T6_l[ iblockIdx.x38');
    same(t3, 'T3_g[ iblockIdx.x30');
  });

  it('reduction segment: outer reduction over (i0*i1) with TIDy/BIDy, rFactor of the serial parts', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1, -1] });
    fusion.addInput(t0);
    const t4 = sum(t0, [0, 1]);
    fusion.addOutput(t4);
    const c5 = t0.cacheAfter();
    const c6 = t4.cacheBefore();
    const bdx = fusion.namedScalar('blockDim.x');
    const bdy = fusion.namedScalar('blockDim.y');
    const gdy = fusion.namedScalar('gridDim.y');
    c6.merge(0, 1).split(1, bdx).split(0, bdy).split(0, 4).split(0, 1).split(0, gdy);
    c6.reorder({ 5: 0, 6: 1, 0: 2, 1: 3, 4: 4, 2: 5, 3: 6 });
    c6.axis(0).parallelize('BIDx');
    c6.axis(1).parallelize('TIDx');
    c6.axis(3).parallelize('BIDy');
    c6.axis(4).parallelize('TIDy');
    c6.axis(5).parallelize('Unswitch');
    const t7 = c6.rFactor([2, 5, 6]);
    propagateTransforms(t7);
    parallelizeAllLike(t7);
    c5.axis(6).parallelize('Unroll');
    inlineMost(fusion);
    c5.inlineAt(6); // the reduction scheduler keeps the unrolled load loop inside the cache
    same(t0, 'T0_g[');
    same(c5, 'T5_l[ iblockIdx.x52');
    same(t7, 'T7_l[');
    same(c6, 'T6_l[ iblockIdx.x50');
    same(t4, 'T4_g[ iblockIdx.x74');
  });
});
