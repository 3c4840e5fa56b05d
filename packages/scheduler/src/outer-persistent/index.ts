// The outer persistent (normalization) scheduler: batch-norm-like fusions — reductions over the
// outer dims whose results are broadcast back over them (mean/var then normalize, x − sum(x, 0))
// — as one kernel: each thread keeps its slice of the column in registers across the block
// allreductions over threadIdx.y, so the input is read once and the output written once.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleOuterPersistent } from './can-schedule.js';
import { computeOuterPersistentHeuristics, type OuterPersistentOverrides } from './heuristics.js';
import type { OuterPersistentParams } from './params.js';
import { scheduleOuterPersistent } from './schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';

export class OuterPersistentScheduler implements Scheduler {
  readonly type = 'outer_persistent' as const;

  constructor(private readonly overrides: OuterPersistentOverrides = {}) {}

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'outer persistent');
    return strided.ok ? canScheduleOuterPersistent(fusion, runtimeInfo) : strided;
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo): OuterPersistentParams {
    return computeOuterPersistentHeuristics(fusion, runtimeInfo, this.overrides);
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'outer_persistent') throw new SchedulingError(`outer persistent scheduler given ${params.schedulerType} parameters`);
    return scheduleOuterPersistent(fusion, params);
  }
}
