// Whether the outer persistent scheduler takes a fusion, and if not, why. First nvFuser's rules
// (segmentation's canScheduleNormalization('outer_persistent', …): outer reductions of one
// pattern, at least one persistent buffer, the buffers fit the on-chip budget); then what
// tsfuser's codegen does not do yet, each refused with its reason:
//   * Welford that cannot be translated to two sums (persistent/translate-welford.ts);
//   * a reduction that keeps no dim, empty columns or no columns;
//   * expanded broadcasts in inputs or outputs, scalar outputs, outputs aliasing inputs;
//   * columns that do not fit one block's registers (≤ 1024 threads × 256 bytes: no
//     shared-memory or cross-grid persistence yet).
// These are checks only: no heuristics, no schedule. The launch the heuristics choose (with the
// scheduler's overrides) and the schedule's resize-buffer refusal are checked after these by
// persistent/persistent-acceptance.ts — still without scheduling.

import type { Fusion } from '@tsfuser/fusion-ir';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { canScheduleNormalization } from '../segmentation/normalization.js';
import { persistentIoRefusal, persistentWelfordRefusal, refuse, tvName } from '../persistent/persistent-refusals.js';
import { columnShape, firstOuterReduction } from './launch-bounds.js';

export function canScheduleOuterPersistent(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): CanScheduleResult {
  const nv = canScheduleNormalization('outer_persistent', fusion, runtimeInfo, cache);
  if (!nv.ok) return nv;
  const welford = persistentWelfordRefusal(fusion);
  if (welford !== null) return refuse(welford);
  const io = persistentIoRefusal(fusion, 'outer persistent');
  if (io !== null) return refuse(io);
  const r = firstOuterReduction(fusion);
  if (r.domain.logical.every((id) => id.isReduction() || id.isBroadcast())) {
    return refuse(`reduction ${tvName(r)} keeps no dim (nothing to spread over threadIdx.x)`);
  }
  const { reductionNumel, iterationNumel } = columnShape(r, cache.bindings());
  if (reductionNumel === 0) return refuse(`columns of reduction ${tvName(r)} are empty (size-0 reduced dim)`);
  if (iterationNumel === 0) return refuse(`reduction ${tvName(r)} has no columns (size-0 kept dim)`);
  return { ok: true };
}
