import { describe, expect, it } from 'vitest';
import {
  Fusion,
  TransformError,
  add,
  broadcast,
  iterDomainToString,
  makeSymbolicTensor,
  makeTensor,
  scalarToInlineString,
  sum,
  type IterDomain,
  type TensorView,
} from '../src/index.js';

const extents = (tv: TensorView): string[] => tv.domain.loop.map((id) => scalarToInlineString(id.extent));
const types = (tv: TensorView): string[] => tv.domain.loop.map((id) => id.iterType[0] as string);

function pointwise2d(): { fusion: Fusion; t0: TensorView; t1: TensorView; t2: TensorView } {
  const fusion = new Fusion();
  const t0 = makeSymbolicTensor(fusion, 2);
  const t1 = makeSymbolicTensor(fusion, 2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  const t2 = add(t0, t1);
  fusion.addOutput(t2);
  return { fusion, t0, t1, t2 };
}

describe('split', () => {
  it('inner split: outer = ceilDiv(extent, factor), inner = factor; Split expr recorded', () => {
    const { t2 } = pointwise2d();
    const [i0, i1] = t2.getLogicalDomain() as [IterDomain, IterDomain];
    t2.split(1, 4);
    expect(t2.nDims()).toBe(3);
    expect(extents(t2)).toEqual([i0.extent.symbolicName(), `( ceilDiv(${i1.extent.symbolicName()}, 4) )`, '4']);
    const def = t2.axis(1).definition;
    expect(def?.kind).toBe('Split');
    expect(def?.inputs).toEqual([i1]);
    expect(t2.axis(2).definition).toBe(def);
    expect(t2.getLogicalDomain()).toEqual([i0, i1]); // logical never changes
  });

  it('outer split reverses the extents; negative axes count from the end', () => {
    const { t2 } = pointwise2d();
    const i1 = t2.getLogicalDomain()[1] as IterDomain;
    t2.split(-1, 8, false);
    expect(extents(t2).slice(1)).toEqual(['8', `( ceilDiv(${i1.extent.symbolicName()}, 8) )`]);
  });

  it('constant extents fold; a symbolic factor Scalar is used as is', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [10, 6] });
    fusion.addInput(t0);
    const t1 = add(t0, 1);
    fusion.addOutput(t1);
    t1.split(0, 4);
    expect(extents(t1)).toEqual(['3', '4', '6']);
    const f = fusion.newSymbolicScalar('Index');
    t1.split(2, f);
    expect(extents(t1)).toEqual(['3', '4', `( ceilDiv(6, ${f.symbolicName()}) )`, f.symbolicName()]);
  });

  it('reduction IDs split into reductions, broadcasts by 1 into broadcasts', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    const t1 = sum(t0, [1]);
    const t2 = broadcast(t1, [false, true]);
    fusion.addOutput(t2);
    t1.split(1, 32);
    expect(types(t1)).toEqual(['I', 'R', 'R']);
    t2.split(1, 1);
    expect(types(t2)).toEqual(['I', 'B', 'B']);
    expect(iterDomainToString(t1.axis(2))).toMatch(/^rS\d+\{32\}$/);
  });

  it('errors: broadcast by factor != 1, bad factor, out of range, inside compute-at', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 1);
    fusion.addInput(t0);
    const t1 = broadcast(t0, [true, false]);
    const t2 = add(t1, 1);
    fusion.addOutput(t2);
    expect(() => t1.split(0, 4)).toThrow(TransformError);
    expect(() => t1.split(0, 4)).toThrow(new RegExp(`T${t1.name}: axis 0 is a broadcast`));
    expect(() => t2.split(0, 0)).toThrow(/positive integer/);
    expect(() => t2.split(0, 2.5)).toThrow(TransformError);
    expect(() => t2.split(2, 4)).toThrow(new RegExp(`split of T${t2.name}: axis 2 is out of range`));
    t1.inlineAt(2);
    expect(() => t1.split(1, 1)).toThrow(/inside the compute-at position 2/);
    expect(() => t2.split(1, 2)).toThrow(/inside the producer position/);
  });
});

