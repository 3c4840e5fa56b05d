// The vectorization limit that resize ops put on the pointwise heuristics: a vector of the
// reference's innermost dim is read at a shifted index and predicated once (lane 0), so every
// shift and every validity boundary along that dim must be a multiple of the width: slice
// starts (with step 1), pad widths and the padded extent, cat inputs' extents. A slice with a
// step along the innermost dim is not vectorized.

import type { Fusion, IterDomain, TensorView } from '@tsfuser/fusion-ir';
import type { ExactLogicalMap } from '../../analysis/domain-map.js';
import { evaluateExtent, type ExtentBindings } from '../../runtime-info.js';
import { isResizeExpr } from './index-space.js';

/** torch's slice start normalization on values. */
export function normalizedSliceStart(start: number, size: number): number {
  const shifted = start < 0 ? start + size : start;
  return Math.min(Math.max(shifted, 0), size);
}

/** Largest power of two (≤ `cap`) dividing every value (0 divides nothing away). */
function pow2Dividing(values: readonly number[], cap: number): number {
  let v = cap;
  while (v > 1 && values.some((x) => x % v !== 0)) v /= 2;
  return v;
}

export function resizeVectorLimit(fusion: Fusion, map: ExactLogicalMap, ref: TensorView, bindings: ExtentBindings, cap: number): number {
  const refRank = ref.domain.logicalNoReductions().length;
  const values: number[] = [];
  for (const e of fusion.exprs()) {
    if (!isResizeExpr(e)) continue;
    const out = e.outputs[0] as TensorView;
    const m = map.mapToReference(out, ref);
    const input = e.inputs[0] as TensorView;
    const inner = m.indexOf(refRank - 1);
    if (inner < 0) continue;
    const extentOf = (t: TensorView): number => evaluateExtent((t.domain.logicalNoReductions()[inner] as IterDomain).extent, bindings);
    if (e.kind === 'SliceOp') {
      const r = e.ranges[inner];
      if (r === undefined) continue;
      if (evaluateExtent(r.step, bindings) !== 1) return 1;
      values.push(normalizedSliceStart(evaluateExtent(r.start, bindings), extentOf(input)));
    } else if (e.kind === 'PadOp') {
      const k = refRank - 1 - inner;
      const w = e.widths[2 * k];
      if (w === undefined) continue;
      values.push(Math.abs(evaluateExtent(w, bindings)), extentOf(input));
    } else {
      for (const t of e.inputs) if (t.kind === 'tensorView') values.push(extentOf(t));
    }
  }
  return pow2Dividing(values, cap);
}
