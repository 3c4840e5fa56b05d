// The inner persistent (normalization) scheduler: softmax, log_softmax, layer_norm and rms_norm
// over the innermost dims as one kernel — each row stays in registers across its block
// allreductions, so the input is read once and the output written once.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleInnerPersistent } from './can-schedule.js';
import { computeInnerPersistentHeuristics, type InnerPersistentOverrides } from './heuristics.js';
import type { InnerPersistentParams } from './params.js';
import { scheduleInnerPersistent } from './schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';

export class InnerPersistentScheduler implements Scheduler {
  readonly type = 'inner_persistent' as const;

  constructor(private readonly overrides: InnerPersistentOverrides = {}) {}

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'inner persistent');
    return strided.ok ? canScheduleInnerPersistent(fusion, runtimeInfo) : strided;
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo): InnerPersistentParams {
    return computeInnerPersistentHeuristics(fusion, runtimeInfo, this.overrides);
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'inner_persistent') throw new SchedulingError(`inner persistent scheduler given ${params.schedulerType} parameters`);
    return scheduleInnerPersistent(fusion, params);
  }
}
