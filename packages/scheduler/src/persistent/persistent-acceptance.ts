// What a persistent scheduler's canSchedule adds to its structural checks (can-schedule.ts),
// without scheduling (nvFuser's canScheduleRunTime: checks, never a schedule):
//   * the bounds its launch must fit — the row or column in registers, the grid, the overrides —
//     from the scheduler's launch-bounds.ts (memoized analyses of the HeuristicDataCache; the
//     heuristics check the same bounds first, so a fusion accepted here gets a launch, and the
//     heuristics themselves are computed once, for the segment, on the executor path);
//   * a slice / pad / cat producer that would be a persistent buffer (read in loops of two
//     phases of the row): the schedule's inlineResizeProducers refusal, predicted on the
//     unscheduled (Welford-translated) fusion with every reduction a block reduction, as the
//     schedule's cast projection does.
// Invariant: reads the fusion only; a refusal here is one the heuristics or the schedule would
// raise for the same fusion, runtime info and overrides.

import type { Fusion } from '@tsfuser/fusion-ir';
import type { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult } from '../scheduler.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { feedsResize } from '../pointwise/resize/prepare.js';
import { loopPhases, reductionPhases } from './persistence.js';

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

/**
 * The acceptance result of a persistent scheduler: its launch bounds' refusal (each scheduler's
 * launch-bounds.ts, the scheduler's overrides applied; computed from memoized analyses, never
 * the heuristics), then the resize-buffer one.
 */
export function persistentAcceptance(analysis: HeuristicDataCache, launchRefusal: string | null): CanScheduleResult {
  if (launchRefusal !== null) return { ok: false, reason: launchRefusal };
  const resize = resizePersistentBufferRefusal(analysis);
  return resize === null ? { ok: true } : { ok: false, reason: resize };
}
