// The executor's AttentionDevice: the device side of attention segments. Kernels are compiled
// with NVRTC (--std=c++17, the device's arch) through the cubin cache, loaded once per kernel
// name and tiling, their dynamic shared-memory limit raised above 48 KiB, and launched with
// arguments packed in the kernel's parameter order on the executor's stream; workspaces come
// from the device's pool; small words (philox seed / offset) are copied synchronously, which
// orders them with the stream's work (the stream is a blocking one).
// Invariant: one loaded function per (name, tiling) for the executor's lifetime; a launch packs
// exactly `kernel.parameters`, naming a missing value.

import { kernelArch, orderArguments, type AttentionKernel, type AttentionProblem } from '@tsfuser/codegen';
import { packArguments, parameterLayout, Tensor, type CubinCache, type DeviceContext, type KernelFunction } from '@tsfuser/device';
import { runAttention, type AttentionBuffer, type AttentionDevice, type AttentionSegment } from '../plan/attention-segment.js';
import type { PlanRef } from './launch-planner.js';

export class ExecutorAttentionDevice implements AttentionDevice {
  private readonly functions = new Map<string, KernelFunction>();
  /** NVRTC (or cubin cache) milliseconds spent on attention kernels. */
  compileMs = 0;

  constructor(
    private readonly device: DeviceContext,
    private readonly cubinCache?: CubinCache,
  ) {}

  private load(kernel: AttentionKernel): KernelFunction {
    const t = kernel.tiling;
    const key = `${kernel.name}:${t.warps}x${t.blockM}x${t.blockN}${t.qInRegisters ? 'q' : ''}${t.mma === 'wgmma' ? 'w' : ''}`;
    const known = this.functions.get(key);
    if (known !== undefined) return known;
    // A kernel with its own arch (the opt-in wgmma forward: sm_90a) only on the device that runs it; kernelArch names why not.
    const arch = kernelArch(kernel, this.device.properties.computeCapability, this.device.arch);
    const compiled = this.device.compile(kernel.source, { options: ['--std=c++17'], name: `${kernel.name}.cu`, arch, ...(this.cubinCache === undefined ? {} : { cache: this.cubinCache }) });
    this.compileMs += compiled.compileMs;
    const fn = this.device.loadModule(compiled.cubin).getFunction(kernel.name);
    if (kernel.sharedBytes > 48 * 1024) fn.setMaxDynamicSharedMemory(kernel.sharedBytes);
    this.functions.set(key, fn);
    return fn;
  }

  launch(kernel: AttentionKernel, problem: AttentionProblem, values: Readonly<Record<string, number | bigint>>): void {
    const fn = this.load(kernel);
    const args = packArguments(parameterLayout(kernel.parameters), orderArguments(kernel, values));
    fn.launch({ grid: kernel.grid(problem), block: kernel.block, sharedBytes: kernel.sharedBytes, stream: this.device.stream }, args);
  }

  allocate(bytes: number): bigint {
    return this.device.malloc(bytes);
  }

  release(pointer: bigint): void {
    this.device.free(pointer);
  }

  writeWords(pointer: bigint, words: readonly bigint[]): void {
    this.device.copyHostToDevice(pointer, BigUint64Array.from(words));
  }

  readWords(pointer: bigint, count: number): bigint[] {
    this.device.synchronize();
    const out = new BigUint64Array(count);
    this.device.copyDeviceToHost(out, pointer);
    return [...out];
  }
}

/** An attention segment's call in a launch plan: the segment and the refs of its inputs, then its outputs. */
export interface AttentionPlanStep {
  segment: AttentionSegment;
  refs: PlanRef[];
  inputCount: number;
}

/** Runs one planned attention call, `tensorAt` giving each ref's tensor (a scalar input has none). */
export function runAttentionPlanStep(step: AttentionPlanStep, tensorAt: (r: PlanRef) => unknown, device: AttentionDevice): void {
  const buffer = (r: PlanRef): AttentionBuffer => {
    const t = tensorAt(r);
    return t instanceof Tensor ? { dataPtr: t.dataPtr, sizes: t.sizes, strides: t.strides } : { dataPtr: 0n, sizes: [], strides: [] };
  };
  // A scalar argument's value (a runtime scale); tensors and other values give none.
  const scalar = (r: PlanRef): number | undefined => {
    const t = tensorAt(r);
    return typeof t === 'number' ? t : typeof t === 'bigint' ? Number(t) : undefined;
  };
  const ins = step.refs.slice(0, step.inputCount);
  runAttention(step.segment, ins.map(buffer), step.refs.slice(step.inputCount).map(buffer), device, ins.map(scalar));
}
