// Kernel argument layout: where each parameter sits in the byte buffer the driver receives
// (CUDA ABI: each parameter at the next offset aligned to its own alignment). A Tensor struct
// is its data pointer (8 bytes), then `rank` sizes, then `rank` strides, each int32 or int64
// per the index type, padded to 8. A kernel with fast divisions ends with one more parameter, its
// divisors' magic numbers (DivisorArgument). Codegen states the layout; the runtime packs values
// into it (runtime pack-kernel-arguments.ts over the device layer's one packer).

import { dataTypeSize } from '@tsfuser/fusion-ir';
import type { IndexType } from '@tsfuser/scheduler';
import { DIVISOR_PARAM_NAME, type KernelDivisor, type KernelParam } from './kernel-ir/nodes.js';

export interface ArgumentSlot {
  param: KernelParam;
  offset: number;
  size: number;
  align: number;
}

/**
 * The fast-division parameter (lower/fast-division.ts), after every slot: `NvfDivisorMagic<N>`,
 * N pairs of 32-bit words (magic, shift), one pair per divisor — divisor k divides by tensor
 * parameter `sources[k].slot`'s logical size `dim` (the packer computes the pair from it:
 * divisor-magic.ts divisorWords).
 */
export interface DivisorArgument {
  name: string;
  offset: number;
  size: number;
  align: number;
  sources: { slot: number; dim: number; name: string }[];
}

export interface ArgumentLayout {
  indexType: IndexType;
  slots: ArgumentSlot[];
  /** null: the kernel divides by no extent through magic numbers (the only parameters are `slots`). */
  divisors: DivisorArgument | null;
  size: number;
}

function alignUp(x: number, a: number): number {
  return Math.ceil(x / a) * a;
}

/** `divisors`: the kernel's fast divisors (Kernel.divisors), each by its tensor parameter's position in `params`. */
export function argumentLayout(params: readonly KernelParam[], indexType: IndexType, divisors: readonly KernelDivisor[] = []): ArgumentLayout {
  const width = indexType === 'Int32' ? 4 : 8;
  let end = 0;
  const slots = params.map((param): ArgumentSlot => {
    const size = param.kind === 'tensor' ? alignUp(8 + 2 * param.rank * width, 8) : dataTypeSize(param.dtype);
    const align = param.kind === 'tensor' ? 8 : size;
    const offset = alignUp(end, align);
    end = offset + size;
    return { param, offset, size, align };
  });
  if (divisors.length === 0) return { indexType, slots, divisors: null, size: end };
  // A struct of 32-bit words: 4-byte aligned, 8 bytes a divisor.
  const offset = alignUp(end, 4);
  const size = 8 * divisors.length;
  const sources = divisors.map((d) => ({ slot: d.param, dim: d.dim, name: d.name }));
  return { indexType, slots, divisors: { name: DIVISOR_PARAM_NAME, offset, size, align: 4, sources }, size: offset + size };
}
