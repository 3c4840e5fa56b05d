// The pointwise scheduler's 2-D schedule for slice / pad / cat (pointwise/resize/two-d.ts): rows
// on blockIdx.y (+ threadIdx.y), the innermost dim on blockIdx.x · blockDim.x · vector, chosen
// when the rows hold more vectors than a warp; rows of ≥ 256 vectors as 128 threads × 2 vectors
// a row, narrower ones not unrolled; the 1-D
// schedule kept for narrow rows, rank 1 and small fusions. The schedule evaluates like the fusion.
import { describe, expect, it } from 'vitest';
import { cat, evaluate, Fusion, HostTensor, makeTensor, mul, pad, slice, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { computePointwiseHeuristics, makeRuntimeInfo, schedulePointwise, type PointwiseParams } from '../src/index.js';

function single(shape: number[], build: (x: TensorView) => TensorView, dtype: DataType = 'BFloat16'): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: shape.map(() => -1), dtype });
  f.addInput(x);
  f.addOutput(build(x));
  return f;
}

function catOf(n: number, dim: number, dtype: DataType = 'BFloat16'): Fusion {
  const f = new Fusion();
  const ts = Array.from({ length: n }, () => makeTensor(f, { shape: [-1, -1], dtype }));
  ts.forEach((t) => f.addInput(t));
  f.addOutput(cat(ts, dim));
  return f;
}

function heur(f: Fusion, sizes: number[][]): PointwiseParams {
  return computePointwiseHeuristics(f, makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s }))));
}

