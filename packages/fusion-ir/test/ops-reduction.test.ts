// Structure of reductions, welford and the statistics built on them.
import { describe, expect, it } from 'vitest';
import { Fusion, makeTensor, max, mean, min, prod, std, sum, varMean, variance, welford, type DataType, type TensorView } from '../src/index.js';

function input(fusion: Fusion, shape: number[], dtype: DataType = 'Float'): TensorView {
  const t = makeTensor(fusion, { shape, dtype });
  fusion.addInput(t);
  return t;
}
const iterTypes = (t: TensorView): string[] => t.domain.logical.map((id) => id.iterType);

describe('sum/prod/max/min', () => {
  it('integral and bool sums accumulate in Int; max/min keep the dtype', () => {
    const f = new Fusion();
    const i = input(f, [-1, -1], 'Int32');
    const b = input(f, [-1], 'Bool');
    expect(sum(i, [0]).dtype).toBe('Int');
    expect(prod(b, [0]).dtype).toBe('Int');
    expect(max(i, [1]).dtype).toBe('Int32');
    expect(min(input(f, [-1], 'Half'), [0]).dtype).toBe('Half');
  });
  it('dtype casts the input first', () => {
    const f = new Fusion();
    const h = input(f, [-1, -1], 'Half');
    const s = sum(h, [1], false, 'Float');
    expect(s.dtype).toBe('Float');
    expect(s.definition?.kind).toBe('ReductionOp');
    expect(s.definition?.in().definition?.kind).toBe('UnaryOp');
  });
  it('reduced dims become Reduction IDs; keepdim broadcasts them back', () => {
    const f = new Fusion();
    const t = input(f, [2, 0, 4]);
    const s = sum(t, [1]);
    expect(iterTypes(s)).toEqual(['Iteration', 'Reduction', 'Iteration']);
    expect(s.rank()).toBe(2);
    expect(s.domain.logical[1]?.extent.constNumber()).toBe(0);
    const k = sum(t, [-1], true);
    expect(k.rank()).toBe(3);
    expect(k.domain.logical[2]?.isBroadcast()).toBe(true);
    expect(() => sum(t, [0, 0])).toThrow(/repeated axis/);
    expect(() => max(t, [-4])).toThrow(/axis -4 is out of range for T0\[2, 0, 4\]/);
  });
});

describe('welford and statistics', () => {
  it('welford gives avg, varSum and an Index count from one WelfordOp', () => {
    const f = new Fusion();
    const t = input(f, [-1, -1]);
    const w = welford(t, [1]);
    expect(w.avg.definition).toBe(w.n.definition);
    expect(w.avg.definition?.kind).toBe('WelfordOp');
    expect(w.n.dtype).toBe('Index');
    expect(w.varSum.dtype).toBe('Float');
    expect(iterTypes(w.avg)).toEqual(['Iteration', 'Reduction']);
    expect(welford(input(f, [-1], 'Half'), [0]).avg.dtype).toBe('Float');
  });
  it('mean divides the sum by the product of reduced extents', () => {
    const f = new Fusion();
    const t = input(f, [3, 4, 5]);
    const m = mean(t, [0, 2]);
    expect(m.rank()).toBe(1);
    const def = m.definition;
    expect(def?.kind).toBe('BinaryOp');
    const n = def?.inputs[1];
    expect(n?.kind === 'scalar' && n.constNumber()).toBe(15);
    const i = input(f, [3], 'Int');
    expect(() => mean(i, [0])).toThrow(new RegExp(`mean: T${i.name}\\[3\\] \\(Int\\) is not floating point`));
  });
  it('varMean, variance and std keep shapes and dtypes', () => {
    const f = new Fusion();
    const h = input(f, [-1, 8], 'Half');
    const vm = varMean(h, [1], 1, true);
    expect(vm.var.dtype).toBe('Half');
    expect(vm.mean.dtype).toBe('Half');
    expect(vm.var.rank()).toBe(2);
    expect(variance(h, [0]).rank()).toBe(1);
    expect(std(h, [-1]).dtype).toBe('Half');
    expect(f.exprs().length).toBe(0); // nothing is an output yet: exprs() walks from outputs
    f.addOutput(vm.var);
    expect(f.exprs().some((e) => e.kind === 'WelfordOp')).toBe(true);
  });
});
