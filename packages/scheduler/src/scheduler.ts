// The scheduler interface and the registry that picks one. A scheduler is pure: canSchedule
// and computeHeuristics only read; schedule mutates the fusion it is given (a clone the caller
// owns) and reports what lowering needs to know (the reference tensor, proven divisibility, the
// lowering options and the analyses lowering reads, made once in the final step scheduledFusion).
// canSchedule and computeHeuristics share one HeuristicDataCache per (fusion, runtime info):
// the analyses both need, and the heuristics themselves, are computed once; a scheduler whose
// schedule can still refuse after its checks asks the cache for the schedule (made once, with
// its overrides: the kernel is then built from exactly what was accepted).

import type { Fusion, Split, TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from './errors.js';
import { HeuristicDataCache } from './heuristic-data-cache.js';
import type { HeuristicParams, KernelParams, SchedulerType } from './heuristic-params.js';
import { loweringOptionsOf, type LoweringOptions } from './lowering-options.js';
import { LoweringAnalyses } from './lowering-analyses.js';
import type { RuntimeInfo } from './runtime-info.js';

export type CanScheduleResult = { ok: true } | { ok: false; reason: string };

export interface ScheduledFusion {
  fusion: Fusion;
  /** The tensor whose loop structure every other tensor follows. */
  reference: TensorView;
  /** Splits of the reference proven divisible for the sizes the heuristics saw. */
  divisibleSplits: ReadonlySet<Split>;
  params: KernelParams;
  /** What lowering decides from `params` (loweringOptionsOf: computed once, here, by the scheduler). */
  lowering: LoweringOptions;
  /** The analyses of this scheduled fusion that lowering reads (lowering-analyses.ts: each built once). */
  analyses: LoweringAnalyses;
}

/**
 * Every kernel scheduler's final step: the scheduled fusion with its lowering options and the
 * analyses lowering reads (made once, here, for this scheduled fusion).
 */
export function scheduledFusion(fusion: Fusion, reference: TensorView, divisibleSplits: ReadonlySet<Split>, params: KernelParams): ScheduledFusion {
  return { fusion, reference, divisibleSplits, params, lowering: loweringOptionsOf(params), analyses: new LoweringAnalyses(fusion, reference) };
}

export interface Scheduler {
  readonly type: SchedulerType;
  /** `cache`: the analyses of this (fusion, runtimeInfo) shared with computeHeuristics (a new one when absent). */
  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult;
  /** Computed once per cache (a cache that does not describe this fusion and info is not used). */
  computeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): HeuristicParams;
  /** Schedules `fusion` in place (pass a clone you own). */
  schedule(fusion: Fusion, params: HeuristicParams): ScheduledFusion;
  /**
   * After the driver's occupancy query for a kernel that needs every block resident at once (a
   * grid barrier): this scheduler with its heuristics held to `blocksPerSm` resident blocks per
   * SM (a parameter override), or null when its kernels cannot be planned for fewer. Absent: the
   * scheduler makes no such kernel.
   */
  forResidentBlocks?(blocksPerSm: number): Scheduler | null;
}

export interface SchedulerChoice {
  scheduler: Scheduler;
  /** Why each scheduler tried before it refused. */
  rejected: readonly { type: SchedulerType; reason: string }[];
  /** The analyses acceptance computed (heuristics and schedule included, where acceptance needed them). */
  analysis: HeuristicDataCache;
}

/** Tries schedulers in priority order; the first that accepts a fusion takes it. */
export class SchedulerRegistry {
  constructor(readonly schedulers: readonly Scheduler[]) {}

  /** The first accepting scheduler, or null with every refusal reason. */
  tryPick(
    fusion: Fusion,
    runtimeInfo: RuntimeInfo,
    cache?: HeuristicDataCache,
  ): SchedulerChoice | { scheduler: null; rejected: { type: SchedulerType; reason: string }[]; analysis: HeuristicDataCache } {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    const rejected: { type: SchedulerType; reason: string }[] = [];
    for (const s of this.schedulers) {
      const r = s.canSchedule(fusion, runtimeInfo, analysis);
      if (r.ok) return { scheduler: s, rejected, analysis };
      rejected.push({ type: s.type, reason: r.reason });
    }
    return { scheduler: null, rejected, analysis };
  }

  /** The first accepting scheduler; throws SchedulingError listing every refusal. */
  pick(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): SchedulerChoice {
    const r = this.tryPick(fusion, runtimeInfo, cache);
    if (r.scheduler === null) {
      throw new SchedulingError(`no scheduler accepts the fusion: ${r.rejected.map((x) => `${x.type}: ${x.reason}`).join('; ')}`);
    }
    return r;
  }

  /** The same schedulers, in the same order, keeping only `types` (e.g. a copy that must be a kernel). */
  restrictedTo(types: readonly SchedulerType[]): SchedulerRegistry {
    const kept = this.schedulers.filter((s) => types.includes(s.type));
    if (kept.length === 0) throw new SchedulingError(`no registered scheduler is one of ${types.join(', ')}`);
    return new SchedulerRegistry(kept);
  }

  /** The same order with `scheduler` in place of the registered one of its type (e.g. other overrides). */
  replacing(scheduler: Scheduler): SchedulerRegistry {
    if (!this.schedulers.some((s) => s.type === scheduler.type)) throw new SchedulingError(`no ${scheduler.type} scheduler is registered to replace`);
    return new SchedulerRegistry(this.schedulers.map((s) => (s.type === scheduler.type ? scheduler : s)));
  }

  get(type: SchedulerType): Scheduler {
    const s = this.schedulers.find((x) => x.type === type);
    if (s === undefined) throw new SchedulingError(`no ${type} scheduler is registered`);
    return s;
  }
}
