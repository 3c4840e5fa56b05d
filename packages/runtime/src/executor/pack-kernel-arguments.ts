// A generated kernel's arguments as bytes: codegen states the kernel's parameter layout
// (`CompiledKernel.args`); this maps it onto the device layer's parameters and packs the values
// with the one packer (kernel-arguments.ts). Invariant: the packed layout is the one codegen
// stated (same offsets and size) — checked, so the two can never drift apart silently.

import type { ArgumentLayout } from '@tsfuser/codegen';
import { packArguments, parameterLayout, type KernelArgument, type KernelParameter, type ParameterLayout } from '@tsfuser/device';

/** The device-layer parameters of a generated kernel's layout. */
export function kernelParameterLayout(layout: ArgumentLayout): ParameterLayout {
  const parameters = layout.slots.map(({ param }): KernelParameter =>
    param.kind === 'tensor' ? { kind: 'tensor', rank: param.rank, indexType: layout.indexType } : { kind: 'scalar', dtype: param.dtype },
  );
  const packed = parameterLayout(parameters);
  const drift = layout.slots.findIndex((slot, i) => packed.slots[i]?.offset !== slot.offset || packed.slots[i]?.size !== slot.size);
  if (drift >= 0 || packed.size !== layout.size) {
    const at = drift >= 0 ? `parameter ${drift} (${layout.slots[drift]?.param.name ?? '?'})` : 'the total size';
    throw new Error(`kernel argument layout: codegen and the device packer disagree at ${at}`);
  }
  return packed;
}

/** Packs one value per kernel parameter (inputs then outputs) into the kernel's argument buffer. */
export function packKernelArguments(layout: ArgumentLayout, values: readonly KernelArgument[]): Uint8Array {
  return packArguments(kernelParameterLayout(layout), values);
}
