// The attention scheduler (tsfuser's; nvFuser hands sdpfa_fwd / sdpfa_bwd to ATen through its
// expr_eval scheduler): it takes a segment of exactly one SdpaFwdOp or SdpaBwdOp and makes no
// loop nest — its parameters (segment-analysis.ts) are what the runtime's attention segment needs to
// generate, compile and launch codegen's flash-attention kernels. Acceptance reads the op and
// layout analysis (computed once per (fusion, runtime info) in the HeuristicDataCache); the
// heuristics are made from it by computeHeuristics alone, once per segment.
// Invariant: canSchedule accepts exactly the fusions computeHeuristics has parameters for;
// schedule always refuses (the kernels are generated from the parameters, not scheduled).

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { HeuristicDataCache, type AnalysisKey } from '../heuristic-data-cache.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { analyzeAttentionSegment, type AttentionSegmentAnalysis } from './segment-analysis.js';
import type { AttentionParams } from './params.js';

/** The attention segment's op, flags and runtime layouts, once per fusion and runtime info. */
const ATTENTION_ANALYSIS: AnalysisKey<AttentionSegmentAnalysis> = Object.freeze({ name: 'attention op and layouts' });

export class AttentionScheduler implements Scheduler {
  readonly type = 'attention' as const;

  /**
   * A check, not the heuristics: the sdpfa op, its flags and the runtime layouts (the
   * ATTENTION_ANALYSIS entry of the HeuristicDataCache), read again by computeHeuristics.
   */
  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    const v = HeuristicDataCache.for(fusion, runtimeInfo, cache).analysis(ATTENTION_ANALYSIS, () => analyzeAttentionSegment(fusion, runtimeInfo));
    return v.ok ? { ok: true } : { ok: false, reason: v.reason };
  }

  /** Once per cache, from the analysis canSchedule read: a refusal is memoized as the error it threw (the cache's rule). */
  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): AttentionParams {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    return analysis.heuristics(this, () => {
      const r = analysis.analysis(ATTENTION_ANALYSIS, () => analyzeAttentionSegment(fusion, runtimeInfo));
      if (!r.ok) throw new AttentionRefusal(r.reason);
      return r.params;
    });
  }

  schedule(_fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    throw new SchedulingError(`an ${params.schedulerType} segment runs generated flash-attention kernels made from its parameters: there is no loop nest to schedule`);
  }
}

/** The attention scheduler's refusal of a fusion, as its heuristics throw it. */
class AttentionRefusal extends SchedulingError {
  override readonly name = 'SchedulingError';
  constructor(readonly reason: string) {
    super(`the attention scheduler cannot take this fusion: ${reason}`);
  }
}
