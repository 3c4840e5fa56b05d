// The inner-outer persistent scheduler (nvFuser's InnerOuterPersistentKernelScheduler):
// layer_norm backward as one kernel — each block keeps its rows in registers across the inner
// block allreductions (grad_input) and accumulates the outer reductions over its rows
// (grad_weight, grad_bias) in registers; the blocks' partials are combined across the grid
// at the end of the same kernel (work buffer + grid barrier; see params.ts and the codegen
// lowering lower/grid-outer-reduction.ts).

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleInnerOuterPersistent } from './can-schedule.js';
import { computeInnerOuterPersistentHeuristics, type InnerOuterPersistentOverrides } from './heuristics.js';
import type { InnerOuterPersistentParams } from './params.js';
import { scheduleInnerOuterPersistent } from './schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';

export class InnerOuterPersistentScheduler implements Scheduler {
  readonly type = 'inner_outer_persistent' as const;

  constructor(private readonly overrides: InnerOuterPersistentOverrides = {}) {}

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'inner-outer persistent');
    return strided.ok ? canScheduleInnerOuterPersistent(fusion, runtimeInfo, this.overrides) : strided;
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo): InnerOuterPersistentParams {
    return computeInnerOuterPersistentHeuristics(fusion, runtimeInfo, this.overrides);
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'inner_outer_persistent') throw new SchedulingError(`inner-outer persistent scheduler given ${params.schedulerType} parameters`);
    return scheduleInnerOuterPersistent(fusion, params);
  }
}
