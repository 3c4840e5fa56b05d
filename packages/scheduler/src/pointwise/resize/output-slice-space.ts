// The index space of an output written past a slice of the reference's space (issue 20: a
// slice of the normalized row written as an output of an inner persistent kernel, whose loops
// are the row's). The kernel iterates the reference; such an output is written at the
// reference point i of each sliced dim at i − start, only where 0 ≤ i − start < length: a
// forward step (index-space.ts's ResizeStep with `undoes` set to the slice, so pulling back
// through the slice returns to the reference's own index). Only step-1 slices, reached from a
// tensor in the reference's space through slices, unary ops (a cast) and plain copies (an
// output's cache).
// Invariant: a returned space indexes every element of the output exactly once over the
// reference's points (a step-1 slice is a window of its input).

import type { Expr, IterDomain, TensorView } from '@tsfuser/fusion-ir';
import type { ExactLogicalMap } from '../../analysis/domain-map.js';
import { identitySpace, type DimSpace, type IndexSpace, type OffsetTerm } from './index-space.js';

/** The slices (nearest the reference first) between `o` and a tensor in `ref`'s space, and that tensor's map; null if none. */
function sliceChain(o: TensorView, ref: TensorView, plain: ExactLogicalMap): { slices: Expr[]; map: readonly number[] } | null {
  const slices: Expr[] = [];
  let t = o;
  for (;;) {
    const m = plain.mapToReference(t, ref);
    const logical = t.domain.logicalNoReductions();
    if (logical.every((id, d) => id.isBroadcast() || m[d] !== -1)) return slices.length === 0 ? null : { slices: slices.reverse(), map: m };
    const def = t.definition;
    const input = def?.inputs[0];
    if (def === null || input === undefined || input.kind !== 'tensorView') return null;
    if (def.kind === 'SliceOp') {
      if (def.ranges.some((r) => r.step.constNumber() !== 1)) return null;
      slices.push(def);
    } else if (!(def.kind === 'UnaryOp' || (def.kind === 'LoadStoreOp' && def.permutation === null))) {
      return null;
    }
    t = input;
  }
}

/** The forward space of output `o` past step-1 slices of `ref`'s space, or null (see the header). */
export function outputSliceSpace(o: TensorView, ref: TensorView, plain: ExactLogicalMap): IndexSpace | null {
  const chain = sliceChain(o, ref, plain);
  if (chain === null) return null;
  const space: (DimSpace | null)[] = [...identitySpace(chain.map)];
  for (const e of chain.slices) {
    if (e.kind !== 'SliceOp') return null;
    const input = e.inputs[0] as TensorView;
    const inIds = input.domain.logicalNoReductions();
    const outIds = (e.outputs[0] as TensorView).domain.logicalNoReductions();
    e.ranges.forEach((r, d) => {
      const base = space[d];
      const inId = inIds[d] as IterDomain;
      if (base === null || base === undefined || (r.start.constNumber() === 0 && r.stop === inId.extent)) return;
      const sub: OffsetTerm[] = r.start.constNumber() === 0 ? [] : [{ kind: 'sliceStart', start: r.start, size: inId.extent }];
      space[d] = { refDim: base.refDim, steps: [...base.steps, { scale: null, add: [], sub, validExtent: (outIds[d] as IterDomain).extent, undoes: e }] };
    });
  }
  return space;
}
