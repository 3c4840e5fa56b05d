// Structure of the shape ops: Expr kinds, ranks, iter types, extents and error messages.
import { describe, expect, it } from 'vitest';
import {
  Fusion, FusionIrError, broadcastInDim, cast, cat, expand, makeTensor, mul, pad, permute, reshape, segmentSet, set, slice,
  squeeze, transpose, type Scalar, type TensorView,
} from '../src/index.js';

function input(fusion: Fusion, shape: number[], dtype: 'Float' | 'Half' | 'Int' = 'Float'): TensorView {
  const t = makeTensor(fusion, { shape, dtype });
  fusion.addInput(t);
  return t;
}
const sizes = (t: TensorView): (number | null)[] => t.domain.logicalNoReductions().map((id) => id.logicalExtent().constNumber());
const iterTypes = (t: TensorView): string[] => t.domain.logical.map((id) => id.iterType);

describe('broadcastInDim', () => {
  it('maps input dims, adds broadcasts and expands', () => {
    const f = new Fusion();
    const t = input(f, [3, 1]);
    const out = broadcastInDim(t, [2, 3, 5], [1, 2]);
    expect(sizes(out)).toEqual([2, 3, 5]);
    expect(iterTypes(out)).toEqual(['Broadcast', 'Iteration', 'Broadcast']);
    expect(out.definition?.kind).toBe('ExpandOp');
    expect(out.definition?.in().definition?.kind).toBe('BroadcastOp');
  });
  it('only broadcasts when sizes stay 1', () => {
    const f = new Fusion();
    const t = input(f, [-1]);
    const out = broadcastInDim(t, [1, t.domain.logical[0]?.extent ?? 0], [1]);
    expect(out.definition?.kind).toBe('BroadcastOp');
    expect(out.rank()).toBe(2);
  });
  it('rejects bad dims and size mismatches naming the tensor', () => {
    const f = new Fusion();
    const t = input(f, [3, 4]);
    expect(() => broadcastInDim(t, [3, 4], [0])).toThrow(/T0\[3, 4\].*rank 2/);
    expect(() => broadcastInDim(t, [3, 5], [0, 1])).toThrow(/dim 1 of T0\[3, 4\] .*has size 4 but output dim 1 has size 5/);
    expect(() => broadcastInDim(t, [3, 4, 2], [1, 0])).toThrow(FusionIrError);
    expect(() => broadcastInDim(t, [3, 4, 2], [0, -4])).toThrow(/broadcastDims \[0, -4\] must be increasing dims of the rank-3 output, negative ones counted from its end/);
  });
  it('counts negative dims from the end of the output, as nvFuser wraps them', () => {
    const f = new Fusion();
    const t = input(f, [4]);
    const out = broadcastInDim(t, [3, 4], [-1]);
    expect(sizes(out)).toEqual([3, 4]);
    expect(iterTypes(out)).toEqual(['Broadcast', 'Iteration']);
    const g = new Fusion();
    const u = input(g, [3, 1]);
    expect(iterTypes(broadcastInDim(u, [2, 3, 5], [-2, -1]))).toEqual(iterTypes(broadcastInDim(input(new Fusion(), [3, 1]), [2, 3, 5], [1, 2])));
  });
});

describe('expand and squeeze', () => {
  it('expand keeps broadcast IDs with expanded extents', () => {
    const f = new Fusion();
    const t = input(f, [1, 4]);
    const out = expand(t, [6, -1]);
    expect(out.definition?.kind).toBe('ExpandOp');
    expect(out.domain.logical[0]?.isBroadcast()).toBe(true);
    expect(out.domain.logical[0]?.expandedExtent?.constNumber()).toBe(6);
    expect(sizes(out)).toEqual([6, 4]);
    expect(() => expand(t, [6, 5])).toThrow(/dim 1 of T0\[1, 4\].*not a broadcast/);
    expect(() => expand(t, [6])).toThrow(/rank 2/);
  });
  it('squeeze removes size-1 dims and rejects others', () => {
    const f = new Fusion();
    const t = input(f, [1, 4, 1]);
    const out = squeeze(t, [0, -1]);
    expect(out.definition?.kind).toBe('SqueezeOp');
    expect(sizes(out)).toEqual([4]);
    expect(() => squeeze(t, [1])).toThrow(/cannot squeeze dim 1 of T0\[1, 4, 1\] \(Float\): its size is 4/);
    expect(() => squeeze(t, [3])).toThrow(/dim 3 is out of range for T0/);
  });
});

