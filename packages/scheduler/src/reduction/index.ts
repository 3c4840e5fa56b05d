// The reduction scheduler: canSchedule / computeHeuristics / schedule for fusions with one
// reduction pattern (sum/prod/max/min over any dims) and pointwise math around it.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { ReductionParams } from './params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleReduction, type ReductionSchedulerOptions } from './can-schedule.js';
import { computeReductionHeuristics, type ReductionOverrides } from './heuristics.js';
import { scheduleReduction } from './schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';

export class ReductionScheduler implements Scheduler {
  readonly type = 'reduction' as const;

  constructor(
    readonly options: ReductionSchedulerOptions = {},
    private readonly overrides: ReductionOverrides = {},
  ) {}

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'reduction');
    return strided.ok ? canScheduleReduction(fusion, runtimeInfo, this.options, HeuristicDataCache.for(fusion, runtimeInfo, cache)) : strided;
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): ReductionParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => computeReductionHeuristics(fusion, runtimeInfo, this.overrides, analysis));
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'reduction') throw new SchedulingError(`reduction scheduler given ${params.schedulerType} parameters`);
    return scheduleReduction(fusion, params);
  }
}
