// The matmul scheduler (nvFuser's SchedulerType::Matmul, whose segments nvFuser hands to ATen):
// it takes a segment of exactly one matmul / linear and the epilogue cuBLASLt fuses, and makes
// no kernel — its parameters are the cuBLASLt call (segment-analysis.ts) that the runtime's
// library-call segment enqueues between the generated kernels. Its acceptance reads the pattern
// and layout analysis (computed once per (fusion, runtime info) in the HeuristicDataCache; a
// refusal is its verdict, a GemmShapeError the error it threw); the heuristics are made from it
// by computeHeuristics alone, once per segment.
// Invariant: canSchedule accepts exactly the fusions computeHeuristics has parameters for;
// schedule always refuses (there is no loop nest to schedule).

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { HeuristicDataCache, type AnalysisKey } from '../heuristic-data-cache.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { analyzeMatmulSegment, type MatmulSegmentAnalysis, type MatmulSegmentOptions } from './segment-analysis.js';
import { GEMM_EXPR_KINDS, NO_MATMUL } from './epilogue-pattern.js';
import type { MatmulParams } from './params.js';

/** The GEMM segment's pattern and runtime layouts, once per fusion and runtime info. */
const MATMUL_ANALYSIS: AnalysisKey<MatmulSegmentAnalysis> = Object.freeze({ name: 'matmul pattern and layouts' });

export class MatmulScheduler implements Scheduler {
  readonly type = 'matmul' as const;

  /** `overrides`: which epilogues a segment may take (segment-analysis.ts MatmulSegmentOptions). */
  constructor(private readonly overrides: MatmulSegmentOptions = {}) {}

  /** The analysis entry of these overrides (one cache may serve schedulers with other overrides). */
  private analysisOf(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache): MatmulSegmentAnalysis {
    return cache.analysis(MATMUL_ANALYSIS, () => analyzeMatmulSegment(fusion, runtimeInfo, this.overrides), this.overrides.backwardEpilogues === true ? 'backward epilogues' : '');
  }

  /**
   * A check, not the heuristics: the GEMM pattern and the runtime layouts (the MATMUL_ANALYSIS
   * entry of the HeuristicDataCache), read again by computeHeuristics. Never schedules.
   */
  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    // Most fusions hold no GEMM: refused before the cache.
    if (!fusion.exprs().some((e) => GEMM_EXPR_KINDS.has(e.kind))) return { ok: false, reason: NO_MATMUL };
    const v = this.analysisOf(fusion, runtimeInfo, HeuristicDataCache.for(fusion, runtimeInfo, cache));
    return v.ok ? { ok: true } : { ok: false, reason: v.reason };
  }

  /** Once per cache, from the analysis canSchedule read: a refusal is memoized as the error it threw (the cache's rule). */
  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): MatmulParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => {
      const v = this.analysisOf(fusion, runtimeInfo, analysis);
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