describe('reshape', () => {
  it('squeezing size-1 dims only makes no ViewOp: 1 · e, e · 1 and e / 1 fold to e', () => {
    const f = new Fusion();
    const t = makeTensor(f, { shape: [1, -1, 1], dtype: 'Float' });
    f.addInput(t);
    const out = reshape(t, [-1]);
    expect(out.definition?.kind).toBe('SqueezeOp');
    expect(out.domain.logical[0]?.extent).toBe(t.domain.logical[1]?.extent);
    const u = makeTensor(f, { shape: [-1], dtype: 'Float' });
    f.addInput(u);
    expect(reshape(u, [1, 1, -1]).definition?.kind).toBe('BroadcastOp');
    // e ± 0 is not folded: a pad by 0 still has a resized extent of its own.
    const padded = pad(u, [0, 0]);
    expect(padded.domain.logical[0]?.extent).not.toBe(u.domain.logical[0]?.extent);
  });
  it('builds a ViewOp whose logical IDs derive from the root by Merge/Split', () => {
    const f = new Fusion();
    const t = input(f, [2, 3, 4]);
    const out = reshape(t, [6, -1]);
    expect(out.definition?.kind).toBe('ViewOp');
    expect(sizes(out)).toEqual([6, 4]);
    expect(out.domain.root?.length).toBe(3);
    expect(out.domain.logical.every((id) => id.isRFactorProduct)).toBe(true);
    const defs = out.domain.logical.map((id) => id.definition?.kind);
    expect(defs).toEqual(['Split', 'Split']);
  });
  it('squeezes and re-broadcasts size-1 dims', () => {
    const f = new Fusion();
    const t = input(f, [2, 1, 3]);
    const out = reshape(t, [3, 1, 2]);
    expect(out.definition?.kind).toBe('BroadcastOp');
    expect(sizes(out)).toEqual([3, 1, 2]);
    expect(iterTypes(out)).toEqual(['Iteration', 'Broadcast', 'Iteration']);
  });
  it('symbolic sizes infer -1 as an expression', () => {
    const f = new Fusion();
    const t = input(f, [-1, 4]);
    const out = reshape(t, [-1, 2]);
    expect(out.rank()).toBe(2);
    expect(sizes(out)[1]).toBe(2);
    expect(sizes(out)[0]).toBeNull();
  });
  it('wrong element counts name the tensor and both shapes', () => {
    const f = new Fusion();
    const t = input(f, [2, 3]);
    expect(() => reshape(t, [4, 2])).toThrow(/T0 has sizes \[2, 3\] \(6 elements\).*\[4, 2\]/);
    expect(() => reshape(t, [4, -1])).toThrow(/\[4, -1\]/);
    expect(() => reshape(t, [-1, -1])).toThrow(/only one size may be -1/);
  });
});

