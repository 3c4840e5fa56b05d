// The schedule steps of slice / pad / cat on the input side of an inner persistent row
// (resize-before-row.ts): inputs are cached once per index space they are read in (the
// pointwise scheduler's prepareResize / cacheInputBySpace, with the row — the first
// reduction's input — as the reference), and after inlining, a resize's producers are computed
// at the consumer's point: inlined into all of its loops but a vectorized one, its own or a
// consumer's (their index is shifted, the resized IDs iterate together although their extents
// differ); a resize producer that would be a persistent buffer (read in loops of two phases) is
// refused.
// Invariant: after `cacheRowInputsBySpace`, computeIndexSpaces over the fusion finds no
// conflict; `inlineResizeProducers` changes compute positions only.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { feedsResize, inlineResizeProducer } from '../pointwise/resize/prepare.js';
import { cacheReductionInputsAndOutputs } from '../reduction/resize-before-reduction.js';
import { loopPhases, reductionPhases } from './persistence.js';

/**
 * The row: the input of the fusion's first inner reduction (its innermost dim reduced), else of
 * its first reduction — the kernel's reference, the resize plan's.
 */
function firstReductionInput(fusion: Fusion): TensorView {
  const inputs = fusion.exprs().flatMap((e) => {
    const i = e.inputs[0];
    const o = e.outputs[0];
    return e.kind === 'ReductionOp' && i !== undefined && i.kind === 'tensorView' && o !== undefined && o.kind === 'tensorView' ? [{ i, inner: o.domain.logical.at(-1)?.isReduction() === true }] : [];
  });
  const row = inputs.find((x) => x.inner) ?? inputs[0];
  if (row === undefined) throw new SchedulingError('persistent schedule: the fusion has no reduction');
  return row.i;
}

/**
 * Caches every used tensor input not in `skip` (input positions) once per index space it is
 * read in, and every tensor output, as schedule-steps.ts's cacheInputsAndOutputs does. Returns
 * each input cache with its input's position.
 */
export function cacheRowInputsBySpace(fusion: Fusion, skip: ReadonlySet<number>): Map<TensorView, number> {
  return cacheReductionInputsAndOutputs(fusion, firstReductionInput(fusion), skip);
}

/**
 * Inlines each resize producer of a `dims`-position row schedule at its consumer's loops (up to
 * a vectorized one); `isBlock` says which reductions are block reductions (persistence.ts). A resize producer read in loops of two phases would have to be a
 * persistent buffer read at a shifted index — another thread's registers — so it is refused.
 */
export function inlineResizeProducers(fusion: Fusion, dims: number, isBlock?: (out: TensorView) => boolean): void {
  const { persistent } = loopPhases(fusion, reductionPhases(fusion, isBlock));
  for (const tv of persistent) {
    if (!tv.isFusionInput() && feedsResize(tv)) {
      throw new SchedulingError(`persistent schedule: T${tv.name} feeds a slice, pad or cat and is read in two phases of the row (it would be a persistent buffer read at a shifted index)`);
    }
  }
  const vectorPosition = (t: TensorView): number => {
    const p = t.domain.loop.findIndex((id) => id.parallelType === 'Vectorize');
    return p < 0 ? dims : p;
  };
  for (const tv of fusion.allTvs()) {
    if (tv.isFusionInput() || !feedsResize(tv) || tv.nDims() !== dims) continue;
    // Not inside a vectorized loop of its own or of a consumer (an output's vectorized store
    // reads the whole vector of it).
    const consumers = tv.uses.flatMap((u) => u.outputs.filter((o): o is TensorView => o.kind === 'tensorView'));
    const pos = Math.min(vectorPosition(tv), ...consumers.map(vectorPosition));
    if (pos > tv.computeAtPosition) inlineResizeProducer(tv, pos);
  }
}
