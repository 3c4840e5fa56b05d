import { describe, expect, it } from 'vitest';
import {
  Fusion,
  PairwiseLogicalDomainMap,
  TransformError,
  add,
  broadcast,
  makeSymbolicTensor,
  mul,
  parallelizeAllLike,
  permute,
  propagateTransforms,
  scalarToInlineString,
  sum,
  type IterDomain,
  type TensorView,
} from '../src/index.js';

const extents = (tv: TensorView): string[] => tv.domain.loop.map((id) => scalarToInlineString(id.extent));

/** t0[i0, i1] + broadcast(t1[i1]) → t3, and a relu-like second consumer t4 = t3 * t3. */
function broadcastFusion(): { fusion: Fusion; t0: TensorView; t1: TensorView; t2: TensorView; t3: TensorView; t4: TensorView } {
  const fusion = new Fusion();
  const t0 = makeSymbolicTensor(fusion, 2);
  const t1 = makeSymbolicTensor(fusion, 1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  const t2 = broadcast(t1, [true, false]);
  const t3 = add(t0, t2);
  const t4 = mul(t3, t3);
  fusion.addOutput(t4);
  return { fusion, t0, t1, t2, t3, t4 };
}

describe('PairwiseLogicalDomainMap', () => {
  it('broadcast: the new broadcast dim has no producer counterpart', () => {
    const { t1, t2 } = broadcastFusion();
    const m = new PairwiseLogicalDomainMap(t1, t2).mapProducerToConsumer();
    expect(m.size).toBe(1);
    expect(m.get(t1.getLogicalDomain()[0] as IterDomain)).toBe(t2.getLogicalDomain()[1]);
    // the broadcast producer dim maps (non-exactly) to the consumer's iteration dim
    const { t3 } = broadcastFusion();
    const p = new PairwiseLogicalDomainMap(t3.definition?.inputs[1] as TensorView, t3);
    expect(p.pairs.map((x) => x.exact)).toEqual([false, true]);
    expect(p.mapProducerToConsumer({ exactOnly: true }).size).toBe(1);
  });

  it('reduction: producer dims map to the consumer root incl. reduction IDs; reductions of producers do not map', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 3);
    fusion.addInput(t0);
    const t1 = sum(t0, [1]);
    const t2 = add(t1, 1);
    fusion.addOutput(t2);
    const m = new PairwiseLogicalDomainMap(t0, t1).mapProducerToConsumer();
    expect([...m.values()]).toEqual(t1.getLogicalDomain());
    expect((t1.getLogicalDomain()[1] as IterDomain).isReduction()).toBe(true);
    const m2 = new PairwiseLogicalDomainMap(t1, t2).mapConsumerToProducer();
    expect([...m2.keys()]).toEqual(t2.getLogicalDomain());
    expect([...m2.values()]).toEqual(t1.domain.logicalNoReductions());
  });

  it('permute maps through the root (input order)', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    const t1 = permute(t0, [1, 0]);
    fusion.addOutput(t1);
    const m = new PairwiseLogicalDomainMap(t0, t1).mapProducerToConsumer();
    const [a, b] = t0.getLogicalDomain() as [IterDomain, IterDomain];
    expect(m.get(a)).toBe(t1.getLogicalDomain()[1]);
    expect(m.get(b)).toBe(t1.getLogicalDomain()[0]);
    expect(() => new PairwiseLogicalDomainMap(t1, t0)).toThrow(/T1 is not a producer of T0/);
  });
});

