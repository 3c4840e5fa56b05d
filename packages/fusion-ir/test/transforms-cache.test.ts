import { describe, expect, it } from 'vitest';
import {
  Fusion,
  HostTensor,
  TransformError,
  add,
  evaluate,
  exp,
  makeSymbolicTensor,
  setStrideOrder,
  sum,
  type TensorView,
} from '../src/index.js';
import { randomTensor } from './eval-helpers.js';

function fusion2(): { fusion: Fusion; t0: TensorView; t1: TensorView; t2: TensorView; t3: TensorView } {
  const fusion = new Fusion();
  const t0 = makeSymbolicTensor(fusion, 2);
  fusion.addInput(t0);
  const t1 = exp(t0);
  const t2 = add(t0, t1);
  const t3 = sum(t2, [1]);
  fusion.addOutput(t3);
  return { fusion, t0, t1, t2, t3 };
}

const values = (t: unknown): number[] => Array.from((t as HostTensor).data as ArrayLike<number>);

describe('cacheAfter', () => {
  it('inserts c = set(tv) and redirects every consumer to c', () => {
    const { fusion, t0, t1, t2 } = fusion2();
    const x = randomTensor('Float', [3, 5], false);
    const before = evaluate(fusion, [x]);
    const c = t0.cacheAfter();
    expect(c.definition?.kind).toBe('LoadStoreOp');
    expect(c.definition?.inputs).toEqual([t0]);
    expect(c.memoryType).toBe('Local');
    expect(t0.uses.length).toBe(1);
    expect(t1.definition?.inputs).toEqual([c]);
    expect(t2.definition?.inputs).toEqual([c, t1]);
    expect(values(evaluate(fusion, [x])[0])).toEqual(values(before[0]));
  });
});

describe('cacheBefore', () => {
  it('the definition writes the cache (with its reduction IDs); the output becomes a copy', () => {
    const { fusion, t2, t3 } = fusion2();
    const x = randomTensor('Float', [4, 6], false);
    const before = evaluate(fusion, [x]);
    t3.split(1, 2);
    const c = t3.cacheBefore();
    expect(c.definition?.kind).toBe('ReductionOp');
    expect(c.definition?.inputs).toEqual([t2]);
    expect(c.hasReduction()).toBe(true);
    expect(c.nDims()).toBe(3); // the schedule moved with the domain
    expect(t3.definition?.kind).toBe('LoadStoreOp');
    expect(t3.definition?.inputs).toEqual([c]);
    expect(t3.hasReduction()).toBe(false);
    expect(t3.memoryType).toBe('Global');
    expect(c.memoryType).toBe('Local');
    expect(fusion.outputs).toEqual([t3]);
    expect(values(evaluate(fusion, [x])[0])).toEqual(values(before[0]));
  });

  it('rejects inputs and inlined tensors', () => {
    const { t0, t1, t2 } = fusion2();
    expect(() => t0.cacheBefore()).toThrow(/no definition/);
    t1.inlineAt(1);
    expect(() => t1.cacheBefore()).toThrow(TransformError);
    expect(() => t2.cacheAfter()).toThrow(/already inlined/);
  });
});

describe('cacheFork', () => {
  it('an output that is also used gets a separate output copy', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 1);
    fusion.addInput(t0);
    const t1 = exp(t0);
    const t2 = add(t1, 1);
    fusion.addOutput(t1);
    fusion.addOutput(t2);
    const x = randomTensor('Float', [7], false);
    const before = evaluate(fusion, [x]);
    const c = t1.cacheFork();
    expect(fusion.outputs).toEqual([c, t2]);
    expect(c.definition?.inputs).toEqual([t1]);
    expect(t1.memoryType).toBe('Local');
    expect(c.memoryType).toBe('Global');
    const after = evaluate(fusion, [x]);
    expect(values(after[0])).toEqual(values(before[0]));
    expect(values(after[1])).toEqual(values(before[1]));
    expect(() => t2.cacheFork()).toThrow(/no other uses/);
    expect(() => t0.cacheFork()).toThrow(/not a fusion output/);
  });
});

describe('stride-ordered outputs keep their allocation order through caching', () => {
  const orderOf = (tv: TensorView): number[] | null => tv.domain.allocation?.map((id) => tv.domain.logical.indexOf(id)) ?? null;

  it('cacheBefore: the global output keeps it, the Local cache has none; values and strides unchanged', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 3);
    fusion.addInput(t0);
    const t1 = exp(t0);
    setStrideOrder(t1, [0, 2, 1]);
    fusion.addOutput(t1);
    const x = randomTensor('Float', [2, 3, 4], false);
    const before = evaluate(fusion, [x])[0] as HostTensor;
    const c = t1.cacheBefore();
    expect(orderOf(t1)).toEqual([1, 2, 0]);
    expect(t1.domain.contiguity).toEqual([true, true, true]);
    expect(c.domain.allocation).toBeNull();
    const after = evaluate(fusion, [x])[0] as HostTensor;
    expect(after.strides).toEqual(before.strides);
    expect(values(after)).toEqual(values(before));
  });

  it('cacheFork: the new output takes it over from the tensor that stays an intermediate', () => {
    const fusion = new Fusion();
    const t0 = makeSymbolicTensor(fusion, 2);
    fusion.addInput(t0);
    const t1 = exp(t0);
    setStrideOrder(t1, [0, 1]);
    fusion.addOutput(t1);
    fusion.addOutput(add(t1, 1));
    const c = t1.cacheFork();
    expect(orderOf(c)).toEqual([1, 0]);
    expect(t1.domain.allocation).toBeNull();
  });
});
