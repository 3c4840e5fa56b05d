// Stride-ordered outputs (nvFuser's fd.ops.stride_order / add_output(…, stride_order=…)): an
// output whose allocation domain permutes its logical dims is allocated by the runtime with
// permuted strides, and the kernel must write through them. The pointwise scheduler does
// (lowering indexes every global tensor by its allocation strides, its vectorization analysis
// reads the permuted strides); the others do not yet, and refuse such a fusion here with one
// reason, so that segmentation leaves the stride-ordered output to a pointwise segment.
// Invariant: a scheduler that calls stridedOutputRefusal never receives a fusion with an output
// whose allocation order differs from its logical order.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import type { CanScheduleResult } from './scheduler.js';

/** The logical dims of `tv` in allocation order when they differ from logical order, else null. */
export function permutedAllocationOrder(tv: TensorView): number[] | null {
  const allocation = tv.domain.allocation?.filter((id) => !id.isReduction());
  if (allocation === undefined) return null;
  const logical = tv.domain.logicalNoReductions();
  const order = allocation.map((id) => logical.indexOf(id));
  return order.every((d, k) => d === k) ? null : order;
}

/** Strides of a dense tensor of `sizes` laid out in `order` (outermost first); expanded dims (size counted as 1) keep their dense stride here. */
export function stridesInOrder(sizes: readonly number[], order: readonly number[] | null): number[] {
  const dims = order ?? sizes.map((_, d) => d);
  const strides = new Array<number>(sizes.length).fill(0);
  let stride = 1;
  for (let k = dims.length - 1; k >= 0; k -= 1) {
    const d = dims[k] as number;
    strides[d] = stride;
    stride *= Math.max(1, sizes[d] as number);
  }
  return strides;
}

/** Refusal of a scheduler that does not write stride-ordered outputs yet (`type` names it). */
export function stridedOutputRefusal(fusion: Fusion, type: string): CanScheduleResult {
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') continue;
    const order = permutedAllocationOrder(o);
    if (order !== null) {
      return { ok: false, reason: `output T${o.name} has a stride order (allocation order of dims [${order.join(', ')}]); the ${type} scheduler does not write stride-ordered outputs yet (only pointwise does)` };
    }
  }
  return { ok: true };
}
