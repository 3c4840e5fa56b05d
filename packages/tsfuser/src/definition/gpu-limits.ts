// What the GPU path cannot run correctly yet, found before it runs: a computed tensor with an
// allocation domain that permutes its logical dims (fd.ops.stride_order, add_output(…,
// stride_order=…)) — the generated kernels write outputs and intermediates in logical order, so
// the runtime's permuted allocation would hold the elements in the wrong places. Inputs with a
// stride order are fine (kernels read them through their strides).
// Invariant: returns a reason exactly when running `fusion` on the GPU would be wrong.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';

function permutedAllocation(tv: TensorView): number[] | null {
  const allocation = tv.domain.allocation?.filter((id) => !id.isReduction());
  if (allocation === undefined) return null;
  const logical = tv.domain.logicalNoReductions();
  const order = allocation.map((id) => logical.indexOf(id));
  return order.every((d, k) => d === k) ? null : order;
}

/** Why the GPU path cannot run `fusion` (null when it can, as far as this check knows). */
export function gpuRefusal(fusion: Fusion): string | null {
  for (const tv of fusion.allTvs()) {
    if (fusion.inputs.includes(tv)) continue;
    const order = permutedAllocation(tv);
    if (order !== null) {
      return `T${tv.name} has a stride order (allocation order of dims [${order.join(', ')}]), which the GPU kernels do not write yet`;
    }
  }
  return null;
}
