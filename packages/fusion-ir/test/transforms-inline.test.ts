import { describe, expect, it } from 'vitest';
import {
  Fusion,
  TransformError,
  add,
  broadcast,
  computeAt,
  inlineAllAt,
  inlineMost,
  inlineSelectedAt,
  makeSymbolicTensor,
  maxInlinePosition,
  mul,
  propagateTransforms,
  sum,
  tensorViewToString,
  type TensorView,
} from '../src/index.js';

function chain(): { fusion: Fusion; t0: TensorView; t1: TensorView; t2: TensorView; t3: TensorView } {
  const fusion = new Fusion();
  const t0 = makeSymbolicTensor(fusion, 2);
  fusion.addInput(t0);
  const t1 = mul(t0, 2);
  const t2 = sum(t1, [1]);
  const t3 = add(t2, 1);
  fusion.addOutput(t3);
  return { fusion, t0, t1, t2, t3 };
}

describe('computeAt / inlineAt', () => {
  it('sets the producer position and the consumer produce position', () => {
    const { t1, t2 } = chain();
    t1.computeAt(t2, 1);
    expect(t1.computeAtPosition).toBe(1);
    expect(t2.maxProducerPosition).toBe(1);
    expect(tensorViewToString(t1)).toMatch(/ca_pos\( 1 \)$/);
    expect(tensorViewToString(t2)).toMatch(/produce_pos\( 1 \)$/);
    // pointwise producers inline into the reduction loop too
    t1.computeAt(t2, -1);
    expect(t1.computeAtPosition).toBe(2);
    expect(t2.maxProducerPosition).toBe(2);
  });

  it('never inlines past a reduction ID, never inlines inputs', () => {
    const { t0, t2, t3 } = chain();
    expect(() => t2.inlineAt(2)).toThrow(/axis 1 is a reduction ID/);
    expect(() => t2.computeAt(t3, 1)).not.toThrow();
    expect(t2.computeAtPosition).toBe(1);
    expect(() => t0.inlineAt(1)).toThrow(/fusion input/);
    expect(() => computeAt(t0, t3, 1)).toThrow(/not a producer/);
  });

  it('requires mapped loop IDs (propagate first) and names the tensors', () => {
    const { t1, t2 } = chain();
    t2.split(0, 4);
    expect(() => t1.computeAt(t2, 1)).toThrow(TransformError);
    expect(() => t1.computeAt(t2, 1)).toThrow(new RegExp(`T${t1.name}.*T${t2.name}`));
    propagateTransforms(t2);
    t1.computeAt(t2, 2);
    expect(t1.computeAtPosition).toBe(2);
  });

  it('rejects conflicting parallel types and vectorized axes', () => {
    const { t1, t2 } = chain();
    t1.axis(0).parallelize('TIDx');
    t2.axis(0).parallelize('BIDx');
    expect(() => t1.inlineAt(1)).toThrow(/TIDx in the producer but BIDx/);
    t1.axis(0).parallelize('Serial');
    t1.axis(1).parallelize('Vectorize');
    expect(() => t1.inlineAt(2)).toThrow(/vectorized/);
    expect(maxInlinePosition(t1)).toBe(1);
  });

  it('broadcast dims the producer lacks are skipped in the consumer', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 1);
    const t1 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    fusion.addInput(t1);
    const t2 = mul(t0, 3);
    const t3 = broadcast(t2, [true, false]);
    const t4 = add(t3, t1);
    fusion.addOutput(t4);
    t2.inlineAt(1);
    expect(t3.maxProducerPosition).toBe(2);
    // after merging, the producer lacking the broadcast maps to the merged loop
    const g = new Fusion();
    const a = makeSymbolicTensor(g, 1);
    const b = makeSymbolicTensor(g, 2);
    g.addInput(a);
    g.addInput(b);
    const c = mul(a, 3);
    const d = broadcast(c, [true, false]);
    const e = add(d, b);
    g.addOutput(e);
    e.merge(0).split(0, 64);
    propagateTransforms(e);
    inlineMost(g);
    expect([c.computeAtPosition, d.computeAtPosition, e.computeAtPosition]).toEqual([2, 2, 2]);
    expect(d.maxProducerPosition).toBe(2);
    expect(e.maxProducerPosition).toBe(2);
  });
});

describe('inlineMost', () => {
  it('inlines as far as legal: reductions stop at their first reduction axis, inputs stay 0', () => {
    const { fusion, t0, t1, t2, t3 } = chain();
    t2.split(1, 8);
    propagateTransforms(t2);
    inlineMost(fusion);
    expect(t0.computeAtPosition).toBe(0);
    expect(t1.computeAtPosition).toBe(3);
    expect(t2.computeAtPosition).toBe(1);
    expect(t2.maxProducerPosition).toBe(3);
    expect(t3.computeAtPosition).toBe(1); // a terminal output: its whole loop
    expect(t3.maxProducerPosition).toBe(1);
  });

  it('only the given tensors when a list is passed', () => {
    const { t1, t2, t3 } = chain();
    inlineMost([t1]);
    expect(t1.computeAtPosition).toBe(2);
    expect(t2.computeAtPosition).toBe(0);
    expect(t3.computeAtPosition).toBe(0);
    expect(t2.maxProducerPosition).toBe(2);
  });
});

describe('computeAt with replay, inlineAllAt / inlineSelectedAt', () => {
  it('computeAt {replay: true} gives the producer the consumer loop structure first', () => {
    const { t1, t2 } = chain();
    t2.split(0, 4).split(2, 8);
    t1.computeAt(t2, 2, { replay: true });
    expect(t1.domain.loop.map((id) => id.extent.constNumber())).toEqual([null, 4, null, 8]);
    expect(t1.computeAtPosition).toBe(2);
    expect(t2.maxProducerPosition).toBe(2);
    expect(() => t1.computeAt(t2, 3, { replay: true })).toThrow(/already inlined/);
  });

  it('inlineAllAt inlines every tensor at the position mapped to the reference position', () => {
    const { fusion, t0, t1, t2, t3 } = chain();
    t2.split(0, 4);
    propagateTransforms(t2);
    inlineAllAt(t2, 1);
    expect([t0, t1, t2, t3].map((t) => t.computeAtPosition)).toEqual([0, 1, 1, 1]);
    inlineAllAt(t2, -1);
    // best effort: the reduction stops at its reduction axis, the rest go as far as mapped
    expect([t1, t2, t3].map((t) => t.computeAtPosition)).toEqual([3, 2, 2]);
    expect(() => inlineSelectedAt([t2], t2, 3, false)).toThrow(/only position 2 is legal/);
    void fusion;
  });
});