describe('permute, transpose, set', () => {
  it('permute is a LoadStoreOp with a root in input order', () => {
    const f = new Fusion();
    const t = input(f, [2, 3, 4]);
    const out = permute(t, [2, 0, 1]);
    const def = out.definition;
    expect(def?.kind).toBe('LoadStoreOp');
    if (def?.kind === 'LoadStoreOp') expect(def.permutation).toEqual([2, 0, 1]);
    expect(sizes(out)).toEqual([4, 2, 3]);
    expect(out.domain.root?.map((id) => id.extent.constNumber())).toEqual([2, 3, 4]);
    expect(out.domain.logical[0]).toBe(out.domain.root?.[2]);
    expect(() => permute(t, [0, 0, 1])).toThrow(/\[0, 0, 1\] is not a permutation of the 3 dims of T0/);
    expect(sizes(transpose(t, 0, -1))).toEqual([4, 3, 2]);
  });
  it('set and segmentSet copy', () => {
    const f = new Fusion();
    const t = input(f, [2, 3]);
    const a = set(t);
    const b = segmentSet(t);
    expect(a.definition?.kind === 'LoadStoreOp' && a.definition.opType).toBe('Set');
    expect(b.definition?.kind === 'LoadStoreOp' && b.definition.opType).toBe('SegmenterSet');
    expect(sizes(b)).toEqual([2, 3]);
  });
});

describe('slice, pad, cat', () => {
  it('slice follows torch clamping and negative indices', () => {
    const f = new Fusion();
    const t = input(f, [10, 8]);
    const out = slice(t, [-3, 1], [100, 8], [1, 3]);
    expect(out.definition?.kind).toBe('SliceOp');
    expect(sizes(out)).toEqual([3, 3]);
    expect(sizes(slice(t, [5, 0], [2, 8]))).toEqual([0, 8]);
    expect(() => slice(t, [0, 0], [1, 1], [1, 0])).toThrow(/step of dim 1 of T0\[10, 8\] \(Float\) must be positive, got 0/);
    expect(() => slice(t, [0], [1])).toThrow(/rank 2/);
  });
  it('slice of a symbolic dim gives an extent expression', () => {
    const f = new Fusion();
    const t = input(f, [-1]);
    const out = slice(t, [1], [-1]);
    expect(sizes(out)).toEqual([null]);
    expect(out.domain.logical[0]?.extent.definition).not.toBeNull();
  });
  it('pad takes widths from the last dim, negative widths crop', () => {
    const f = new Fusion();
    const t = input(f, [2, 3, 4]);
    const out = pad(t, [1, 2, -1, 0]);
    expect(out.definition?.kind).toBe('PadOp');
    expect(sizes(out)).toEqual([2, 2, 7]);
    expect(() => pad(t, [1])).toThrow(/even number/);
    expect(() => pad(t, [-3, -3])).toThrow(/dim 2 of T0\[2, 3, 4\] \(Float\) would get negative size -2/);
  });
  it('cat adds sizes along the axis and checks the others', () => {
    const f = new Fusion();
    const a = input(f, [2, 3]);
    const b = input(f, [2, 5], 'Half');
    const out = cat([a, b], 1);
    expect(out.definition?.kind).toBe('CatOp');
    expect(sizes(out)).toEqual([2, 8]);
    expect(out.dtype).toBe('Float');
    const c = input(f, [4, 3]);
    expect(() => cat([a, c], 1)).toThrow(new RegExp(`T${c.name} has sizes \\[4, 3\\] but T${a.name} has \\[2, 3\\]`));
  });

  it('a size computed from constants only folds to its value: a pad by (int64)(2.5f * 7) is one PadOp by 17', () => {
    // test_pad_dynamic: computed widths were taken for run-time ones (a gather per padded dim).
    const f = new Fusion();
    const x = input(f, [1, -1, -1]);
    const w = cast(mul(f.constant(2.5, 'Float'), f.constant(7, 'Int')), 'Int') as Scalar;
    const out = pad(x, [w, w, w, w]);
    const ops = f.allExprs().filter((e) => e.kind === 'PadOp' || e.kind === 'IndexSelectOp');
    expect(ops.map((e) => e.kind)).toEqual(['PadOp']);
    expect(ops[0]?.kind === 'PadOp' ? ops[0].widths.map((x) => x.constNumber()) : null).toEqual([17, 17, 17, 17]);
    expect(out.definition).toBe(ops[0]);
    // A size reading a symbolic scalar stays an expression.
    const s0 = f.newSymbolicScalar('Int');
    expect(pad(x, [s0, 0]).domain.logicalNoReductions()[2]?.extent.constNumber()).toBe(null);
  });
});
