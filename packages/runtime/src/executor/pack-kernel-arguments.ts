// A generated kernel's arguments as bytes: codegen states the kernel's parameter layout
// (`CompiledKernel.args`); this maps it onto the device layer's parameters and packs the values
// with the one packer (kernel-arguments.ts). A kernel with fast divisions (codegen
// lower/fast-division.ts) has one more parameter after the fusion's, `NvfDivisorMagic<N>`: to the
// device layer 2N Int32 scalars (the struct's ABI: 4-byte words from a 4-byte aligned offset),
// whose values the packer computes from the tensor arguments' sizes (codegen divisorWords) —
// callers always pass one value per fusion parameter (inputs then outputs).
// Invariant: the packed layout is the one codegen stated (same offsets and size) — checked, so
// the two can never drift apart silently; the divisor words are those of the sizes packed
// beside them.

import { divisorWords, type ArgumentLayout } from '@tsfuser/codegen';
import { packArguments, parameterLayout, type KernelArgument, type KernelParameter, type ParameterLayout } from '@tsfuser/device';

/** The device-layer parameters of a generated kernel's layout (the divisor words last). */
export function kernelParameterLayout(layout: ArgumentLayout): ParameterLayout {
  const parameters = layout.slots.map(({ param }): KernelParameter =>
    param.kind === 'tensor' ? { kind: 'tensor', rank: param.rank, indexType: layout.indexType } : { kind: 'scalar', dtype: param.dtype },
  );
  const words = 2 * (layout.divisors?.sources.length ?? 0);
  for (let k = 0; k < words; k += 1) parameters.push({ kind: 'scalar', dtype: 'Int32' });
  const packed = parameterLayout(parameters);
  const expected = [...layout.slots.map((s) => ({ offset: s.offset, size: s.size, name: s.param.name }))];
  for (let k = 0; k < words; k += 1) expected.push({ offset: (layout.divisors?.offset ?? 0) + 4 * k, size: 4, name: layout.divisors?.name ?? '?' });
  const drift = expected.findIndex((slot, i) => packed.slots[i]?.offset !== slot.offset || packed.slots[i]?.size !== slot.size);
  if (drift >= 0 || packed.size !== layout.size) {
    const at = drift >= 0 ? `parameter ${drift} (${expected[drift]?.name ?? '?'})` : 'the total size';
    throw new Error(`kernel argument layout: codegen and the device packer disagree at ${at}`);
  }
  return packed;
}

/** Whether the kernel's parameters go beyond the fusion's (fast divisions: computed divisor words). */
export function hasDivisorArguments(layout: ArgumentLayout): boolean {
  return layout.divisors !== null;
}

/**
 * `values` (one per fusion parameter) followed by the divisor words their tensors' sizes give,
 * written into `into` (reused by a launcher: no list per launch); returns `into`.
 */
export function withDivisorArguments(layout: ArgumentLayout, values: readonly KernelArgument[], into: KernelArgument[]): KernelArgument[] {
  if (values.length !== layout.slots.length) throw new RangeError(`packArguments: ${values.length} values for ${layout.slots.length} parameters`);
  for (let k = 0; k < values.length; k += 1) into[k] = values[k] as KernelArgument;
  const words = divisorWords(layout, (slot, dim) => {
    const v = values[slot];
    if (typeof v !== 'object' || !('sizes' in v)) throw new TypeError(`argument ${slot}: a fast divisor reads its size ${dim}, but it is not a tensor`);
    return v.sizes[dim] as number;
  });
  // Words as Int32 bit patterns (a magic number may be 2^31 or more).
  for (let k = 0; k < words.length; k += 1) into[values.length + k] = (words[k] as number) | 0;
  into.length = values.length + words.length;
  return into;
}

/** Packs one value per fusion parameter (inputs then outputs) into the kernel's argument buffer. */
export function packKernelArguments(layout: ArgumentLayout, values: readonly KernelArgument[]): Uint8Array {
  return packArguments(kernelParameterLayout(layout), hasDivisorArguments(layout) ? withDivisorArguments(layout, values, []) : values);
}
