// The no_op scheduler (nvFuser's NoOpScheduler): a fusion or segment whose every output has no
// elements gets no kernel — the executor allocates the empty outputs and launches nothing.
// Registered last in tsfuser's default registry (nvFuser tries it second): the kernel
// schedulers already compile empty pointwise and reduction fusions (a grid of 0 is not
// launched), so no_op only takes what they refuse, e.g. a softmax over zero rows.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams, NoOpParams } from '../heuristic-params.js';
import { evaluateExtent, type RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';

/** Every output is a tensor with no elements. */
export function canScheduleEmptyOutputs(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): CanScheduleResult {
  if (fusion.outputs.length === 0) return { ok: false, reason: 'the fusion has no outputs' };
  let bindings;
  try {
    bindings = cache.bindings();
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') return { ok: false, reason: `output ${o.name} is not a tensor` };
    let numel: number;
    try {
      numel = o.domain.logicalNoReductions().reduce((acc, id) => acc * evaluateExtent(id.logicalExtent(), bindings), 1);
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
    if (numel > 0) return { ok: false, reason: `output T${o.name} has ${numel} elements to compute` };
  }
  return { ok: true };
}

export class NoOpScheduler implements Scheduler {
  readonly type = 'no_op' as const;

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    return canScheduleEmptyOutputs(fusion, runtimeInfo, HeuristicDataCache.for(fusion, runtimeInfo, cache));
  }

  computeHeuristics(): NoOpParams {
    return { schedulerType: 'no_op', tag: 'No-op heuristics' };
  }

  schedule(_fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    throw new SchedulingError(`a ${params.schedulerType} fusion has no kernel to schedule: every output is empty`);
  }
}
