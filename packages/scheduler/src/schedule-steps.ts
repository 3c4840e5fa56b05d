// Scheduling steps the reduction and persistent schedulers share: caching fusion inputs and
// outputs (inputs read through a cacheAfter copy, outputs written from a cacheBefore/cacheFork
// copy, as nvFuser's schedulers do), finding the reduction tensors, and reshaping a reduction's
// loop domain to [kept, reduced]. Each keeps the fusion computing the same values.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from './errors.js';

/** Caches every used tensor input (except the positions in `skip`) and every tensor output. */
export function cacheInputsAndOutputs(fusion: Fusion, skip: ReadonlySet<number> = new Set()): Map<TensorView, number> {
  const inputCaches = new Map<TensorView, number>();
  fusion.inputs.forEach((v, i) => {
    if (v.kind !== 'tensorView' || v.uses.length === 0 || skip.has(i)) return;
    inputCaches.set(v.cacheAfter(), i);
  });
  for (const o of [...fusion.outputs]) {
    if (o.kind !== 'tensorView') continue;
    if (o.uses.length > 0) o.cacheFork();
    else o.cacheBefore();
  }
  return inputCaches;
}

/** Outputs of the fusion's ReductionOps, in topological order. */
export function reductionTensors(fusion: Fusion): TensorView[] {
  return fusion.exprs().flatMap((e) => {
    const out = e.outputs[0];
    return e.kind === 'ReductionOp' && out !== undefined && out.kind === 'tensorView' ? [out] : [];
  });
}

/** Reorders `r`'s loop to [kept..., reduced...] and merges each group into one dim. */
export function mergeKeptThenReduced(r: TensorView, scheduler: string): void {
  const logical = r.domain.logical;
  const kept = logical.flatMap((id, d) => (id.isReduction() ? [] : [d]));
  const reduced = logical.flatMap((id, d) => (id.isReduction() ? [d] : []));
  if (kept.length === 0) throw new SchedulingError(`${scheduler} schedule: reduction T${r.name} keeps no dim`);
  const map: Record<number, number> = {};
  [...kept, ...reduced].forEach((old, pos) => {
    map[old] = pos;
  });
  r.reorder(map);
  for (let k = reduced.length; k > 1; k -= 1) r.merge(kept.length);
  for (let n = kept.length; n > 1; n -= 1) r.merge(0);
}
