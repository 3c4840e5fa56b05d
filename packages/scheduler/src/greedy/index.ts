// The greedy scheduler (nvFuser's SchedulerType::Greedy, which takes scans, sorts and scatters):
// a segment that is one cumsum / cumprod / cummin / cummax / argsort / topk, or one scatter /
// index_put_accumulate (scatter.ts). It schedules no loop nest:
// its parameters name an expression-level kernel that codegen emits directly (emit/greedy/), so
// `schedule` hands the fusion on as it is.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import { scheduledFusion, type CanScheduleResult, type ScheduledFusion, type Scheduler } from '../scheduler.js';
import { analyzeGreedy } from './analysis.js';
import { computeGreedyHeuristics } from './heuristics.js';
import type { GreedyParams } from './params.js';
import { analyzeScatter, computeScatterHeuristics, scatterOpOf } from './scatter.js';


export class GreedyScheduler implements Scheduler {
  readonly type = 'greedy' as const;

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo): CanScheduleResult {
    const scatter = scatterOpOf(fusion);
    if (scatter !== null) {
      const s = analyzeScatter(fusion, runtimeInfo, scatter);
      return typeof s === 'string' ? { ok: false, reason: s } : { ok: true };
    }
    const r = analyzeGreedy(fusion, runtimeInfo);
    return typeof r === 'string' ? { ok: false, reason: r } : { ok: true };
  }

  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): GreedyParams {
    return HeuristicDataCache.for(fusion, runtimeInfo, cache).heuristics(this, () => this.greedyHeuristics(fusion, runtimeInfo));
  }

  private greedyHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo): GreedyParams {
    const scatter = scatterOpOf(fusion);
    if (scatter !== null) {
      const s = analyzeScatter(fusion, runtimeInfo, scatter);
      if (typeof s === 'string') throw new SchedulingError(`greedy scheduler: ${s}`);
      return computeScatterHeuristics(s);
    }
    const r = analyzeGreedy(fusion, runtimeInfo);
    if (typeof r === 'string') throw new SchedulingError(`greedy scheduler: ${r}`);
    return computeGreedyHeuristics(r);
  }

  /**
   * A greedy fusion is not scheduled into a loop nest (codegen emits its scan or sort kernel from
   * the parameters): the scheduled fusion is the fusion itself, with its first output as reference.
   */
  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    if (params.schedulerType !== 'greedy') throw new SchedulingError(`greedy scheduler: given ${params.schedulerType} parameters`);
    const reference = fusion.outputs.find((o): o is TensorView => o.kind === 'tensorView');
    if (reference === undefined) throw new SchedulingError('greedy scheduler: the fusion has no tensor output');
    return scheduledFusion(fusion, reference, new Set(), params);
  }
}

export { analyzeGreedy, NO_SCAN_OR_SORT, MAX_BITONIC_ROW, MAX_WARP_TOPK, type GreedyFacts, type GreedyOp } from './analysis.js';
export { computeGreedyHeuristics } from './heuristics.js';
export { analyzeScatter, computeScatterHeuristics, scatterInitialization, scatterOpOf, scatterScalarSource, SCATTER_THREADS, type ScatterFacts, type ScatterLikeOp } from './scatter.js';
export { greedyParamsToString, type GreedySerialScanKernel, type GreedyBitonicKernel, type GreedyKernel, type GreedyParams, type GreedyScanKernel, type GreedyScatterKernel, type GreedyWarpTopKKernel } from './params.js';
