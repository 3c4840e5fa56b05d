// Refusals the persistent schedulers' canSchedule checks share (inner persistent here, outer
// persistent, inner-outer persistent): a Welford op that cannot be translated to two-pass sums,
// scalar outputs, outputs that alias inputs, and expanded broadcasts in outputs (they would need
// stride-0 stores) or inputs. Each returns the reason in words, or null when the fusion passes.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import type { CanScheduleResult } from '../scheduler.js';
import { welfordTranslationRefusal } from './translate-welford.js';

export const refuse = (reason: string): CanScheduleResult => ({ ok: false, reason });

export function tvName(tv: TensorView): string {
  return `T${tv.name}`;
}

/** Why the fusion has a Welford op a persistent kernel cannot run (not translatable to sums), or null. */
export function persistentWelfordRefusal(fusion: Fusion): string | null {
  const welford = welfordTranslationRefusal(fusion);
  return welford === null ? null : `${welford}: only Welford ops that translate to two-pass sums run in persistent kernels`;
}

/** Why the fusion's inputs or outputs are not supported by the `scheduler` (its name in words), or null. */
export function persistentIoRefusal(fusion: Fusion, scheduler: string): string | null {
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') return `scalar outputs are not supported by the ${scheduler} scheduler`;
    if (fusion.inputs.includes(o)) return `output ${tvName(o)} is also a fusion input (an alias)`;
    if (o.domain.logicalNoReductions().some((id) => id.isBroadcast() && id.expandedExtent !== null)) {
      return `output ${tvName(o)} has an expanded broadcast dim (would need a stride-0 output)`;
    }
  }
  for (const i of fusion.inputs) {
    if (i.kind === 'tensorView' && i.domain.logicalNoReductions().some((id) => id.isBroadcast() && id.expandedExtent !== null)) {
      return `input ${tvName(i)} has an expanded broadcast dim (not supported by the ${scheduler} scheduler yet)`;
    }
  }
  return null;
}
