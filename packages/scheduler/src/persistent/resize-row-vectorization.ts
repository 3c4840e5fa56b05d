// The row vector of an inner persistent schedule with slice / pad / cat on the input side of
// the row (resize-before-row.ts): a vector of the row is read at a shifted index and
// predicated once per vector, so — as in the pointwise scheduler (pointwise/resize/
// vectorize.ts's resizeVectorLimit) — every shift and validity boundary along the innermost
// dim must be a multiple of the width (slice starts with step 1, pad widths and the padded
// extent, cat inputs' extents); a stepped slice along it drops the vector. The limit applies
// to every vectorized access (unshifted row inputs and outputs too: they share the loops); a
// slice's length along the innermost dim is a multiple of the width as well (a slice of the row
// written as an output is stored with the vector, predicated at lane 0).
// Invariant: the returned factor divides the given one; 1 drops every vectorized access.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { resizeVectorLimit } from '../pointwise/resize/vectorize.js';
import { evaluateExtent, type ExtentBindings } from '../runtime-info.js';
import type { VectorChoice } from './row-vectorization.js';

/** `choice` narrowed to the resize ops' limit (`r`: the first reduction; its input is the row). */
/** `bindings`: the fusion's extent bindings (the heuristics' HeuristicDataCache). */
export function resizeRowVectorChoice(fusion: Fusion, bindings: ExtentBindings, r: TensorView, choice: VectorChoice): VectorChoice {
  if (choice.factor <= 1 || !hasResizeExprs(fusion)) return choice;
  const row = r.definition?.inputs[0];
  if (row === undefined || row.kind !== 'tensorView') return { factor: 1, inputs: [], outputs: [] };
  const map = new ExactLogicalMap(fusion, fusion.allTvs(), { throughResize: true });
  let factor = resizeVectorLimit(fusion, map, row, bindings, choice.factor);
  // A slice of the row written as an output is stored with the vector, predicated at lane 0:
  // its length along the innermost dim is a multiple of the width too.
  const lengths = fusion.exprs().flatMap((e) => {
    const last = e.kind === 'SliceOp' ? (e.outputs[0] as TensorView).domain.logicalNoReductions().at(-1) : undefined;
    return last === undefined || last.isBroadcast() ? [] : [evaluateExtent(last.extent, bindings)];
  });
  while (factor > 1 && lengths.some((n) => n % factor !== 0)) factor /= 2;
  return factor > 1 ? { ...choice, factor } : { factor: 1, inputs: [], outputs: [] };
}
