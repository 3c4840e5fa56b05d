// What the schedulers see of one call: concrete sizes, strides, dtypes and pointer alignment of
// every fusion input, plus the device's properties. Built once per distinct input layout; the
// executor cache memoizes everything derived from it.

import type { Complex, DataType, Fusion } from '@tsfuser/fusion-ir';
import { runtimeInfoOf, type SchedulerDevice, type RuntimeInfo } from '@tsfuser/scheduler';
import { Tensor, type DeviceProperties } from '@tsfuser/device';
import type { PlannedArgument } from './launch-planner.js';

/** A fusion argument at execute time: a device tensor or a JS scalar. */
/** A fusion input: a tensor, or a scalar (a Complex for ComplexFloat / ComplexDouble scalars). */
export type ExecutorArgument = Tensor | number | bigint | boolean | Complex;

/** The scheduler's view of a device (the subset the heuristics use). */
export function schedulerDevice(p: DeviceProperties): SchedulerDevice {
  return {
    name: p.name,
    smCount: p.smCount,
    maxThreadsPerBlock: p.maxThreadsPerBlock,
    maxThreadsPerSm: p.maxThreadsPerMultiprocessor,
    l2CacheBytes: p.l2CacheBytes,
    warpSize: p.warpSize,
    computeCapability: [p.computeCapability.major, p.computeCapability.minor],
    sharedMemPerSm: p.maxSharedMemoryPerMultiprocessor,
    sharedMemPerBlockOptin: p.maxSharedMemoryPerBlockOptin,
  };
}

/** Largest power of two dividing the address, capped at 256 bytes. */
export function pointerAlignment(pointer: bigint): number {
  // The lowest set bit of the address's low byte (one BigInt operation: this runs per call).
  const low = Number(pointer & 0xffn);
  return low === 0 ? 256 : low & -low;
}

/** The schedulers' view of one call's device arguments (scheduler's runtimeInfoOf, the one builder). */
export function runtimeInfoFor(fusion: Fusion, args: readonly ExecutorArgument[], device: SchedulerDevice): RuntimeInfo {
  return runtimeInfoOf(fusion, plannedArguments(args), device);
}

/** Whether a scalar dtype is integral (its value can be a size: a dynamic reshape's). */
export function isIntegralScalar(dtype: DataType): boolean {
  return dtype === 'Int' || dtype === 'Int32' || dtype === 'Index';
}


/** The launch planner's view of device arguments: layouts and pointer alignments, scalar values. */
export function plannedArguments(args: readonly ExecutorArgument[]): PlannedArgument[] {
  return args.map((a): PlannedArgument => (a instanceof Tensor ? { kind: 'tensor', sizes: a.sizes, strides: a.strides, alignment: pointerAlignment(a.dataPtr) } : plannedScalar(a)));
}

/** A scalar argument as the planner sees it: a number's value (integral inputs may be sizes). */
export function plannedScalar(a: unknown): PlannedArgument {
  return typeof a === 'number' || typeof a === 'bigint' ? { kind: 'scalar', value: Number(a) } : { kind: 'scalar' };
}
