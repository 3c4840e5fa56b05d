// Output (and segment intermediate) allocation: the sizes of a fusion output follow from the
// input sizes by evaluating its logical extents; memory is dense in the tensor's allocation
// order (stride order), broadcast dims have size 1, and expanded broadcast dims get stride 0 as
// in PyTorch's expand. Invariant: every element the kernel writes lies inside the allocation
// (an expanded dim of extent 0 keeps the base the kernel writes: device allocationSpan).

import { contiguousStrides, type TensorView } from '@tsfuser/fusion-ir';
import { evaluateExtent, type ExtentBindings } from '@tsfuser/scheduler';

export interface TensorLayout {
  sizes: number[];
  strides: number[];
}

export function outputLayout(tv: TensorView, bindings: ExtentBindings): TensorLayout {
  const logical = tv.domain.logicalNoReductions();
  const sizes = logical.map((id) => evaluateExtent(id.logicalExtent(), bindings));
  const expanded = logical.map((id) => id.isBroadcast() && id.expandedExtent !== null);
  // Dense strides over the non-expanded dims, in allocation order when one is set.
  const allocation = tv.domain.allocation?.filter((id) => !id.isReduction()) ?? null;
  const order = allocation === null ? logical.map((_, d) => d) : allocation.map((id) => logical.indexOf(id));
  const strides = new Array<number>(sizes.length).fill(0);
  if (order.some((d) => d < 0)) {
    const dense = contiguousStrides(sizes.map((s, d) => (expanded[d] === true ? 1 : s)));
    return { sizes, strides: dense.map((s, d) => (expanded[d] === true ? 0 : s)) };
  }
  let stride = 1;
  for (let k = order.length - 1; k >= 0; k -= 1) {
    const d = order[k] as number;
    if (expanded[d] === true) continue;
    strides[d] = stride;
    stride *= Math.max(1, sizes[d] as number);
  }
  return { sizes, strides };
}