describe('merge', () => {
  it('merges adjacent axes into extent outer*inner placed at the outer position', () => {
    const { t2 } = pointwise2d();
    const [i0, i1] = t2.getLogicalDomain() as [IterDomain, IterDomain];
    t2.merge(0);
    expect(t2.nDims()).toBe(1);
    expect(extents(t2)).toEqual([`( ${i0.extent.symbolicName()} * ${i1.extent.symbolicName()} )`]);
    const m = t2.axis(0).definition;
    expect(m?.kind).toBe('Merge');
    expect(m?.inputs).toEqual([i0, i1]);
  });

  it('non-adjacent and reversed merges: outer is axisO, result at min(axisO, axisI)', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 3);
    fusion.addInput(t0);
    const t1 = add(t0, 1);
    fusion.addOutput(t1);
    const [a, b, c] = t1.getLogicalDomain() as [IterDomain, IterDomain, IterDomain];
    t1.merge(2, 0);
    expect(t1.nDims()).toBe(2);
    expect(t1.axis(0).definition?.inputs).toEqual([c, a]);
    expect(t1.axis(1)).toBe(b);
  });

  it('iter types: broadcast x iteration = iteration, reduction x reduction = reduction; iteration x reduction refused', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 3);
    fusion.addInput(t0);
    const t1 = sum(t0, [1, 2]);
    const t2 = broadcast(t1, [true, false]);
    const t3 = add(t2, 1);
    fusion.addOutput(t3);
    expect(() => t1.merge(0, 1)).toThrow(TransformError);
    expect(() => t1.merge(0, 1)).toThrow(/cannot merge Iteration ID \d+ with Reduction ID/);
    t1.merge(1, 2);
    expect(types(t1)).toEqual(['I', 'R']);
    t2.merge(0, 1);
    expect(types(t2)).toEqual(['I']);
    expect(() => t3.merge(0, 0)).toThrow(/with itself/);
  });

  it('refuses merging inside the compute-at position', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 3);
    fusion.addInput(t0);
    const t1 = add(t0, 1);
    const t2 = add(t1, 1);
    fusion.addOutput(t2);
    t1.inlineAt(1);
    expect(() => t1.merge(0, 1)).toThrow(/compute-at position 1/);
    t1.merge(1, 2);
    expect(t1.nDims()).toBe(2);
  });
});

describe('reorder', () => {
  it('moves listed axes; others fill the free slots in order (nvFuser semantics)', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 4);
    fusion.addInput(t0);
    const t1 = add(t0, 1);
    fusion.addOutput(t1);
    const [a, b, c, d] = t1.getLogicalDomain() as IterDomain[];
    t1.reorder({ 0: 2 });
    expect(t1.getLoopDomain()).toEqual([b, c, a, d]);
    t1.reorder([[-1, 0]]);
    expect(t1.getLoopDomain()).toEqual([d, b, c, a]);
    t1.reorder({ 0: 3, 3: 0 });
    expect(t1.getLoopDomain()).toEqual([a, b, c, d]);
  });

  it('rejects out-of-range and duplicate entries and moves across compute-at', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 3);
    fusion.addInput(t0);
    const t1 = add(t0, 1);
    const t2 = add(t1, 2);
    fusion.addOutput(t2);
    expect(() => t1.reorder({ 3: 0 })).toThrow(/axis 3 is out of range/);
    expect(() => t1.reorder([[0, 1], [0, 2]])).toThrow(/moved twice/);
    expect(() => t1.reorder({ 0: 1, 2: 1 })).toThrow(/two axes moved to position 1/);
    t1.inlineAt(1);
    expect(() => t1.reorder({ 0: 2 })).toThrow(TransformError);
    t1.reorder({ 1: 2 });
    expect(t1.nDims()).toBe(3);
  });
});
