// Optimisation pass `allreduce-barriers` (inner persistent kernels with singleBarrierAllreduce) — one barrier per block
// allreduce. A persistent normalization's row waits on its block allreduces one after another
// (layer_norm: the mean, then the variance), three __syncthreads each in blockAllreduce. This
// pass turns them into blockAllreduceOneBarrier calls on alternating shared-memory areas 0, 1,
// 0, …: each keeps only the barrier that publishes the warp partials. Leaving out the trailing
// barrier is safe because a thread writes area a again only in the allreduce after next, after
// the barrier of the allreduce in between (on the other area), and every thread reaches that
// barrier only after it finished reading area a.
// That argument needs each allreduce to run once, in program order, in every thread, with no
// other shared-memory user in between: the pass applies only when every statement that uses
// shared memory is an ungrouped block allreduce at the top level of the kernel body (no
// enclosing loop or branch). Otherwise it returns the body unchanged.
// Invariant: every allreduce reduces the same values into the same accumulators in the same
// threads (the partials may be combined in another order); no other statement changes.

import { containsReduction } from '../kernel-ir/effects.js';
import type { Stmt } from '../kernel-ir/nodes.js';

/** Whether a statement (or one nested in it) uses the kernel's dynamic shared memory: every block or grid reduction does. */
function usesSharedMemory(s: Stmt): boolean {
  return containsReduction([s]);
}

function isPlainAllreduce(s: Stmt): s is Extract<Stmt, { kind: 'BlockReduce' }> {
  return s.kind === 'BlockReduce' && s.allreduce === true && s.grouped === undefined;
}

/** The body with its block allreduces on one barrier each, when that is safe (see the header). */
export function singleBarrierAllreduces(body: readonly Stmt[]): Stmt[] {
  if (body.some((s) => usesSharedMemory(s) && !isPlainAllreduce(s))) return [...body];
  let next: 0 | 1 = 0;
  return body.map((s) => {
    if (!isPlainAllreduce(s)) return s;
    const area = next;
    next = next === 0 ? 1 : 0;
    return { ...s, oneBarrierArea: area };
  });
}
