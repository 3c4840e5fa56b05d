// Whether the outer persistent scheduler takes a fusion, and if not, why. First nvFuser's rules
// (segmentation's canScheduleNormalization('outer_persistent', …): outer reductions of one
// pattern, at least one persistent buffer, the buffers fit the on-chip budget); then what
// tsfuser's codegen does not do yet, each refused with its reason:
//   * Welford that cannot be translated to two sums (persistent/translate-welford.ts);
//   * a reduction that keeps no dim, empty columns or no columns;
//   * expanded broadcasts in inputs or outputs, scalar outputs, outputs aliasing inputs;
//   * columns that do not fit one block's registers (≤ 1024 threads × 256 bytes: no
//     shared-memory or cross-grid persistence yet), and anything the schedule itself refuses
//     (checked on a clone).

import type { Fusion } from '@tsfuser/fusion-ir';
import { bindExtents, type RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { canScheduleNormalization } from '../segmentation/normalization.js';
import { persistentIoRefusal, persistentWelfordRefusal, refuse, tvName } from '../persistent/persistent-refusals.js';
import { columnShape, computeOuterPersistentHeuristics, firstOuterReduction } from './heuristics.js';
import { scheduleOuterPersistent } from './schedule.js';

export function canScheduleOuterPersistent(fusion: Fusion, runtimeInfo: RuntimeInfo): CanScheduleResult {
  const nv = canScheduleNormalization('outer_persistent', fusion, runtimeInfo);
  if (!nv.ok) return nv;
  const welford = persistentWelfordRefusal(fusion);
  if (welford !== null) return refuse(welford);
  const io = persistentIoRefusal(fusion, 'outer persistent');
  if (io !== null) return refuse(io);
  const r = firstOuterReduction(fusion);
  if (r.domain.logical.every((id) => id.isReduction() || id.isBroadcast())) {
    return refuse(`reduction ${tvName(r)} keeps no dim (nothing to spread over threadIdx.x)`);
  }
  const { reductionNumel, iterationNumel } = columnShape(r, bindExtents(fusion, runtimeInfo));
  if (reductionNumel === 0) return refuse(`columns of reduction ${tvName(r)} are empty (size-0 reduced dim)`);
  if (iterationNumel === 0) return refuse(`reduction ${tvName(r)} has no columns (size-0 kept dim)`);
  try {
    const params = computeOuterPersistentHeuristics(fusion, runtimeInfo);
    scheduleOuterPersistent(fusion.clone().fusion, params);
  } catch (err) {
    return refuse((err as Error).message);
  }
  return { ok: true };
}
