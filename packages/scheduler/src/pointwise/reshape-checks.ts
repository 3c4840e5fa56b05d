// The pointwise scheduler's conditions for fusions with reshapes (ViewOps). A reshape is taken
// when its logical dims are derived from its root by Merge/Split exprs (reshape.ts builds them
// for every reshape of a non-empty tensor) and every iteration dim of every tensor can be
// indexed from the reference's logical dims through those exprs (reshape-index-graph.ts).
// An output before a reshape need not have the reference's rank: it must cover the
// reference's iteration space (its dims read every reference iteration dim), so that no element
// is written twice. Iota and random numbers are indexed by the reference dims directly, so they
// must lie on the reference's side of every reshape.

import { idExprsFromTo, type Fusion, type TensorView, type ViewOp } from '@tsfuser/fusion-ir';
import type { ExactLogicalMap } from '../analysis/domain-map.js';
import { ReshapeIndexGraph, referencePositionsOf } from './reshape-index-graph.js';

/** Why a ViewOp cannot be indexed through, or null. */
export function viewRefusal(e: ViewOp): string | null {
  const out = e.outputs[0] as TensorView;
  const root = out.domain.root;
  const logical = out.domain.logical;
  const noEmpty = root !== null && [...root, ...logical].every((id) => id.extent.constNumber() !== 0);
  const trivial = root !== null && ((root.length === 1 && logical.length === 1) || root.length === 0 || logical.length === 0);
  if (root === null || (idExprsFromTo(root, logical).length === 0 && !(trivial && noEmpty))) {
    return `reshape producing T${out.name} has no split/merge from its input's dims (an empty tensor or a 0-dim input): left to expr_eval`;
  }
  return null;
}

/**
 * Whether `tv` is made by an iota or a random-number op and has an iteration dim the exact map
 * does not tie to `ref`: such a value is computed from the kernel reference's indices, which do
 * not reach it across a reshape (its elements would all get one index).
 */
export function isFactoryAcrossReshape(tv: TensorView, ref: TensorView, map: ExactLogicalMap): boolean {
  const def = tv.definition;
  if (def === null || (def.kind !== 'IotaOp' && def.kind !== 'RNGOp')) return false;
  const direct = map.mapToReference(tv, ref);
  return tv.domain.logicalNoReductions().some((id, d) => !id.isBroadcast() && direct[d] === -1);
}

/**
 * For a fusion with reshapes: the refusal reason, or null when every tensor can be indexed from
 * `ref`. Undefined for a fusion without reshapes (the caller's positional checks apply).
 */
export function reshapeMappingRefusal(fusion: Fusion, ref: TensorView, map: ExactLogicalMap): string | null | undefined {
  const graph = new ReshapeIndexGraph(fusion, ref);
  if (!graph.hasReshape) return undefined;
  const live = new Set(fusion.exprs());
  const refIter = ref.domain.logicalNoReductions().flatMap((id, d) => (id.isBroadcast() ? [] : [d]));
  for (const tv of fusion.allTvs()) {
    if (tv.isFusionInput() && !tv.uses.some((u) => live.has(u))) continue;
    const derived = graph.deriveLogical(tv);
    const logical = tv.domain.logicalNoReductions();
    for (let d = 0; d < logical.length; d += 1) {
      const id = logical[d];
      if (id === undefined || id.isBroadcast() || derived[d] !== null) continue;
      if (id.extent.constNumber() === 1) continue;
      if (tv.uses.some((u) => u.kind === 'SqueezeOp' && u.isSqueezeDim[d] === true)) continue;
      return `T${tv.name} dim ${d} (extent ${id.extent.symbolicName()}) maps neither to the reference T${ref.name} nor through a reshape to it`;
    }
    if (isFactoryAcrossReshape(tv, ref, map)) return `${tv.definition?.kind} producing T${tv.name} is on the other side of a reshape from the reference T${ref.name}`;
    if (tv.isFusionOutput()) {
      const covered = new Set<number>();
      for (const x of derived) if (x !== null) for (const p of referencePositionsOf(x)) covered.add(p);
      const missing = refIter.filter((p) => !covered.has(p));
      if (missing.length > 0) {
        return `output T${tv.name} does not cover the reference T${ref.name}'s dims ${missing.join(', ')} (it would be written redundantly)`;
      }
    }
  }
  return null;
}
