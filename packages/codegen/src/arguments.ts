// Kernel argument layout: where each parameter sits in the byte buffer the driver receives
// (CUDA ABI: each parameter at the next offset aligned to its own alignment). A Tensor struct
// is its data pointer (8 bytes), then `rank` sizes, then `rank` strides, each int32 or int64
// per the index type, padded to 8. Codegen states the layout; the runtime packs values into it
// (runtime kernel-arguments.ts, the one packer).

import { dataTypeSize } from '@tsfuser/fusion-ir';
import type { IndexType } from '@tsfuser/scheduler';
import type { KernelParam } from './kernel-ir/nodes.js';

export interface ArgumentSlot {
  param: KernelParam;
  offset: number;
  size: number;
  align: number;
}

export interface ArgumentLayout {
  indexType: IndexType;
  slots: ArgumentSlot[];
  size: number;
}

function alignUp(x: number, a: number): number {
  return Math.ceil(x / a) * a;
}

export function argumentLayout(params: readonly KernelParam[], indexType: IndexType): ArgumentLayout {
  const width = indexType === 'Int32' ? 4 : 8;
  let end = 0;
  const slots = params.map((param): ArgumentSlot => {
    const size = param.kind === 'tensor' ? alignUp(8 + 2 * param.rank * width, 8) : dataTypeSize(param.dtype);
    const align = param.kind === 'tensor' ? 8 : size;
    const offset = alignUp(end, align);
    end = offset + size;
    return { param, offset, size, align };
  });
  return { indexType, slots, size: end };
}
