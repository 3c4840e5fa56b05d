// Structure of composites and factories: each builds real IR from existing Expr kinds.
import { describe, expect, it } from 'vitest';
import {
  Fusion, addcdiv, addcmul, arange, batchNorm, cast, dropout, erfcinv, full, fullLike, geluBackward, iota, layerNorm,
  logSoftmax, makeTensor, ones, reluBackward, rmsNorm, siluBackward, softmax, softplus, tanhBackward, zeros,
  type DataType, type TensorView,
} from '../src/index.js';

function input(fusion: Fusion, shape: number[], dtype: DataType = 'Float'): TensorView {
  const t = makeTensor(fusion, { shape, dtype });
  fusion.addInput(t);
  return t;
}
const sizes = (t: TensorView): (number | null)[] => t.domain.logicalNoReductions().map((id) => id.logicalExtent().constNumber());
const kinds = (f: Fusion, out: TensorView): string[] => {
  f.addOutput(out);
  return f.exprs().map((e) => e.kind);
};

describe('normalization composites', () => {
  it('softmax subtracts the max and reduces twice; Half computes in Float', () => {
    const f = new Fusion();
    const x = input(f, [-1, -1], 'Half');
    const y = softmax(x, -1);
    expect(y.dtype).toBe('Half');
    const k = kinds(f, y);
    expect(k.filter((e) => e === 'ReductionOp').length).toBe(2);
    expect(k[0]).toBe('UnaryOp'); // the cast to Float
    expect(logSoftmax(x, 0).rank()).toBe(2);
    expect(() => softmax(x, 2)).toThrow(/dim 2 is out of range for T0/);
  });
  it('layerNorm returns output, mean and invstd (keepdim)', () => {
    const f = new Fusion();
    const x = input(f, [4, 8]);
    const w = input(f, [8]);
    const b = input(f, [8]);
    const r = layerNorm(x, [8], w, b, 1e-5);
    expect(sizes(r.output)).toEqual([4, 8]);
    expect(sizes(r.mean)).toEqual([4, 1]);
    expect(sizes(r.invstd)).toEqual([4, 1]);
    expect(kinds(f, r.output)).toContain('WelfordOp');
    expect(() => layerNorm(x, [7])).toThrow(/normalized shape \[7\]/);
    expect(() => layerNorm(x, 1, input(f, [5]))).toThrow(/weight T\d+\[5\] \(Float\) should have sizes \[8\]/);
  });
  it('rmsNorm', () => {
    const f = new Fusion();
    const x = input(f, [4, 8], 'BFloat16');
    const r = rmsNorm(x, 1, null, 1e-6);
    expect(r.output.dtype).toBe('BFloat16');
    expect(sizes(r.invstd)).toEqual([4, 1]);
  });
  it('batchNorm training returns updated running stats as new tensors', () => {
    const f = new Fusion();
    const x = input(f, [2, 3, 5]);
    const [w, b, rm, rv] = [input(f, [3]), input(f, [3]), input(f, [3]), input(f, [3])];
    const r = batchNorm(x, w, b, rm, rv, 0.1, 1e-5, true);
    expect(sizes(r.output)).toEqual([2, 3, 5]);
    expect(sizes(r.mean)).toEqual([3]);
    expect(r.newRunningMean && sizes(r.newRunningMean)).toEqual([3]);
    expect(r.newRunningVar?.dtype).toBe('Float');
    const inf = batchNorm(x, null, null, rm, rv, 0.1, 1e-5, false);
    expect(inf.newRunningMean).toBeNull();
    expect(kinds(f, inf.output)).not.toContain('WelfordOp');
    expect(() => batchNorm(x, null, null, null, null, 0.1, 1e-5, false)).toThrow(/needs runningMean and runningVar/);
    expect(() => batchNorm(x, input(f, [4]), null, null, null, 0.1, 1e-5, true)).toThrow(/weight .*should have sizes \[3\]/);
  });
});

describe('pointwise composites', () => {
  it('build from existing exprs and keep the grad dtype', () => {
    const f = new Fusion();
    const g = input(f, [-1], 'Half');
    const x = input(f, [-1], 'Half');
    for (const y of [geluBackward(g, x), geluBackward(g, x, 'tanh'), siluBackward(g, x), tanhBackward(g, x), reluBackward(g, x)]) {
      expect(y.dtype).toBe('Half');
      expect(y.rank()).toBe(1);
    }
    expect(addcmul(x, g, g, 0.5).dtype).toBe('Half');
    expect(addcdiv(input(f, [-1], 'Int'), 1, 2).dtype).toBe('Float');
    expect(softplus(x).dtype).toBe('Half');
    expect(erfcinv(x).definition?.kind).toBe('UnaryOp');
  });
  it('dropout is the identity in inference and rand_like < keep in training', () => {
    const f = new Fusion();
    const x = input(f, [-1]);
    expect(dropout(x, 0.5, false).definition?.kind).toBe('LoadStoreOp');
    expect(f.allExprs().some((e) => e.kind === 'RNGOp')).toBe(false);
    dropout(x, 0.5, true);
    expect(f.allExprs().filter((e) => e.kind === 'RNGOp')).toHaveLength(1);
    expect(() => dropout(x, 2, false)).toThrow(/probability 2/);
  });
});

describe('factories and cast', () => {
  it('full/zeros/ones/fullLike and iota/arange', () => {
    const f = new Fusion();
    const t = full(f, [2, 1, 3], 7, 'Int32');
    expect(t.definition?.kind).toBe('FullOp');
    expect(t.domain.logical.map((id) => id.iterType)).toEqual(['Iteration', 'Broadcast', 'Iteration']);
    expect(zeros(f, [4]).dtype).toBe('Float');
    expect(ones(f, [4], 'Half').dtype).toBe('Half');
    const x = input(f, [-1, 3]);
    const l = fullLike(x, 1.5);
    expect(l.domain.logical[0]?.extent).toBe(x.domain.logical[0]?.extent);
    const i = iota(f, 5, 2, 3, 'Int');
    expect(i.definition?.kind).toBe('IotaOp');
    expect(sizes(arange(f, 0, 10, 3))).toEqual([4]);
    expect(sizes(arange(f, 1, 2, 0.25, 'Float'))).toEqual([4]);
    expect(() => full(f, [-2], 0, 'Float')).toThrow(/negative size -2/);
  });
  it('cast to an unknown dtype name is an error', () => {
    const f = new Fusion();
    const x = input(f, [-1]);
    expect(() => cast(x, 'Float8' as DataType)).toThrow(/unknown dtype 'Float8'/);
    expect(cast(x, 'Half').dtype).toBe('Half');
  });
});
