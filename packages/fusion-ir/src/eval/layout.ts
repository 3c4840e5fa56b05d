// Memory layouts of host tensors: a copy of a tensor laid out densely in a given dim order (what
// an output with an allocation domain looks like), and an element-wise copy into an existing
// tensor's storage through its strides (how an aliased output is written into its input).
// Invariant: values are copied bit for bit (same dtype); only positions in storage change.

import { FusionIrError } from '../ir/errors.js';
import { isComplexType } from '../ir/data-type.js';
import { HostTensor, allocateStorage, writeStorage } from './host-tensor.js';

/** Dense strides with `order` (logical dims, outermost first) as the memory order. */
export function stridesInOrder(sizes: readonly number[], order: readonly number[]): number[] {
  const strides = new Array<number>(sizes.length).fill(0);
  let acc = 1;
  for (let k = order.length - 1; k >= 0; k -= 1) {
    const d = order[k] as number;
    strides[d] = acc;
    acc *= Math.max(1, sizes[d] as number);
  }
  return strides;
}

/** A copy of `t` whose memory follows `order` (logical dims, outermost first). */
export function withDimOrder(t: HostTensor, order: readonly number[]): HostTensor {
  const numel = t.numel;
  const out = new HostTensor(t.dtype, [...t.sizes], stridesInOrder(t.sizes, order), allocateStorage(t.dtype, numel));
  copyInto(out, t);
  return out;
}

/** Copies every element of `src` into `dst`'s storage at `dst`'s strides (same dtype and sizes). */
export function copyInto(dst: HostTensor, src: HostTensor): void {
  if (dst.dtype !== src.dtype) throw new FusionIrError(`copyInto: dtype ${src.dtype} into ${dst.dtype}`);
  if (dst.sizes.length !== src.sizes.length || dst.sizes.some((s, d) => s !== src.sizes[d])) {
    throw new FusionIrError(`copyInto: sizes [${src.sizes.join(', ')}] into [${dst.sizes.join(', ')}]`);
  }
  if (isComplexType(src.dtype)) {
    for (let i = 0; i < src.numel; i += 1) writeStorage(dst.dtype, dst.data, dst.storageIndex(i), src.get(i));
    return;
  }
  // Same dtype, hence the same storage class: elements move as they are.
  const to = dst.data as unknown as Record<number, unknown>;
  const from = src.data as unknown as Record<number, unknown>;
  for (let i = 0; i < src.numel; i += 1) to[dst.storageIndex(i)] = from[src.storageIndex(i)];
}
