// HeuristicDataCache (nvFuser's HeuristicDataCache): the analyses of one fusion for one runtime
// info, computed at most once and shared by every scheduler's canSchedule and computeHeuristics
// and by the schedule that follows — extent bindings (the one binding of this fusion and runtime
// info every scheduler's checks and heuristics read), persistent-buffer sizes, the
// Welford-translated fusion the persistent heuristics decide for, each scheduler's heuristic
// parameters and its scheduled fusion. canSchedule reads the analyses (and, for the persistent
// schedulers, the heuristics) but never the scheduled fusion: schedules are made on the
// executor path only, once per compiled segment.
//
// Invariant: a cache answers only for its own (fusion, runtimeInfo); every entry is a pure
// function of those (and, for heuristics and schedules, of the scheduler object, which carries
// its overrides), so reading an entry twice returns the same value, and an entry that failed
// fails again with the same error without being computed again.

import type { Fusion } from '@tsfuser/fusion-ir';
import type { HeuristicParams } from './heuristic-params.js';
import { persistentBufferBytes, type PersistentBufferSize } from './persistent/persistent-buffer.js';
import { welfordTranslatedFusion } from './persistent/translate-welford.js';
import { bindExtents, type ExtentBindings, type InputInfo, type RuntimeInfo } from './runtime-info.js';
import type { ScheduledFusion, Scheduler } from './scheduler.js';

/** A memoized value, or the error computing it threw (thrown again on every read). */
type Memo<T> = { ok: true; value: T } | { ok: false; error: unknown };

function memoize<T>(compute: () => T): Memo<T> {
  try {
    return { ok: true, value: compute() };
  } catch (error) {
    return { ok: false, error };
  }
}

function read<T>(m: Memo<T>): T {
  if (m.ok) return m.value;
  throw m.error;
}

/** The name of one analysis entry (HeuristicDataCache.analysis): a frozen, module-level key. */
export interface AnalysisKey<T> {
  readonly name: string;
  /** Phantom: the entry's value type. */
  readonly value?: T;
}

/** How often each kind of entry was computed (not read): tests count heuristics and schedules with it. */
export interface HeuristicDataCacheCounts {
  heuristics: number;
  schedules: number;
  /** Extent bindings made (at most 1: every check and heuristic of this fusion and info reads the one). */
  bindings: number;
}

export class HeuristicDataCache {
  private bindingsMemo: Memo<ExtentBindings> | null = null;
  private bufferSizeMemo: Memo<PersistentBufferSize> | null = null;
  private translated: HeuristicDataCache | null = null;
  private readonly analysisMemo = new Map<AnalysisKey<unknown>, Map<string | number, Memo<unknown>>>();
  private readonly heuristicsMemo = new Map<Scheduler, Memo<HeuristicParams>>();
  private readonly scheduleMemo = new Map<Scheduler, Memo<ScheduledFusion>>();
  readonly counts: HeuristicDataCacheCounts = { heuristics: 0, schedules: 0, bindings: 0 };

  constructor(
    readonly fusion: Fusion,
    readonly runtimeInfo: RuntimeInfo,
  ) {}

  /** The cache for `fusion` and `runtimeInfo`: `cache` when it describes exactly them, else a new one. */
  static for(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): HeuristicDataCache {
    return cache !== undefined && cache.describes(fusion, runtimeInfo) ? cache : new HeuristicDataCache(fusion, runtimeInfo);
  }

  /** Whether this cache's entries hold for `fusion` (the same object) and an equal runtime info. */
  describes(fusion: Fusion, runtimeInfo: RuntimeInfo): boolean {
    return fusion === this.fusion && sameRuntimeInfo(runtimeInfo, this.runtimeInfo);
  }

