import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { Fusion, HostTensor, ReductionOp, Split, TensorDomain, WelfordOp, evaluate, makeTensor, type TensorView } from '../src/index.js';
import { close, randomTensor } from './eval-helpers.js';

/**
 * Builds by hand what rFactor produces for a reduction over the last dim of a 2-d tensor: a
 * partial tensor with root [i0, r1] and logical [i0, r1o (iteration), r1i (reduction)] through a
 * Split by `factor`, and the final reduction over r1o.
 */
function rFactorDomains(fusion: Fusion, input: TensorView, factor: number): { partial: TensorDomain; final: TensorDomain } {
  const [d0, d1] = input.domain.logical as [ops.IterDomain, ops.IterDomain];
  const i0 = fusion.newIterDomain(d0.extent, 'Iteration');
  const r1 = fusion.newIterDomain(d1.extent, 'Reduction');
  const outerExtent = ops.binaryOp('ceilDiv', d1.extent, fusion.index(factor)) as ops.Scalar;
  const outer = fusion.newIterDomain(outerExtent, 'Iteration', { isRFactorProduct: true });
  const inner = fusion.newIterDomain(fusion.index(factor), 'Reduction', { isRFactorProduct: true });
  new Split(fusion, outer, inner, r1, fusion.index(factor), true);
  const partial = new TensorDomain({ root: [i0, r1], logical: [i0, outer, inner] });
  const final = new TensorDomain({ logical: [fusion.newIterDomain(d0.extent, 'Iteration'), fusion.newIterDomain(outerExtent, 'Reduction')] });
  return { partial, final };
}

/** A fusion of one Double [-1, -1] input and welford over dim 1; outputs avg, varSum, n (and `extra`). */
function rowWelford(extra: (t0: ReturnType<typeof makeTensor>) => ReturnType<typeof makeTensor>[] = () => []): Fusion {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: [-1, -1], dtype: 'Double' });
  fusion.addInput(t0);
  const w = ops.welford(t0, [1]);
  for (const o of [w.avg, w.varSum, w.n, ...extra(t0)]) fusion.addOutput(o);
  return fusion;
}

describe('reductions under schedules', () => {
  for (const op of ['add', 'max', 'mul'] as const) {
    it(`an rFactored ${op} reduction gives bit-identical results to the plain one`, () => {
      const x = randomTensor('Float', [5, 37]);
      const plain = new Fusion();
      const p0 = makeTensor(plain, { shape: [-1, -1] });
      plain.addInput(p0);
      plain.addOutput(op === 'add' ? ops.sum(p0, [1]) : op === 'max' ? ops.max(p0, [1]) : ops.prod(p0, [1]));
      const [want] = evaluate(plain, [x]) as [HostTensor];

      const fusion = new Fusion();
      const t0 = makeTensor(fusion, { shape: [-1, -1] });
      fusion.addInput(t0);
      const { partial, final } = rFactorDomains(fusion, t0, 4);
      const init = fusion.constant(op === 'add' ? 0 : op === 'mul' ? 1 : -Infinity, 'Float');
      const tp = fusion.newTensorView(partial, 'Float');
      new ReductionOp(fusion, op, init, tp, t0);
      const tf = fusion.newTensorView(final, 'Float');
      new ReductionOp(fusion, op, init, tf, tp);
      fusion.addOutput(tf);
      // A loop-domain split (and a parallel type) on the output must not matter either.
      const l0 = tf.domain.logical[0] as ops.IterDomain;
      const lo = fusion.newIterDomain(ops.binaryOp('ceilDiv', l0.extent, fusion.index(2)) as ops.Scalar, 'Iteration');
      const li = fusion.newIterDomain(fusion.index(2), 'Iteration').parallelize('TIDx');
      new Split(fusion, lo, li, l0, fusion.index(2), true);
      tf.domain.loop = [lo, li, tf.domain.logical[1] as ops.IterDomain];
      const [got] = evaluate(fusion, [x]) as [HostTensor];
      expect(got.sizes).toEqual([5]);
      expect(got.toNumbers()).toEqual(want.toNumbers());
    });
  }

  it('an rFactored welford (partial states merged) equals the plain welford bit for bit', () => {
    const x = randomTensor('Double', [3, 29], false);
    const want = evaluate(rowWelford(), [x]) as HostTensor[];

    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1], dtype: 'Double' });
    fusion.addInput(t0);
    const { partial, final } = rFactorDomains(fusion, t0, 8);
    const clone = (d: TensorDomain): TensorDomain => new TensorDomain({ root: d.root, logical: d.logical });
    const pa = fusion.newTensorView(partial, 'Double');
    const pv = fusion.newTensorView(clone(partial), 'Double');
    const pn = fusion.newTensorView(clone(partial), 'Index');
    new WelfordOp(fusion, { avg: pa, varSum: pv, n: pn }, { avg: t0, varSum: null, n: fusion.index(1) });
    const fa = fusion.newTensorView(final, 'Double');
    const fv = fusion.newTensorView(new TensorDomain({ logical: final.logical }), 'Double');
    const fn = fusion.newTensorView(new TensorDomain({ logical: final.logical }), 'Index');
    new WelfordOp(fusion, { avg: fa, varSum: fv, n: fn }, { avg: pa, varSum: pv, n: pn });
    fusion.addOutput(fa);
    fusion.addOutput(fv);
    fusion.addOutput(fn);
    const got = evaluate(fusion, [x]) as HostTensor[];
    got.forEach((g, i) => expect(g.toNumbers()).toEqual((want[i] as HostTensor).toNumbers()));
  });
});

