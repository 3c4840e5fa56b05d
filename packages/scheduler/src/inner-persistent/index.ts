// The inner persistent (normalization) scheduler: softmax, log_softmax, layer_norm and rms_norm
// over the innermost dims as one kernel — each row stays in registers across its block
// allreductions, so the input is read once and the output written once.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleInnerPersistent } from './can-schedule.js';
import { computeInnerPersistentHeuristics, type InnerPersistentOverrides } from './heuristics.js';
import type { InnerPersistentParams } from './params.js';
import { scheduleInnerPersistent } from './schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';
import { persistentAcceptance } from '../persistent/persistent-acceptance.js';
import { innerPersistentLaunchRefusal } from './launch-bounds.js';

export class InnerPersistentScheduler implements Scheduler {
  readonly type = 'inner_persistent' as const;

  constructor(private readonly overrides: InnerPersistentOverrides = {}) {}

  /**
   * The checks (canScheduleInnerPersistent), then the bounds the launch must fit with this
   * scheduler's overrides (launch-bounds.ts, persistent-acceptance.ts): memoized analyses, no
   * heuristics, no clone, no schedule.
   */
  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'inner persistent');
    if (!strided.ok) return strided;
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    const checks = canScheduleInnerPersistent(fusion, runtimeInfo, analysis);
    if (!checks.ok) return checks;
    return persistentAcceptance(analysis, innerPersistentLaunchRefusal(analysis, this.overrides));
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): InnerPersistentParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => computeInnerPersistentHeuristics(fusion, runtimeInfo, this.overrides, analysis));
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'inner_persistent') throw new SchedulingError(`inner persistent scheduler given ${params.schedulerType} parameters`);
    return scheduleInnerPersistent(fusion, params);
  }
}