describe('pointwise scheduler: 2-D schedule for slice / pad / cat', () => {
  it('pad_bf16 (F.pad(x, (8, 8, 1, 1)) of [8192, 4096] bf16): rows on blockIdx.y, vectors of 8, 128 × 1 threads, unroll 2', () => {
    const p = heur(single([8192, 4096], (x) => pad(x, [8, 8, 1, 1])), [[8192, 4096]]);
    expect(p.breakPoint).toBe(1);
    expect(p.vectorizationFactor).toBe(8);
    expect(p.vectorizedInputs).toEqual([0]);
    expect(p.vectorizedOutputs).toEqual([0]);
    expect(p.unrollFactorInner).toBe(2);
    // 4112 / 8 = 514 vectors a row: 3 blocks of 128 threads × 2 vectors (the last one partly idle); a row a block.
    expect(p.lparams).toMatchObject({ bdimx: 128, bdimy: 1, gdimx: 3, gdimy: 8194 });
    expect(p.divisibleSplits).toEqual([true, false, false]);
  });

  it('cat of three [8192, 4096] bf16 along dim 0 and dim 1: 2-D, vectors of 8, 128 threads × 2 vectors, every split divisible', () => {
    const c0 = heur(catOf(3, 0), [[8192, 4096], [8192, 4096], [8192, 4096]]);
    expect([c0.breakPoint, c0.vectorizationFactor, c0.lparams.bdimx, c0.lparams.bdimy, c0.lparams.gdimx, c0.unrollFactorInner]).toEqual([1, 8, 128, 1, 2, 2]);
    expect(c0.lparams.gdimy).toBe(24576);
    expect(c0.divisibleSplits).toEqual([true, true, true]);
    const c1 = heur(catOf(3, 1), [[8192, 4096], [8192, 4096], [8192, 4096]]);
    expect([c1.breakPoint, c1.vectorizationFactor, c1.lparams.bdimx, c1.lparams.gdimx, c1.lparams.gdimy, c1.unrollFactorInner]).toEqual([1, 8, 128, 6, 8192, 2]);
  });

  it('rows of fewer than 256 vectors keep the unroll-1 blocks: 512 threads where they tile the row, else up to 256 (rows on threadIdx.y too)', () => {
    const tiled = heur(single([8192, 2048], (x) => pad(x, [0, 2048])), [[8192, 2048]]); // 4096 / 8 = 512 vectors
    expect([tiled.lparams.bdimx, tiled.unrollFactorInner]).toEqual([128, 2]);
    const narrow = heur(single([65536, 1024], (x) => pad(x, [8, 8])), [[65536, 1024]]); // 1040 / 8 = 130 vectors
    expect([narrow.breakPoint, narrow.lparams.bdimx, narrow.lparams.bdimy, narrow.unrollFactorInner]).toEqual([1, 256, 1, 1]);
    const short = heur(single([65536, 256], (x) => pad(x, [8, 8])), [[65536, 256]]); // 272 / 8 = 34 vectors
    expect([short.breakPoint, short.lparams.bdimx, short.lparams.bdimy, short.unrollFactorInner]).toEqual([1, 64, 4, 1]);
    const edge = heur(single([8192, 2040], (x) => pad(x, [0, 8])), [[8192, 2040]]); // 2048 / 8 = 256 vectors: unrolled
    expect([edge.lparams.bdimx, edge.lparams.gdimx, edge.unrollFactorInner]).toEqual([128, 1, 2]);
  });

  it('a slice with an aligned offset goes 2-D and vectorized; an unaligned one 2-D with vectors the offset allows', () => {
    const aligned = heur(single([4096, 2048], (x) => slice(x, [0, 64], [4096, 2048])), [[4096, 2048]]);
    expect([aligned.breakPoint, aligned.vectorizationFactor]).toEqual([1, 8]);
    const odd = heur(single([4096, 2048], (x) => slice(x, [1, 3], [4096, 2048])), [[4096, 2048]]);
    expect([odd.breakPoint, odd.vectorizationFactor]).toEqual([1, 1]);
    const two = heur(single([4096, 2048], (x) => slice(x, [0, 2], [4096, 2048]), 'Float'), [[4096, 2048]]);
    expect([two.breakPoint, two.vectorizationFactor]).toEqual([1, 2]);
  });

  it('rank 3: the outer dims merge on the outer side (break point 2)', () => {
    const p = heur(single([16, 512, 1024], (x) => pad(x, [8, 8, 0, 0, 1, 0])), [[16, 512, 1024]]);
    expect([p.breakPoint, p.vectorizationFactor]).toEqual([2, 8]);
    expect(p.lparams.gdimy * p.lparams.bdimy).toBeGreaterThanOrEqual(17 * 512);
  });

  it('more rows than gridDim.y holds: the outer side loops (split grid y), unvectorized for an odd pad', () => {
    const p = heur(single([300000, 64], (x) => pad(x, [1, 0]), 'Float'), [[300000, 64]]);
    expect([p.breakPoint, p.vectorizationFactor, p.splitGridYDim, p.lparams.bdimx, p.lparams.bdimy, p.lparams.gdimy]).toEqual([1, 1, true, 128, 2, 65535]);
  });

  it('keeps the 1-D schedule for rows of ≤ a warp of vectors, rank 1, a small fusion, and an explicit break point 0', () => {
    expect(heur(single([65536, 256], (x) => pad(x, [8, 8])), [[65536, 256]]).breakPoint).toBe(1); // 272 / 8 = 34 vectors > 32
    expect(heur(single([65536, 248], (x) => pad(x, [0, 8])), [[65536, 248]]).breakPoint).toBe(0); // 256 / 8 = 32 vectors
    expect(heur(single([1 << 22], (x) => pad(x, [8, 8])), [[1 << 22]]).breakPoint).toBe(0);
    expect(heur(single([4, 1000], (x) => pad(x, [8, 8])), [[4, 1000]]).breakPoint).toBe(0);
    const f = single([8192, 4096], (x) => pad(x, [8, 8, 1, 1]));
    expect(computePointwiseHeuristics(f, makeRuntimeInfo(f, [{ sizes: [8192, 4096] }]), { breakPoint: 0 }).breakPoint).toBe(0);
  });

  it('a maxVectorize override narrows the vectors (tuning experiments), never widens them', () => {
    const f = single([8192, 4096], (x) => pad(x, [8, 8, 1, 1]));
    const info = makeRuntimeInfo(f, [{ sizes: [8192, 4096] }]);
    expect(computePointwiseHeuristics(f, info, { maxVectorize: 2 }).vectorizationFactor).toBe(2);
    expect(computePointwiseHeuristics(f, info, { maxVectorize: 16 }).vectorizationFactor).toBe(8);
  });

  it('resize fusions are not unrolled 1-D, nor 2-D but along wide rows, unless asked', () => {
    const f = single([8192, 4096], (x) => pad(x, [8, 8, 1, 1]));
    const info = makeRuntimeInfo(f, [{ sizes: [8192, 4096] }]);
    expect(computePointwiseHeuristics(f, info).unrollFactorInner).toBe(2);
    expect(computePointwiseHeuristics(f, info, { breakPoint: 1 }).unrollFactorInner).toBe(1);
    expect(computePointwiseHeuristics(f, info, { bdimx: 256 }).unrollFactorInner).toBe(1);
    expect(computePointwiseHeuristics(f, info, { unroll: 1 }).lparams).toMatchObject({ bdimx: 128, gdimx: 5 });
    expect(computePointwiseHeuristics(f, info, { breakPoint: 0 }).unrollFactorInner).toBe(1);
    expect(computePointwiseHeuristics(f, info, { breakPoint: 0, unroll: 4 }).unrollFactorInner).toBe(4);
  });

  it('the 2-D schedule evaluates like the fusion (pad with a value, crop, cat and slice)', () => {
    const cases: [Fusion, number[][]][] = [
      [single([5, 300], (x) => mul(pad(x, [8, -3, 1, -2], 1.5), 2), 'Float'), [[5, 300]]],
      [catOf(3, 1, 'Float'), [[4, 40], [4, 24], [4, 80]]],
      [catOf(2, 0, 'Float'), [[3, 200], [2, 200]]],
      [single([6, 333], (x) => slice(x, [1, 5], [6, 300]), 'Float'), [[6, 333]]],
    ];
    for (const [f, sizes] of cases) {
      const info = makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s })));
      const params = computePointwiseHeuristics(f, info, { breakPoint: 1, bdimx: 32, unroll: 2 });
      const scheduled = schedulePointwise(f.clone().fusion, params);
      const inputs = sizes.map((s, i) => {
        const n = s.reduce((a, b) => a * b, 1);
        return HostTensor.fromValues('Float', s, Array.from({ length: n }, (_, k) => Math.sin(k * 0.731 + i)));
      });
      const want = (evaluate(f, inputs)[0] as HostTensor).toNumbers();
      const got = (evaluate(scheduled.fusion, inputs)[0] as HostTensor).toNumbers();
      expect(got).toEqual(want);
    }
  });
});
