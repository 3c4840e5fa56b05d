// Whether the inner persistent scheduler takes a fusion, and if not, why. First nvFuser's rules
// (segmentation's canScheduleNormalization('inner_persistent', …): inner reductions of one
// pattern, at least one persistent buffer, the buffers fit the on-chip budget, enough rows);
// then what tsfuser's codegen does not do yet, each refused with its reason:
//   * Welford (var_mean / layer_norm's statistics) is translated to two sums
//     (translate-welford.ts); one that cannot be (a merge of partial states, a used count) is
//     refused;
//   * a reduction that keeps no dim (one row), empty rows or no rows;
//   * expanded broadcasts in inputs or outputs, scalar outputs, outputs aliasing inputs;
//   * rows that do not fit registers (≤ 1024 threads × 256 bytes: no shared-memory
//     persistence yet).
// These are checks only: no heuristics, no schedule. The launch the heuristics choose (with the
// scheduler's overrides) and the schedule's resize-buffer refusal are checked after these by
// persistent/persistent-acceptance.ts — still without scheduling.

import type { Fusion } from '@tsfuser/fusion-ir';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { canScheduleNormalization } from '../segmentation/normalization.js';
import { firstReduction, rowShape } from './row-analysis.js';
import { persistentIoRefusal, persistentWelfordRefusal, refuse, tvName } from '../persistent/persistent-refusals.js';

export function canScheduleInnerPersistent(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): CanScheduleResult {
  const nv = canScheduleNormalization('inner_persistent', fusion, runtimeInfo, cache);
  if (!nv.ok) return nv;
  const welford = persistentWelfordRefusal(fusion);
  if (welford !== null) return refuse(welford);
  const io = persistentIoRefusal(fusion, 'inner persistent');
  if (io !== null) return refuse(io);
  const r = firstReduction(fusion);
  if (r.domain.logical.every((id) => id.isReduction() || id.isBroadcast())) {
    return refuse(`reduction ${tvName(r)} keeps no dim (a single row is left to the reduction scheduler)`);
  }
  const { rowLength, rows } = rowShape(r, cache.bindings());
  if (rowLength === 0) return refuse(`rows of reduction ${tvName(r)} are empty (size-0 reduced dim)`);
  if (rows === 0) return refuse(`reduction ${tvName(r)} has no rows (size-0 kept dim)`);
  return { ok: true };
}
