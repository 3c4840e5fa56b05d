import { describe, expect, it } from 'vitest';
import {
  Fusion,
  add,
  evaluate,
  HostTensor,
  inlineMost,
  logicalDomainPairs,
  makeTensor,
  pad,
  propagateTransforms,
  reshape,
  slice,
  squeeze,
  type IterDomain,
  type TensorView,
} from '../src/index.js';
import { randomTensor } from './eval-helpers.js';

describe('logical-domain map through data movement', () => {
  it('squeeze: the squeezed producer dim has no counterpart', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, 1, -1] });
    fusion.addInput(t0);
    const t1 = squeeze(t0, [1]);
    fusion.addOutput(t1);
    const pairs = logicalDomainPairs(t0, t1);
    const [a, , c] = t0.getLogicalDomain() as IterDomain[];
    expect(pairs.map((p) => [p.producer, p.consumer])).toEqual([
      [a, t1.getLogicalDomain()[0]],
      [c, t1.getLogicalDomain()[1]],
    ]);
  });

  it('slice and pad: changed dims are resized (never share a loop), unchanged ones exact', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [6, 8] });
    fusion.addInput(t0);
    const t1 = slice(t0, [0, 2], [6, 5]);
    const t2 = pad(t1, [1, 1]);
    fusion.addOutput(t2);
    expect(logicalDomainPairs(t0, t1).map((p) => [p.exact, p.resized])).toEqual([[true, false], [false, true]]);
    expect(logicalDomainPairs(t1, t2).map((p) => [p.exact, p.resized])).toEqual([[true, false], [false, true]]);
    // inlining stops at the resized dim
    propagateTransforms(t2);
    inlineMost(fusion);
    expect(t1.computeAtPosition).toBe(1);
  });

  it('reshape: producer logical maps to the consumer root; propagation from the reshape output replays its merge/split onto the producer', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [4, 6] });
    fusion.addInput(t0);
    const t1 = add(t0, 1);
    const t2 = reshape(t1, [3, 8]);
    const t3 = add(t2, 2);
    fusion.addOutput(t3);
    const root = t2.domain.root as IterDomain[];
    expect(logicalDomainPairs(t1, t2).map((p) => p.consumer)).toEqual(root);
    t3.split(1, 4);
    propagateTransforms(t3);
    expect(t2.nDims()).toBe(3);
    // t1 gets t2's root → logical exprs (merge then split) and the split by 4
    expect(t1.domain.loop.map((id) => id.extent.constNumber())).toEqual([3, 2, 4]);
    const x = randomTensor('Float', [4, 6]);
    const { fusion: plain } = (() => {
      const f = new Fusion();
      const a = makeTensor(f, { shape: [4, 6] });
      f.addInput(a);
      f.addOutput(add(reshape(add(a, 1), [3, 8]), 2));
      return { fusion: f };
    })();
    expect((evaluate(fusion, [x])[0] as HostTensor).toNumbers()).toEqual((evaluate(plain, [x])[0] as HostTensor).toNumbers());
    void (t0 as TensorView);
  });
});
