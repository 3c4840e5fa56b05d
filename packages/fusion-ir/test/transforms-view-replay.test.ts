// replayForwardThroughView (transforms/view-replay.ts): a reshape's output takes its producer's
// loop structure (extents and order), the permissive ID graph maps its loop IDs to the
// producer's (so it can be inlined with it), and a view that cannot take them is left unchanged
// with a TransformError naming both tensors.
import { describe, expect, it } from 'vitest';
import {
  Fusion,
  TransformError,
  add,
  buildIdGraph,
  inlineMost,
  loopExprs,
  makeTensor,
  replayForwardThroughView,
  reshape,
  scalarToInlineString,
  sum,
  type TensorView,
} from '../src/index.js';

const extents = (tv: TensorView): string[] => tv.domain.loop.map((id) => scalarToInlineString(id.extent));

/** x[6, 20] + 1, reshaped to `sizes`. */
function viewAfterAdd(sizes: number[]): { fusion: Fusion; y: TensorView; v: TensorView } {
  const fusion = new Fusion();
  const x = makeTensor(fusion, { shape: [6, 20], dtype: 'Float' });
  fusion.addInput(x);
  const y = add(x, 1);
  const v = reshape(y, sizes);
  fusion.addOutput(v);
  return { fusion, y, v };
}

describe('replayForwardThroughView', () => {
  for (const sizes of [[2, 3, 20], [6, 4, 5], [120], [3, 40]]) {
    it(`[6, 20] → [${sizes.join(', ')}]: the view takes the producer's [6, 5, 2, 2] loops and maps to them`, () => {
      const { y, v } = viewAfterAdd(sizes);
      y.split(1, 4).split(1, 2, false); // [6, 2, ceilDiv(5, 2), 4]
      y.reorder({ 2: 1, 1: 2 });
      replayForwardThroughView(y, v);
      expect(extents(v).map((e) => Number(e))).toEqual(extents(y).map((e) => Number(e)));
      const graph = buildIdGraph([y, v]);
      v.domain.loop.forEach((id, p) => expect(graph.same(id, y.axis(p)), `position ${p}`).toBe(true));
      inlineMost([y, v]);
      expect(y.computeAtPosition).toBe(4);
    });
  }

  it('the loop is reached from the logical domain by Split/Merge only', () => {
    const { y, v } = viewAfterAdd([2, 3, 20]);
    y.split(1, 4);
    replayForwardThroughView(y, v);
    const exprs = loopExprs(v);
    expect(exprs.length).toBeGreaterThan(0);
    expect(exprs.every((e) => e.kind === 'Split' || e.kind === 'Merge')).toBe(true);
  });

  it('refuses a view that is already scheduled, leaving it as it was', () => {
    const { y, v } = viewAfterAdd([2, 3, 20]);
    y.split(1, 4);
    v.split(2, 5);
    const before = extents(v);
    expect(() => replayForwardThroughView(y, v)).toThrow(TransformError);
    expect(() => replayForwardThroughView(y, v)).toThrow(/T\d+ is already scheduled/);
    expect(extents(v)).toEqual(before);
  });

  it('refuses a tensor that is not the reshape of the producer', () => {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [6, 20], dtype: 'Float' });
    fusion.addInput(x);
    const s = sum(x, [1]);
    const v = reshape(add(x, 1), [120]);
    fusion.addOutput(s);
    fusion.addOutput(v);
    expect(() => replayForwardThroughView(s, v)).toThrow(/is not a reshape of/);
  });
});
