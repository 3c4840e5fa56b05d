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
import { MAX_THREADS_PER_BLOCK, computeInnerOuterPersistentHeuristics, type InnerOuterPersistentOverrides } from './heuristics.js';
import type { InnerOuterPersistentParams } from './params.js';
import { scheduleInnerOuterPersistent } from './schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';
import { persistentAcceptance } from '../persistent/persistent-acceptance.js';

export class InnerOuterPersistentScheduler implements Scheduler {
  readonly type = 'inner_outer_persistent' as const;

  constructor(private readonly overrides: InnerOuterPersistentOverrides = {}) {}

  /**
   * The checks (canScheduleInnerOuterPersistent), then the launch this scheduler's heuristics choose with its
   * overrides (persistent-acceptance.ts: computed once through the HeuristicDataCache, the
   * parameters the kernel is built with). Never schedules: no clone, no schedule.
   */
  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'inner-outer persistent');
    if (!strided.ok) return strided;
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    const checks = canScheduleInnerOuterPersistent(fusion, runtimeInfo, analysis);
    if (!checks.ok) return checks;
    return persistentAcceptance(
      analysis,
      () => this.computeHeuristics(fusion, runtimeInfo, analysis),
      (p) => (p.lparams.bdimx > MAX_THREADS_PER_BLOCK ? `${p.lparams.bdimx} threads per block, more than ${MAX_THREADS_PER_BLOCK}` : null),
    );
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
