import { describe, expect, it } from 'vitest';
import {
  Fusion,
  HostTensor,
  add,
  broadcast,
  evaluate,
  inlineMost,
  makeSymbolicTensor,
  makeTensor,
  mul,
  permute,
  printFusion,
  reshape,
  propagateTransforms,
  sum,
  type TensorView,
} from '../src/index.js';
import { randomTensor } from './eval-helpers.js';

function scheduled(): { fusion: Fusion; out: TensorView } {
  const fusion = new Fusion();
  const t0 = makeSymbolicTensor(fusion, 2);
  const t1 = makeSymbolicTensor(fusion, 1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  const t2 = broadcast(t1, [true, false]);
  const t3 = mul(add(t0, t2), 2);
  const t4 = sum(t3, [1]);
  fusion.addOutput(t3);
  fusion.addOutput(t4);
  t4.split(1, 4);
  propagateTransforms(t4);
  t4.axis(0).parallelize('BIDx');
  t3.cacheAfter();
  inlineMost(fusion);
  return { fusion, out: t4 };
}

describe('cloneFusion', () => {
  it('preserves names, exprs, domains, memory types and positions (identical printout)', () => {
    const { fusion } = scheduled();
    const { fusion: copy, map } = fusion.clone();
    expect(printFusion(copy)).toBe(printFusion(fusion));
    expect(copy.vals().length).toBe(fusion.vals().length);
    expect(copy.allExprs().map((e) => [e.kind, e.name])).toEqual(fusion.allExprs().map((e) => [e.kind, e.name]));
    for (const [o, c] of map) {
      expect(c.kind).toBe(o.kind);
      expect(c.name).toBe(o.name);
      expect(c.fusion).toBe(copy);
      expect(c.uses.length).toBe(o.uses.length);
      if (o.kind === 'tensorView' && c.kind === 'tensorView') {
        expect([c.memoryType, c.computeAtPosition, c.maxProducerPosition]).toEqual([o.memoryType, o.computeAtPosition, o.maxProducerPosition]);
        expect(c.domain.loop.map((id) => id.name)).toEqual(o.domain.loop.map((id) => id.name));
        expect(c.domain.loop.map((id) => id.parallelType)).toEqual(o.domain.loop.map((id) => id.parallelType));
      }
    }
    // new names continue after the original's
    const t = makeSymbolicTensor(copy, 1);
    const u = makeSymbolicTensor(fusion, 1);
    expect(t.name).toBe(u.name);
  });

  it('is independent: scheduling the copy leaves the original unchanged, same results', () => {
    const { fusion } = scheduled();
    const text = printFusion(fusion);
    const { fusion: copy } = fusion.clone();
    const t3c = copy.outputs[0] as TensorView;
    for (const tv of copy.allTvs()) {
      tv.computeAtPosition = 0;
      tv.maxProducerPosition = 0;
    }
    t3c.split(0, 2);
    t3c.axis(0).parallelize('TIDy');
    expect(printFusion(fusion)).toBe(text);
    const x = randomTensor('Float', [3, 8], false);
    const y = randomTensor('Float', [8], false);
    const a = evaluate(fusion, [x, y]);
    const b = evaluate(copy, [x, y]);
    expect(Array.from((b[1] as HostTensor).data as ArrayLike<number>)).toEqual(Array.from((a[1] as HostTensor).data as ArrayLike<number>));
  });
});

describe('cloneFusion with roots, allocation domains, scalar inputs and rFactor', () => {
  it('copies root/logical/allocation/loop domains and scalar inputs; evaluates the same', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1], strideOrder: [0, 1] });
    const s = fusion.newSymbolicScalar('Double');
    fusion.addInput(t0);
    fusion.addInput(s);
    const t1 = permute(mul(t0, s), [1, 0]);
    const t2 = reshape(t1, [-1]);
    const t3 = sum(broadcast(t2, [false, true]), [0]);
    fusion.addOutput(t3);
    t3.split(0, 2);
    const rf = t3.rFactor([1]);
    propagateTransforms(rf);
    const { fusion: copy, map } = fusion.clone();
    expect(printFusion(copy, { transforms: true })).toBe(printFusion(fusion, { transforms: true }));
    const c0 = map.get(t0) as TensorView;
    expect(c0.domain.allocation?.map((id) => id.name)).toEqual(t0.domain.allocation?.map((id) => id.name));
    expect(c0.domain.contiguity).toEqual(t0.domain.contiguity);
    const c2 = map.get(t2) as TensorView;
    expect(c2.domain.root?.map((id) => id.name)).toEqual(t2.domain.root?.map((id) => id.name));
    expect(copy.inputs.map((v) => v.kind)).toEqual(['tensorView', 'scalar']);
    const x = HostTensor.fromValues('Float', [3, 4], Array.from({ length: 12 }, () => Math.random()));
    const a = evaluate(fusion, [x, 0.5])[0] as HostTensor;
    const b = evaluate(copy, [x, 0.5])[0] as HostTensor;
    expect(b.toNumbers()).toEqual(a.toNumbers());
  });
});

