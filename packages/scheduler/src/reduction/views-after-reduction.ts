// Reshapes after the reduction in the reduction schedule (the row sums [B·S] reshaped to [B, S]
// and added to a bias [B, S]): propagated from the partial reduction, the tensors past the
// reshape keep their logical loops (the view output's logical IDs are all new), so lowering
// would compute them in loops of their own. As the persistent schedulers do for reshapes after
// the row, each such view takes its producer's loops through the reshape and the tensors after
// it take them by propagation (persistent/loops-past-views.ts, one mechanism for both); here the
// producer is the reduction tensor or a tensor after it, whose loops are the iteration positions
// [BIDx, TIDy|TIDx] (plus the parallel reduction position on the reduction tensor itself).
// Tensors that join the reshaped values (a bias read after the reshape, its input cache) and
// were not reached through the view's uses take the view output's loops by a second propagation
// over the tensors still without loop transforms.
// Invariant: only tensors that had no loop transforms after the first propagation change; every
// tensor past a reshape of the reduction result then shares the iteration loops of the
// reduction tensor (mapped, with its parallel types), so inlining puts it in the same loop nest.

import { loopExprs, parallelizeAllLike, propagateTransforms, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import { replayLoopsPastViews } from '../persistent/loops-past-views.js';
import { downstreamExprs } from './analysis.js';

/** Gives the tensors past a reshape after `reduction` its iteration loops (see the header). */
export function scheduleViewsAfterReduction(fusion: Fusion, reduction: TensorView, outputs: readonly TensorView[]): void {
  const after = downstreamExprs(fusion, outputs);
  const views = after.filter((e) => e.kind === 'ViewOp');
  if (views.length === 0) return;
  const unscheduled = fusion.allTvs().filter((tv) => !tv.isFusionInput() && tv.nDims() > 0 && loopExprs(tv).length === 0);
  // One call per loop rank of the views' producers (the reduction tensor has one more than the
  // tensors after it); a view of a replayed view's output is replayed in the same call.
  const producers: TensorView[] = [];
  for (const e of views) {
    const p = e.inputs[0];
    if (p !== undefined && p.kind === 'tensorView' && !producers.some((q) => q.nDims() === p.nDims())) producers.push(p);
  }
  const replayed: TensorView[] = [];
  for (const p of producers) replayed.push(...replayLoopsPastViews(fusion, p));
  const left = unscheduled.filter((tv) => loopExprs(tv).length === 0);
  if (left.length === 0) return;
  for (const c of replayed) {
    propagateTransforms(c, { tvs: [c, ...unscheduled.filter((tv) => tv !== c && !replayed.includes(tv))] });
  }
  parallelizeAllLike(reduction, unscheduled);
}
