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
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleInnerOuterPersistent } from './can-schedule.js';
import { computeInnerOuterPersistentHeuristics, type InnerOuterPersistentOverrides } from './heuristics.js';
import { innerOuterPersistentLaunchRefusal } from './launch-bounds.js';
import type { InnerOuterPersistentParams } from './params.js';
import { scheduleInnerOuterPersistent } from './schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';
import { persistentAcceptance } from '../persistent/persistent-acceptance.js';

export class InnerOuterPersistentScheduler implements Scheduler {
  readonly type = 'inner_outer_persistent' as const;

  constructor(private readonly overrides: InnerOuterPersistentOverrides = {}) {}

  /**
   * The checks (canScheduleInnerOuterPersistent), then the bounds the launch must fit with this
   * scheduler's overrides (launch-bounds.ts, persistent-acceptance.ts): memoized analyses, no
   * heuristics, no clone, no schedule.
   */
  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'inner-outer persistent');
    if (!strided.ok) return strided;
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    const checks = canScheduleInnerOuterPersistent(fusion, runtimeInfo, analysis);
    if (!checks.ok) return checks;
    return persistentAcceptance(analysis, innerOuterPersistentLaunchRefusal(analysis, this.overrides));
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): InnerOuterPersistentParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => computeInnerOuterPersistentHeuristics(fusion, runtimeInfo, this.overrides, analysis));
  }

  /** The same overrides with the driver's resident blocks per SM (the grid then fits the device at once). */
  forResidentBlocks(blocksPerSm: number): InnerOuterPersistentScheduler | null {
    return blocksPerSm > 0 ? new InnerOuterPersistentScheduler({ ...this.overrides, blocksPerSm }) : null;
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'inner_outer_persistent') throw new SchedulingError(`inner-outer persistent scheduler given ${params.schedulerType} parameters`);
    return scheduleInnerOuterPersistent(fusion, params);
  }
}
