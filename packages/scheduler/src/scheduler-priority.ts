// The one scheduler priority list: nvFuser's order (csrc/scheduler/scheduler_types.h,
// all_heuristics_in_priority_order: expr_eval, no_op, matmul, reduction, resize, transpose,
// pointwise, inner / outer / inner_outer persistent; greedy after them) for the schedulers
// tsfuser has, attention beside matmul (nvFuser hands sdpfa ops to ATen; tsfuser's attention
// segment is the other library-like one). `nvFuserAcceptors()` (--explain's comparison set)
// asks in this order; `defaultSchedulerRegistry()` asks in `registryPriority()`, derived from
// it. Invariant: every SchedulerType appears exactly once in each order.

import type { SchedulerType } from './heuristic-params.js';

export const schedulerPriority: readonly SchedulerType[] = [
  'expr_eval',
  'no_op',
  'matmul',
  'attention',
  'reduction',
  'transpose',
  'pointwise',
  'inner_persistent',
  'outer_persistent',
  'inner_outer_persistent',
  'greedy',
];

/**
 * The registry's order: `schedulerPriority` with tsfuser's two deviations, both pinned by the
 * dump goldens (moving either changes them):
 * - no_op last: the kernel schedulers handle the empty sizes they accept and no_op takes the
 *   rest (a softmax over zero rows); asking it second would change those plans.
 * - reduction after transpose and pointwise: they never accept a fusion with a reduction and
 *   reduction never accepts one without, so this decides no plan, only the order in which the
 *   scheduler_verbose / segmenter logs print refusals.
 */
export function registryPriority(): SchedulerType[] {
  const kernelFirst = schedulerPriority.filter((t) => t !== 'no_op' && t !== 'reduction');
  const reductionAt = kernelFirst.indexOf('pointwise') + 1;
  return [...kernelFirst.slice(0, reductionAt), 'reduction', ...kernelFirst.slice(reductionAt), 'no_op'];
}
