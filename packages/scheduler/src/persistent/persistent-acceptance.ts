// What a persistent scheduler's canSchedule adds to its structural checks (can-schedule.ts),
// without scheduling (nvFuser's canScheduleRunTime: checks, never a schedule):
//   * the launch its heuristics choose — block width, batches in registers, grid size — with the
//     scheduler's own overrides: the heuristics are computed through the HeuristicDataCache, so
//     the parameters accepted are the ones computeHeuristics returns and the kernel is built
//     with (computed once per fusion and runtime info; no fusion is cloned or scheduled);
//   * a slice / pad / cat producer that would be a persistent buffer (read in loops of two
//     phases of the row): the schedule's inlineResizeProducers refusal, predicted on the
//     unscheduled (Welford-translated) fusion with every reduction a block reduction, as the
//     schedule's cast projection does.
// Invariant: reads the fusion only; a refusal here is one the heuristics or the schedule would
// raise for the same fusion, runtime info and overrides.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { HeuristicParams } from '../heuristic-params.js';
import type { CanScheduleResult } from '../scheduler.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { feedsResize } from '../pointwise/resize/prepare.js';
import { loopPhases, reductionPhases } from './persistence.js';

/**
 * The heuristics' refusal (a SchedulingError: no launch fits), or the launch they choose.
 * Other errors are bugs and propagate.
 */
export function persistentLaunch<P extends HeuristicParams>(compute: () => P): { ok: true; params: P } | { ok: false; reason: string } {
  try {
    return { ok: true, params: compute() };
  } catch (err) {
    if (err instanceof SchedulingError) return { ok: false, reason: err.message };
    throw err;
  }
}

/**
 * A tensor, not a fusion input, that feeds a slice, pad or cat and whose consumers sit in loops
 * of two phases of the row (it would be a persistent buffer read at a shifted index), or null.
 */
export function resizePersistentBufferRefusal(analysis: HeuristicDataCache): string | null {
  const fusion: Fusion = analysis.welfordTranslated().fusion;
  if (!hasResizeExprs(fusion)) return null;
  const { persistent } = loopPhases(fusion, reductionPhases(fusion, () => true));
  for (const tv of persistent) {
    if (!tv.isFusionInput() && feedsResize(tv)) {
      return `T${tv.name} feeds a slice, pad or cat and is read in two phases of the row (it would be a persistent buffer read at a shifted index)`;
    }
  }
  return null;
}

/** The acceptance result of a persistent scheduler: its launch refusal, then the resize-buffer one. */
export function persistentAcceptance<P extends HeuristicParams>(
  analysis: HeuristicDataCache,
  compute: () => P,
  launchRefusal: (params: P) => string | null = () => null,
): CanScheduleResult {
  const launch = persistentLaunch(compute);
  if (!launch.ok) return { ok: false, reason: launch.reason };
  const wide = launchRefusal(launch.params);
  if (wide !== null) return { ok: false, reason: wide };
  const resize = resizePersistentBufferRefusal(analysis);
  return resize === null ? { ok: true } : { ok: false, reason: resize };
}
