// The transpose scheduler (nvFuser's SchedulerType::Transpose): fusions whose inputs and
// outputs have two different innermost dims, tiled so that both sides are read and written
// coalesced (the second group through a shared-memory tile: codegen's transpose-smem-tile pass).

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleTranspose } from './can-schedule.js';
import { computeTransposeHeuristics, type TransposeOverrides } from './heuristics.js';
import type { TransposeParams } from './params.js';
import { scheduleTranspose } from './schedule.js';

export class TransposeScheduler implements Scheduler {
  readonly type = 'transpose' as const;

  /** `overrides` fixes some heuristic choices (tests and tuning experiments); default: none. */
  constructor(private readonly overrides: TransposeOverrides = {}) {}

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    return canScheduleTranspose(fusion, runtimeInfo, HeuristicDataCache.for(fusion, runtimeInfo, cache));
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): TransposeParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => computeTransposeHeuristics(fusion, runtimeInfo, this.overrides, analysis));
  }

  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'transpose') throw new SchedulingError(`transpose scheduler given ${params.schedulerType} parameters`);
    return scheduleTranspose(fusion, params);
  }
}

export { canScheduleTranspose, DEFAULT_TILE_SIZE, MAX_TILE_SHARED_MEMORY } from './can-schedule.js';
export { computeTransposeHeuristics, transposeTileSize, TRANSPOSE_THREADS_PER_BLOCK, type TransposeOverrides } from './heuristics.js';
export { scheduleTranspose } from './schedule.js';
export { analyzeTransposeGroups, type TransposeGroups } from './groups.js';
export { transposeParamsToString, transposeElementsPerThread, type TransposeParams } from './params.js';
