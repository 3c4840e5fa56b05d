// StepArguments: the argument buffer of one kernel step of a cached launch plan. The plan is
// used only for arguments of its exact layout (cache-keys.ts), so every tensor's sizes and
// strides — most of the bytes — are the same on every call: the step's first call packs every
// slot, later calls rewrite only the data pointers (the pool may hand out other blocks, the
// caller other tensors) and the scalar inputs' values (a floating-point scalar is not in the
// layout key). Invariant: after packStepArguments for a call, the bytes equal what packArguments would
// pack for that call's values (the pointer of a view is its base's plus the fixed byte offset
// recorded by the full pack). A kernel with fast divisions has its divisors' magic numbers after
// the fusion's parameters: packed by the full pack from the sizes (fixed by the layout, like them).

import { packArgumentAt, packArgumentsInto, packPointerAt, type KernelArgument, type ParameterLayout, type Tensor } from '@tsfuser/device';
import type { ArgumentLayout } from '@tsfuser/codegen';
import type { PlanRef, PlanView } from './launch-planner.js';
import { withDivisorArguments } from './pack-kernel-arguments.js';
import type { ExecutorArgument } from './runtime-info.js';

/** How a call rewrites one parameter: its data pointer at a byte offset, or its whole scalar slot. */
const POINTER = 0;
const SCALAR = 1;

export class StepArguments {
  /** The buffer handed to every launch of the step (the driver copies it at the launch). */
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  /** Per parameter: POINTER or SCALAR. */
  private readonly rewrite: Uint8Array;
  /** Per parameter: the byte offset of its data pointer in `bytes` (POINTER parameters). */
  private readonly pointerOffsets: Int32Array;
  /** Per parameter: for a view, its data pointer minus its base's (set by the full pack). */
  readonly viewOffsets: bigint[];
  private packed = false;

  /** The values of a full pack with the divisor words appended (kernels with fast divisions). */
  private readonly allValues: KernelArgument[] = [];

  /**
   * `kernelArgs`: the kernel's codegen layout, when it has fast divisions (its divisor words,
   * the parameters after the fusion's, are computed from the tensors' sizes at each full pack;
   * the plan's layouts are fixed, so the pointer-only rewrites never need them again).
   */
  constructor(
    readonly parameters: ParameterLayout,
    private readonly kernelArgs: ArgumentLayout | null = null,
  ) {
    this.bytes = new Uint8Array(parameters.size);
    this.view = new DataView(this.bytes.buffer);
    const n = parameters.parameters.length;
    this.rewrite = new Uint8Array(n);
    this.pointerOffsets = new Int32Array(n);
    this.viewOffsets = new Array<bigint>(n).fill(0n);
    for (let k = 0; k < n; k += 1) {
      const p = parameters.parameters[k];
      this.rewrite[k] = p?.kind === 'tensor' ? POINTER : SCALAR;
      this.pointerOffsets[k] = parameters.slots[k]?.offset ?? 0;
    }
  }

  /** Whether a full pack ran (later calls may rewrite pointers and scalars only). */
  get isPacked(): boolean {
    return this.packed;
  }

  /** Whether parameter `k` is rewritten whole (a scalar or raw pointer) rather than as a tensor's data pointer. */
  isScalar(k: number): boolean {
    return this.rewrite[k] === SCALAR;
  }

  /** Packs every slot from one value per parameter (a step's first call, a profiled call). */
  packAll(values: readonly KernelArgument[]): void {
    const all = this.kernelArgs === null || this.kernelArgs.divisors === null ? values : withDivisorArguments(this.kernelArgs, values, this.allValues);
    packArgumentsInto(this.parameters, all, this.view);
    this.packed = true;
  }

  /** Rewrites tensor parameter `k`'s data pointer. */
  pointer(k: number, pointer: bigint): void {
    packPointerAt(this.pointerOffsets[k] as number, pointer, this.view);
  }

  /** Rewrites scalar parameter `k`'s value. */
  scalar(k: number, value: KernelArgument): void {
    packArgumentAt(this.parameters, k, value, this.view);
  }
}

/** A plan ref's tensor for this call: a buffer or a tensor argument. */
export function planTensor(r: Extract<PlanRef, { kind: 'arg' | 'buffer' }>, buffers: readonly Tensor[], args: readonly ExecutorArgument[]): Tensor {
  return r.kind === 'buffer' ? (buffers[r.index] as Tensor) : (args[r.index] as Tensor);
}

/** A view of this call's buffers or arguments, as a (non-owning) tensor. */
export function planView(v: PlanView, buffers: readonly Tensor[], args: readonly ExecutorArgument[]): Tensor {
  return planTensor(v.base, buffers, args).asStrided(v.layout.sizes, v.layout.strides, v.offset);
}

/** What packStepArguments reads of a launch plan's kernel step. */
export interface PackedStep {
  refs: readonly PlanRef[];
  arguments: StepArguments;
  /** Every scalar parameter reads a fusion input (a call can rewrite it without the full pack). */
  rewritable: boolean;
  /** Filled by a full pack (the values a profile describes); the caller clears it after the launch. */
  values: KernelArgument[];
}

/**
 * Packs a kernel step's arguments for this call. A step packed before (and not `full`: a
 * profiled call, whose description reads `values`) rewrites only its tensors' data pointers and
 * its scalars — no tensor object for a view, no list filled; otherwise every slot is packed
 * from `values`, and each view's offset from its base recorded.
 */
export function packStepArguments(step: PackedStep, views: readonly PlanView[], buffers: readonly Tensor[], args: readonly ExecutorArgument[], full: boolean): void {
  const a = step.arguments;
  const refs = step.refs;
  if (!full && a.isPacked && step.rewritable) {
    for (let k = 0; k < refs.length; k += 1) {
      const r = refs[k] as PlanRef;
      if (a.isScalar(k)) a.scalar(k, args[r.index] as ExecutorArgument);
      else if (r.kind === 'buffer') a.pointer(k, (buffers[r.index] as Tensor).dataPtr);
      else if (r.kind === 'arg') a.pointer(k, (args[r.index] as Tensor).dataPtr);
      else {
        const base = planTensor((views[r.index] as PlanView).base, buffers, args).dataPtr;
        const offset = a.viewOffsets[k] as bigint;
        a.pointer(k, offset === 0n ? base : base + offset);
      }
    }
    return;
  }
  // A Tensor is a TensorArgument (dataPtr, sizes, strides): no wrapper object per launch.
  const values = step.values;
  for (let k = 0; k < refs.length; k += 1) {
    const r = refs[k] as PlanRef;
    if (r.kind === 'view') {
      const v = views[r.index] as PlanView;
      const view = planView(v, buffers, args);
      a.viewOffsets[k] = view.dataPtr - planTensor(v.base, buffers, args).dataPtr;
      values[k] = view;
    } else values[k] = r.kind === 'buffer' ? (buffers[r.index] as Tensor) : (args[r.index] as ExecutorArgument);
  }
  a.packAll(values);
}
