// Whether a fusion (or segment) is metadata only — every output a view of an input (nvFuser's
// expr_eval scheduler: all outputs are pointer arithmetic) — and if not, why. Accepted:
// broadcast, squeeze, expand, permute, plain set, slice, and reshape where the input's actual
// strides allow a view; every extent and slice bound must follow from the input sizes (a plan
// is reused for every call with the same layouts, so it cannot depend on scalar values).

import type { Fusion } from '@tsfuser/fusion-ir';
import { bindExtents, type RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { metadataOpRefusal, viewLayouts } from './views.js';

export function canScheduleExprEvalViews(fusion: Fusion, runtimeInfo: RuntimeInfo): CanScheduleResult {
  if (fusion.outputs.length === 0) return { ok: false, reason: 'the fusion has no outputs' };
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') return { ok: false, reason: `output ${o.name} is not a tensor` };
  }
  for (const e of fusion.exprs()) {
    const r = metadataOpRefusal(e);
    if (r !== null) return { ok: false, reason: r };
  }
  try {
    const bindings = bindExtents(fusion, runtimeInfo);
    const layouts = viewLayouts(
      fusion,
      runtimeInfo.inputs.map((i) => (i.kind === 'tensor' ? i : null)),
      bindings,
    );
    for (const o of fusion.outputs) {
      if (o.kind === 'tensorView' && !layouts.has(o)) return { ok: false, reason: `output T${o.name} is not derived from a fusion input` };
    }
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  return { ok: true };
}
