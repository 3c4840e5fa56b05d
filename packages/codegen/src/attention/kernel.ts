// The plain-data description of one generated attention kernel, everything a runtime segment
// needs to launch it: its C-linkage name, the CUDA translation unit, the parameter list (names
// and kinds, in order; structurally @tsfuser/device's KernelParameter), the block size, the
// dynamic shared memory and the grid as a function of the problem sizes.
//
// Invariant: `source` defines exactly the kernel `name`, whose parameters are `parameters` in
// this order; the grid covers every output element of the problem it is asked for.

import { CodegenError } from '../errors.js';
import type { AttentionTiling } from './variant.js';

export type AttentionParameter =
  | { name: string; kind: 'pointer' }
  | { name: string; kind: 'scalar'; dtype: 'Int' | 'Int32' | 'Float' };

/** Sizes of one attention call: Q [N, H, L, E], K/V [N, Hkv, S, E]. */
export interface AttentionProblem {
  batch: number;
  heads: number;
  kvHeads: number;
  queryLength: number;
  keyLength: number;
}

export type Dim3 = readonly [number, number, number];

export interface AttentionKernel {
  name: string;
  /** The whole translation unit (helpers included), ready for NVRTC or nvcc. */
  source: string;
  parameters: readonly AttentionParameter[];
  block: Dim3;
  /** Dynamic shared memory; above 48 KiB the function's limit must be raised first. */
  sharedBytes: number;
  tiling: AttentionTiling;
  /** The architecture the source must be compiled for when not the device's own (the wgmma
   * forward: 'sm_90a', on devices of compute capability 9.0 only); see `kernelArch`. */
  arch?: string;
  grid(problem: AttentionProblem): Dim3;
}

/**
 * The NVRTC architecture for `kernel` on a device of `computeCapability` (`deviceArch` being its
 * own, e.g. sm_90): the kernel's `arch` when it has one and the device runs it, else the
 * device's; throws a CodegenError with the reason when the kernel cannot run there (an sm_90a
 * kernel on anything but 9.0: the `a` features do not carry to later architectures).
 */
export function kernelArch(kernel: Pick<AttentionKernel, 'name' | 'arch'>, computeCapability: { major: number; minor: number }, deviceArch: string): string {
  if (kernel.arch === undefined) return deviceArch;
  const match = /^sm_(\d)(\d)a$/.exec(kernel.arch);
  if (match === null) throw new CodegenError(`attention kernel ${kernel.name}: unknown architecture ${kernel.arch}`);
  const major = Number(match[1]);
  const minor = Number(match[2]);
  if (computeCapability.major !== major || computeCapability.minor !== minor) {
    throw new CodegenError(`attention kernel ${kernel.name} needs ${kernel.arch} (wgmma), which only a device of compute capability ${major}.${minor} runs; this one is ${computeCapability.major}.${computeCapability.minor}`);
  }
  return kernel.arch;
}

export function pointer(name: string): AttentionParameter {
  return { name, kind: 'pointer' };
}
export function int32(name: string): AttentionParameter {
  return { name, kind: 'scalar', dtype: 'Int32' };
}
export function int64(name: string): AttentionParameter {
  return { name, kind: 'scalar', dtype: 'Int' };
}
export function float32(name: string): AttentionParameter {
  return { name, kind: 'scalar', dtype: 'Float' };
}

/** `type name` of each parameter, for the kernel's signature. */
export function cudaSignature(parameters: readonly AttentionParameter[], pointerTypes: Readonly<Record<string, string>>): string {
  return parameters
    .map((p) => {
      if (p.kind === 'pointer') {
        const type = pointerTypes[p.name];
        if (type === undefined) throw new Error(`attention: no pointer type for parameter ${p.name}`);
        return `${type} ${p.name}`;
      }
      const type = p.dtype === 'Int' ? 'long long' : p.dtype === 'Int32' ? 'int' : 'float';
      return `${type} ${p.name}`;
    })
    .join(',\n    ');
}

/** Orders named values as the kernel's parameter list wants them; names a missing one. */
export function orderArguments<V>(kernel: Pick<AttentionKernel, 'name' | 'parameters'>, values: Readonly<Record<string, V>>): V[] {
  return kernel.parameters.map((p) => {
    const value = values[p.name];
    if (value === undefined) throw new Error(`attention kernel ${kernel.name}: no value for parameter ${p.name}`);
    return value;
  });
}

export function ceilDiv(a: number, b: number): number {
  return Math.floor((a + b - 1) / b);
}