describe('welford, mean and variance', () => {
  it('welford avg / M2 / N against a two-pass computation; var with correction', () => {
    const x = randomTensor('Double', [4, 50], false);
    const fusion = rowWelford((t0) => [ops.varMean(t0, [1], 0).var]);
    const [avg, m2, n, v0] = evaluate(fusion, [x]) as HostTensor[];
    const xs = x.toNumbers();
    for (let r = 0; r < 4; r += 1) {
      const row = xs.slice(r * 50, r * 50 + 50);
      const mean = row.reduce((a, b) => a + b, 0) / 50;
      const ss = row.reduce((a, b) => a + (b - mean) ** 2, 0);
      expect(close((avg as HostTensor).getNumber(r), mean, 'Double')).toBe(true);
      expect(close((m2 as HostTensor).getNumber(r), ss, 'Double')).toBe(true);
      expect((n as HostTensor).get(r)).toBe(50n);
      expect(close((v0 as HostTensor).getNumber(r), ss / 50, 'Double')).toBe(true);
    }
  });

  it('non-finite inputs: M2 of one element is 0 for a huge finite x and NaN for Inf or NaN; a NaN anywhere in a row makes M2 NaN', () => {
    const fusion = rowWelford();
    // One element per row.
    const single = HostTensor.fromValues('Double', [4, 1], [1e200, Infinity, NaN, -2]);
    const [avg1, m21] = evaluate(fusion, [single]) as HostTensor[];
    expect((avg1 as HostTensor).toNumbers()).toEqual([1e200, Infinity, NaN, -2]);
    expect((m21 as HostTensor).toNumbers()).toEqual([0, NaN, NaN, 0]);
    // Several per row: the NaN may come first or later.
    const rows = HostTensor.fromValues('Double', [3, 3], [NaN, 1, 2, 1, 2, NaN, 1, 2, 3]);
    const [, m2] = evaluate(fusion, [rows]) as HostTensor[];
    expect((m2 as HostTensor).toNumbers()).toEqual([NaN, NaN, 2]);
  });

  it('half input: sum accumulates in float and rounds once; NaN propagates through max; empty welford is NaN', () => {
    const x = randomTensor('Half', [3, 40], false);
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1], dtype: 'Half' });
    fusion.addInput(t0);
    fusion.addOutput(ops.sum(t0, [1]));
    const [s] = evaluate(fusion, [x]) as [HostTensor];
    const xs = x.toNumbers();
    for (let r = 0; r < 3; r += 1) {
      const want = xs.slice(r * 40, r * 40 + 40).reduce((a, b) => a + b, 0);
      expect(close(s.getNumber(r), want, s.dtype)).toBe(true);
    }
    const empty = new Fusion();
    const e0 = makeTensor(empty, { shape: [-1, -1], dtype: 'Float' });
    empty.addInput(e0);
    const w = ops.welford(e0, [1]);
    empty.addOutput(w.avg);
    empty.addOutput(w.n);
    const [a, n] = evaluate(empty, [HostTensor.empty('Float', [2, 0])]) as HostTensor[];
    expect((a as HostTensor).toNumbers().every(Number.isNaN)).toBe(true);
    expect((n as HostTensor).toNumbers()).toEqual([0, 0]);
  });
});
