// The matmul scheduler (nvFuser's SchedulerType::Matmul, whose segments nvFuser hands to ATen):
// it takes a segment of exactly one matmul / linear and the epilogue cuBLASLt fuses, and makes
// no kernel — its parameters are the cuBLASLt call (heuristics.ts) that the runtime's
// library-call segment enqueues between the generated kernels. Its acceptance is the heuristics'
// verdict, computed once per (fusion, runtime info) through the HeuristicDataCache (a refusal
// is the error the memoized computation threw).
// Invariant: canSchedule accepts exactly the fusions computeHeuristics has parameters for;
// schedule always refuses (there is no loop nest to schedule).

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { computeMatmulHeuristics } from './heuristics.js';
import { GEMM_EXPR_KINDS, NO_MATMUL } from './epilogue-pattern.js';
import type { MatmulParams } from './params.js';

export class MatmulScheduler implements Scheduler {
  readonly type = 'matmul' as const;

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    // Most fusions hold no GEMM: refused before the cache (no heuristics computation counted).
    if (!fusion.exprs().some((e) => GEMM_EXPR_KINDS.has(e.kind))) return { ok: false, reason: NO_MATMUL };
    try {
      this.computeHeuristics(fusion, runtimeInfo, cache);
      return { ok: true };
    } catch (error) {
      if (error instanceof MatmulRefusal) return { ok: false, reason: error.reason };
      throw error;
    }
  }

  /** Computed once per cache: a refusal is memoized as the error it threw (the cache's rule). */
  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): MatmulParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => {
      const v = computeMatmulHeuristics(fusion, runtimeInfo);
      if (!v.ok) throw new MatmulRefusal(v.reason);
      return v.params;
    });
  }

  schedule(_fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    throw new SchedulingError(`a ${params.schedulerType} segment is a cuBLASLt call, not a generated kernel: there is nothing to schedule`);
  }
}

/** The matmul scheduler's refusal of a fusion, as its heuristics throw it. */
class MatmulRefusal extends SchedulingError {
  override readonly name = 'SchedulingError';
  constructor(readonly reason: string) {
    super(`the matmul scheduler cannot take this fusion: ${reason}`);
  }
}
