// The pointwise scheduler: canSchedule / computeHeuristics / schedule for fusions of
// elementwise math, broadcasts and copies.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams, PointwiseParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canSchedulePointwise } from './can-schedule.js';
import { computePointwiseHeuristics, type PointwiseOverrides } from './heuristics.js';
import { schedulePointwise } from './schedule.js';

export class PointwiseScheduler implements Scheduler {
  readonly type = 'pointwise' as const;

  /** `overrides` fixes some heuristic choices (tuning experiments); default: none. */
  constructor(private readonly overrides: PointwiseOverrides = {}) {}

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    return canSchedulePointwise(fusion, runtimeInfo, HeuristicDataCache.for(fusion, runtimeInfo, cache));
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): PointwiseParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => computePointwiseHeuristics(fusion, runtimeInfo, this.overrides, analysis));
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'pointwise') throw new SchedulingError(`pointwise scheduler given ${params.schedulerType} parameters`);
    return schedulePointwise(fusion, params);
  }
}