describe('TransformPropagator', () => {
  it('pointwise with broadcast: every tensor gets the reference loop structure where dims map', () => {
    const { t0, t1, t2, t3, t4 } = broadcastFusion();
    t4.merge(0).split(0, 128).split(0, 4);
    const changed = propagateTransforms(t4);
    expect(new Set(changed)).toEqual(new Set([t0, t1, t2, t3]));
    for (const tv of [t0, t3]) {
      expect(extents(tv)).toEqual(extents(t4));
    }
    // t1 lacks the broadcast dim: the merge forwards i1, then the same splits apply; t2 merges
    // its size-1 broadcast with i1, which is i1 again
    const i1 = (t1.getLogicalDomain()[0] as IterDomain).extent.symbolicName();
    expect(extents(t1)).toEqual([`( ceilDiv(( ceilDiv(${i1}, 128) ), 4) )`, '4', '128']);
    expect(extents(t2)).toEqual(extents(t1));
    // the broadcast producer t2 merges its broadcast with the iteration dim: iteration type
    expect(t2.domain.loop.every((id) => id.isIteration())).toBe(true);
  });

  it('reorders follow the reference; unmapped IDs (producer reductions) go last', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    const t1 = mul(t0, 2);
    const t2 = sum(t1, [1]);
    const t3 = add(t2, 1);
    fusion.addOutput(t3);
    t3.split(0, 32).reorder({ 1: 0 });
    propagateTransforms(t3);
    const i0 = (t0.getLogicalDomain()[0] as IterDomain).extent.symbolicName();
    const i1 = (t0.getLogicalDomain()[1] as IterDomain).extent.symbolicName();
    expect(extents(t2)).toEqual(['32', `( ceilDiv(${i0}, 32) )`, i1]);
    expect(t2.domain.loop.map((id) => id.iterType)).toEqual(['Iteration', 'Iteration', 'Reduction']);
    expect(extents(t1)).toEqual(extents(t2));
    expect(extents(t0)).toEqual(extents(t2));
  });

  it('propagates a reduction reference into producers and consumers', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    const t1 = sum(t0, [1]);
    const t2 = add(t1, 1);
    fusion.addOutput(t2);
    t1.split(1, 4).split(0, 2);
    propagateTransforms(t1);
    expect(t0.domain.loop.map((id) => id.iterType[0])).toEqual(['I', 'I', 'I', 'I']);
    expect(extents(t0)).toEqual(extents(t1));
    expect(extents(t2)).toEqual(extents(t1).slice(0, 2));
  });

  it('re-propagation replaces earlier schedules and leaves no stale ID exprs', () => {
    const { fusion, t3, t4 } = broadcastFusion();
    t4.split(1, 8);
    propagateTransforms(t4);
    const before = fusion.allExprs().filter((e) => e.kind === 'Split').length;
    propagateTransforms(t4);
    expect(fusion.allExprs().filter((e) => e.kind === 'Split').length).toBe(before);
    expect(extents(t3)).toEqual(extents(t4));
  });

  it('restricts to the given tensors and refuses inlined targets', () => {
    const { t0, t3, t4 } = broadcastFusion();
    t4.split(0, 2);
    propagateTransforms(t4, { tvs: [t3] });
    expect(t3.nDims()).toBe(3);
    expect(t0.nDims()).toBe(2);
    const f = broadcastFusion();
    f.t3.inlineAt(1);
    f.t4.split(1, 2);
    expect(() => propagateTransforms(f.t4)).toThrow(TransformError);
  });

  it('parallelizeAllLike copies parallel types of mapped loop IDs', () => {
    const { t0, t1, t2, t3, t4 } = broadcastFusion();
    t4.merge(0).split(0, 128);
    propagateTransforms(t4);
    t4.axis(0).parallelize('BIDx');
    t4.axis(1).parallelize('TIDx');
    parallelizeAllLike(t4);
    for (const tv of [t2, t3]) {
      expect(tv.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'TIDx']);
    }
    // fusion inputs stay serial unless listed, as in nvFuser's dumps
    for (const tv of [t0, t1]) expect(tv.domain.loop.map((id) => id.parallelType)).toEqual(['Serial', 'Serial']);
    parallelizeAllLike(t4, [t0]);
    expect(t0.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'TIDx']);
    const g = broadcastFusion();
    g.t4.split(1, 4);
    propagateTransforms(g.t4);
    g.t4.axis(2).parallelize('Vectorize');
    g.t4.axis(0).parallelize('BIDx');
    parallelizeAllLike(g.t4, [g.t3], ['BIDx']);
    expect(g.t3.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'Serial', 'Serial']);
    expect(g.t0.axis(0).parallelType).toBe('Serial');
  });

  it('an rFactor partial as reference passes its root → logical splits to its producers', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    const t1 = mul(t0, 2);
    const t2 = sum(t1, [1]);
    fusion.addOutput(t2);
    t2.split(1, 128).split(1, 4);
    const rf = t2.rFactor([1, 2]);
    rf.axis(0).parallelize('BIDx');
    rf.axis(3).parallelize('TIDx');
    propagateTransforms(rf);
    parallelizeAllLike(rf);
    const i1 = (t0.getLogicalDomain()[1] as IterDomain).extent.symbolicName();
    const i0 = (t0.getLogicalDomain()[0] as IterDomain).extent.symbolicName();
    expect(extents(t1)).toEqual([i0, `( ceilDiv(( ceilDiv(${i1}, 128) ), 4) )`, '4', '128']);
    expect(extents(t1)).toEqual(extents(rf));
    expect(t1.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'Serial', 'Serial', 'TIDx']);
    expect(t2.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'TIDx']);
    expect(extents(t2)).toEqual([i0, '128']);
  });

  it('a merge that would join an iteration and a reduction ID of a target is a TransformError naming both tensors', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    const t1 = mul(t0, 2);
    const t2 = sum(t1, [1]);
    fusion.addOutput(t2);
    t1.merge(0);
    expect(() => propagateTransforms(t1)).toThrow(TransformError);
    expect(() => propagateTransforms(t1)).toThrow(new RegExp(`propagating T${t1.name}'s merge into T${t2.name}`));
    // the failing target is left as it was, with no dangling ID exprs
    expect(t2.domain.loop).toEqual(t2.domain.logical);
    expect(t2.domain.logical.every((id) => id.uses.length === 0)).toBe(true);
  });
});

