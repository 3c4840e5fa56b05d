// The outer persistent (normalization) scheduler: batch-norm-like fusions — reductions over the
// outer dims whose results are broadcast back over them (mean/var then normalize, x − sum(x, 0))
// — as one kernel: each thread keeps its slice of the column in registers across the block
// allreductions over threadIdx.y, so the input is read once and the output written once.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleOuterPersistent } from './can-schedule.js';
import { computeOuterPersistentHeuristics, type OuterPersistentOverrides } from './heuristics.js';
import type { OuterPersistentParams } from './params.js';
import { scheduleOuterPersistent } from './schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';
import { persistentAcceptance } from '../persistent/persistent-acceptance.js';
import { outerPersistentLaunchRefusal } from './launch-bounds.js';

export class OuterPersistentScheduler implements Scheduler {
  readonly type = 'outer_persistent' as const;

  constructor(private readonly overrides: OuterPersistentOverrides = {}) {}

  /**
   * The checks (canScheduleOuterPersistent), then the bounds the launch must fit with this
   * scheduler's overrides (launch-bounds.ts, persistent-acceptance.ts): memoized analyses, no
   * heuristics, no clone, no schedule.
   */
  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'outer persistent');
    if (!strided.ok) return strided;
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    const checks = canScheduleOuterPersistent(fusion, runtimeInfo, analysis);
    if (!checks.ok) return checks;
    return persistentAcceptance(analysis, outerPersistentLaunchRefusal(analysis, this.overrides));
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): OuterPersistentParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => computeOuterPersistentHeuristics(fusion, runtimeInfo, this.overrides, analysis));
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'outer_persistent') throw new SchedulingError(`outer persistent scheduler given ${params.schedulerType} parameters`);
    return scheduleOuterPersistent(fusion, params);
  }
}
