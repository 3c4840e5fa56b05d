import { describe, expect, it } from 'vitest';
import {
  Fusion,
  HostTensor,
  TransformError,
  add,
  evaluate,
  iterDomainToString,
  makeSymbolicTensor,
  max,
  sum,
  welford,
  type IterDomain,
  type TensorView,
} from '../src/index.js';
import { close, randomTensor } from './eval-helpers.js';

const kinds = (ids: readonly IterDomain[]): string => ids.map((id) => `${id.iterType[0]}${id.isRFactorProduct ? 'rf' : ''}`).join(' ');

function reduction(rank: number, axes: number[], op: typeof sum = sum): { fusion: Fusion; t0: TensorView; t1: TensorView; t2: TensorView } {
  const fusion = new Fusion();
  const t0 = makeSymbolicTensor(fusion, rank);
  fusion.addInput(t0);
  const t1 = op(t0, axes);
  const t2 = add(t1, 1);
  fusion.addOutput(t2);
  return { fusion, t0, t1, t2 };
}

function expectSameValues(fusion: Fusion, before: readonly unknown[], inputs: HostTensor[]): void {
  const after = evaluate(fusion, inputs);
  const a = (before[0] as HostTensor).data as ArrayLike<number>;
  const b = (after[0] as HostTensor).data as ArrayLike<number>;
  expect(b.length).toBe(a.length);
  for (let i = 0; i < a.length; i += 1) expect(close(b[i] as number, a[i] as number, 'Float')).toBe(true);
}

describe('rFactor', () => {
  it('split reduction, rFactor the inner part: partial P reduces it, tv reduces the outer part', () => {
    const { fusion, t0, t1 } = reduction(2, [1]);
    const x = randomTensor('Float', [3, 10], false);
    const before = evaluate(fusion, [x]);
    t1.split(1, 4);
    const p = t1.rFactor([2]);
    // P: root = copy of tv's logical, logical = the split outputs (inner reduced, outer kept)
    expect(kinds(p.domain.root ?? [])).toBe('I R');
    expect(kinds(p.domain.logical)).toBe('I Irf Rrf');
    expect(p.domain.logical[1]?.definition?.kind).toBe('Split');
    expect(p.domain.logical[1]?.definition?.inputs).toEqual([p.domain.root?.[1]]);
    expect(p.domain.loop).toEqual(p.domain.logical);
    expect(p.memoryType).toBe('Local');
    expect(iterDomainToString(p.domain.logical[2] as IterDomain)).toMatch(/^rS\d+\{4\}rf$/);
    // tv: one logical ID per kept P dim, the outer split part now a reduction
    expect(kinds(t1.domain.logical)).toBe('I R');
    expect(t1.nDims()).toBe(2);
    expect(t1.domain.logical[1]?.extent).toBe(p.domain.logical[1]?.extent);
    expect(t1.definition?.kind).toBe('ReductionOp');
    expect(t1.definition?.inputs).toEqual([p]);
    expect(p.definition?.inputs).toEqual([t0]);
    expectSameValues(fusion, before, [x]);
  });

  it('rFactor the outer part keeps the inner part for tv; loop order and parallel types are kept', () => {
    const { fusion, t1 } = reduction(2, [1], max);
    const x = randomTensor('Float', [5, 9], true);
    const before = evaluate(fusion, [x]);
    t1.split(1, 4).reorder({ 2: 0 });
    t1.axis(0).parallelize('TIDx');
    const p = t1.rFactor([2]);
    expect(kinds(p.domain.logical)).toBe('I Irf Rrf'); // rf leaves in tv's loop order
    expect(p.domain.loop.map((id) => id.parallelType)).toEqual(['TIDx', 'Serial', 'Serial']);
    expect(kinds(p.domain.loop)).toBe('Irf I Rrf');
    expect(kinds(t1.domain.loop)).toBe('R I');
    expect(t1.axis(0).parallelType).toBe('TIDx');
    expectSameValues(fusion, before, [x]);
  });

  it('a reduction ID with no rFactored part is an iteration in P and a reduction in tv (nvFuser)', () => {
    const { fusion, t1 } = reduction(3, [1, 2]);
    const x = randomTensor('Float', [2, 3, 7], false);
    const before = evaluate(fusion, [x]);
    t1.split(2, 2);
    const p = t1.rFactor([3]);
    expect(kinds(p.domain.root ?? [])).toBe('I I R');
    expect(kinds(p.domain.logical)).toBe('I I Irf Rrf');
    expect(kinds(t1.domain.logical)).toBe('I R R');
    expectSameValues(fusion, before, [x]);
  });

  it('merged reductions split and rFactored', () => {
    const { fusion, t1 } = reduction(3, [0, 2]);
    const x = randomTensor('Float', [3, 4, 5], false);
    const before = evaluate(fusion, [x]);
    t1.reorder({ 0: 1 }).merge(1).split(1, 4);
    expect(kinds(t1.domain.loop)).toBe('I R R');
    const p = t1.rFactor([1]);
    expect(kinds(p.domain.root ?? [])).toBe('R I R');
    expect(kinds(p.domain.logical)).toBe('Rrf Irf I');
    expect(kinds(t1.domain.logical)).toBe('R I');
    expect(kinds(t1.domain.loop)).toBe('I R');
    expectSameValues(fusion, before, [x]);
  });

  it('errors name the tensor and axis', () => {
    const { t0, t1, t2 } = reduction(2, [1]);
    t1.split(1, 4);
    expect(() => t1.rFactor([0])).toThrow(new RegExp(`rFactor of T${t1.name}: axis 0 \\(\\d+\\) is not a reduction ID`));
    expect(() => t1.rFactor([1, 2])).toThrow(/leave at least one/);
    expect(() => t1.rFactor([1, 1])).toThrow(/given twice/);
    expect(() => t1.rFactor([5])).toThrow(TransformError);
    expect(() => t2.rFactor([0])).toThrow(/not the output of a reduction/);
    expect(() => t0.rFactor([0])).toThrow(TransformError);
  });
});

describe('rFactor of welford', () => {
  it('all three outputs get partials; the second welford merges partial states; values unchanged', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2, 'Double');
    fusion.addInput(t0);
    const w = welford(t0, [1]);
    fusion.addOutput(w.avg);
    fusion.addOutput(w.varSum);
    fusion.addOutput(w.n);
    const x = randomTensor('Double', [3, 23], false);
    const before = evaluate(fusion, [x]) as HostTensor[];
    w.varSum.split(1, 4);
    const p = w.varSum.rFactor([2]);
    const def = w.avg.definition;
    expect(def?.kind).toBe('WelfordOp');
    expect(p.definition?.kind).toBe('WelfordOp');
    expect(p.definition?.outputs[1]).toBe(p);
    expect(def?.inputs).toEqual(p.definition?.outputs);
    for (const o of [w.avg, w.varSum, w.n]) expect(kinds(o.domain.logical)).toBe('I R');
    expect(kinds(p.domain.logical)).toBe('I Irf Rrf');
    const after = evaluate(fusion, [x]) as HostTensor[];
    after.forEach((t, i) => {
      const want = (before[i] as HostTensor).toNumbers();
      t.toNumbers().forEach((v, k) => expect(close(v, want[k] as number, 'Double')).toBe(true));
    });
  });
});