  /** The fusion inputs' symbolic extents bound to the runtime sizes (throws what bindExtents throws). */
  bindings(): ExtentBindings {
    this.bindingsMemo ??= memoize(() => {
      this.counts.bindings += 1;
      return bindExtents(this.fusion, this.runtimeInfo);
    });
    return read(this.bindingsMemo);
  }

  /** Bytes per row of the persistent buffers (persistent/persistent-buffer.ts). */
  persistentBufferSize(): PersistentBufferSize {
    this.bufferSizeMemo ??= memoize(() => persistentBufferBytes(this.fusion, this.runtimeInfo, () => this.bindings()));
    return read(this.bufferSizeMemo);
  }

  /** The cache of the fusion with Welford translated to sums (this cache when there is no Welford). */
  welfordTranslated(): HeuristicDataCache {
    if (this.translated === null) {
      const fusion = welfordTranslatedFusion(this.fusion);
      this.translated = fusion === this.fusion ? this : new HeuristicDataCache(fusion, this.runtimeInfo);
    }
    return this.translated;
  }

  /**
   * A scheduler's own analysis of this fusion (`key` names it; e.g. the GEMM segment's pattern
   * and runtime layouts), computed once by `compute` and read by both its canSchedule and its
   * computeHeuristics; not counted as heuristics (acceptance reads it for every candidate).
   * `variant` tells apart entries of one key that depend on a scheduler option (e.g. the row
   * analysis of a maximum vector width).
   */
  analysis<T>(key: AnalysisKey<T>, compute: () => T, variant: string | number = ''): T {
    let byVariant = this.analysisMemo.get(key);
    if (byVariant === undefined) {
      byVariant = new Map();
      this.analysisMemo.set(key, byVariant);
    }
    let m = byVariant.get(variant) as Memo<T> | undefined;
    if (m === undefined) {
      m = memoize(compute);
      byVariant.set(variant, m);
    }
    return read(m);
  }

  /**
   * `scheduler`'s heuristics for this fusion, computed once by `compute` (the scheduler's own
   * computation, its overrides applied); a computation that threw throws the same error again.
   */
  heuristics<P extends HeuristicParams>(scheduler: Scheduler, compute: () => P): P {
    let m = this.heuristicsMemo.get(scheduler);
    if (m === undefined) {
      this.counts.heuristics += 1;
      m = memoize(compute);
      this.heuristicsMemo.set(scheduler, m);
    }
    return read(m) as P;
  }

  /**
   * The fusion scheduled by `scheduler` with its heuristics (on a clone this cache owns), once.
   * The scheduled fusion is the kernel's: whoever generates code from it takes it over.
   */
  scheduled(scheduler: Scheduler): ScheduledFusion {
    let m = this.scheduleMemo.get(scheduler);
    if (m === undefined) {
      const params = scheduler.computeHeuristics(this.fusion, this.runtimeInfo, this);
      this.counts.schedules += 1;
      m = memoize(() => scheduler.schedule(this.fusion.clone().fusion, params));
      this.scheduleMemo.set(scheduler, m);
    }
    return read(m);
  }
}

function sameInput(a: InputInfo, b: InputInfo): boolean {
  if (a.kind === 'scalar' || b.kind === 'scalar') return a.kind === 'scalar' && b.kind === 'scalar' && a.dtype === b.dtype && a.value === b.value;
  const same = (x: readonly number[], y: readonly number[]): boolean => x.length === y.length && x.every((v, i) => v === y[i]);
  return a.dtype === b.dtype && a.alignment === b.alignment && same(a.sizes, b.sizes) && same(a.strides, b.strides);
}

/** Two runtime infos describe the same launch: equal inputs, the same device properties. */
export function sameRuntimeInfo(a: RuntimeInfo, b: RuntimeInfo): boolean {
  if (a === b) return true;
  if (a.inputs.length !== b.inputs.length || JSON.stringify(a.device) !== JSON.stringify(b.device)) return false;
  return a.inputs.every((x, i) => sameInput(x, b.inputs[i] as InputInfo));
}
