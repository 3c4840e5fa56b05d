// Whether a fusion (or segment) is metadata only — every output a view of an input (nvFuser's
// expr_eval scheduler: all outputs are pointer arithmetic) — and if not, why. Accepted:
// broadcast, squeeze, expand, permute, plain set, slice, and reshape where the input's actual
// strides allow a view (and an output's stride order, if it has one, matches the view's
// strides: else a kernel copies it, as torch's .contiguous()); every extent and slice bound must follow from the input sizes (a plan
// is reused for every call with the same layouts, so it cannot depend on scalar values).

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult } from '../scheduler.js';
import { metadataOpRefusal, viewLayouts } from './views.js';

/**
 * Whether a view with `strides` has the layout `tv`'s explicit allocation domain (a stride_order)
 * asks for: strides non-increasing from the outermost allocation dim in, size-1 dims aside.
 */
function followsStrideOrder(tv: TensorView, sizes: readonly number[], strides: readonly number[]): boolean {
  const allocation = tv.domain.allocation?.filter((id) => !id.isReduction());
  if (allocation === undefined) return true;
  const logical = tv.domain.logicalNoReductions();
  const order = allocation.map((id) => logical.indexOf(id)).filter((d) => d >= 0 && (sizes[d] ?? 1) > 1);
  return order.every((d, k) => k === 0 || (strides[order[k - 1] as number] ?? 0) >= (strides[d] ?? 0));
}

export function canScheduleExprEvalViews(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): CanScheduleResult {
  if (fusion.outputs.length === 0) return { ok: false, reason: 'the fusion has no outputs' };
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') return { ok: false, reason: `output ${o.name} is not a tensor` };
  }
  for (const e of fusion.exprs()) {
    const r = metadataOpRefusal(e);
    if (r !== null) return { ok: false, reason: r };
  }
  try {
    const bindings = cache.bindings();
    const layouts = viewLayouts(
      fusion,
      runtimeInfo.inputs.map((i) => (i.kind === 'tensor' ? i : null)),
      bindings,
    );
    for (const o of fusion.outputs) {
      if (o.kind === 'tensorView' && !layouts.has(o)) return { ok: false, reason: `output T${o.name} is not derived from a fusion input` };
      const layout = o.kind === 'tensorView' ? layouts.get(o) : undefined;
      if (o.kind === 'tensorView' && layout !== undefined && !followsStrideOrder(o, layout.sizes, layout.strides)) {
        return { ok: false, reason: `output T${o.name} asks for a memory layout (stride order) that its view's strides do not have: a kernel copies it` };
      }
    }
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  return { ok: true };
}
