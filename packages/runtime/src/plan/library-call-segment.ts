// A library-call segment of a compile plan: one GEMM (matmul / linear with its fused epilogue)
// handed to cuBLASLt instead of a generated kernel, as nvFuser hands its matmul segments to ATen.
// Planning (no device) takes the segment's MatmulParams from the matmul scheduler through the
// analysis cache acceptance filled (computed once per segment); running turns them and the
// segment's buffers into one GemmDescriptor (with C and beta 1 where the epilogue adds a C) and enqueues it through the device's GemmLibrary on
// the stream the generated kernels around it use (calls on one stream run in order, so the GEMM
// reads what the kernel before it wrote, and the kernel after it reads the GEMM's result).
// scaled_mm adds its two per-tensor scales (device pointers of the one-element inputs);
// grouped_mm with offsets runs one call per group (grouped-gemm-calls.ts).
// Invariant: the descriptor's shapes, leading dims, transpositions and batch strides are the
// params' (computed by the scheduler from the layouts the plan was made for); running checks
// the buffers still have those layouts, and any mismatch, a missing cuBLASLt, or an operand the
// params say must be copied without a copy step given, is one clear error naming the segment.

import type { Fusion } from '@tsfuser/fusion-ir';
import { RuntimeUnavailableError, type GemmCall, type GemmDescriptor, type GemmEpilogue, type GemmMatrix, type GemmVector } from '@tsfuser/device';
import { HeuristicDataCache, SchedulingError, type MatmulOperandLayout, type MatmulParams, type RuntimeInfo, type Scheduler } from '@tsfuser/scheduler';
import { ExecutorInputError } from '../errors.js';
import { runGroupedCalls } from './grouped-gemm-calls.js';
import { planned } from './planned.js';

/** A GEMM segment: no kernel, one cuBLASLt call (see the header). */
export interface LibraryCallSegment {
  kind: 'libraryCall';
  groupId: number;
  fusion: Fusion;
  info: RuntimeInfo;
  params: MatmulParams;
}

/** What running a GEMM needs of a GemmLibrary (the device's, or a test double recording calls). */
export interface GemmRunner {
  matmul(desc: GemmDescriptor, options?: { stream?: bigint }): GemmCall;
  /** `count` Int32 values at `pointer`, after the stream's earlier work (grouped_mm's offsets: a host sync). */
  readInt32?(pointer: bigint, count: number): Int32Array;
  /** Zeroes `bytes` at `pointer`, ordered after the stream's earlier work (grouped_mm output no group covers). */
  zero?(pointer: bigint, bytes: number): void;
}

/** A device buffer of a segment input or output: its data pointer and logical layout. */
export interface GemmBuffer {
  dataPtr: bigint;
  sizes: readonly number[];
  strides: readonly number[];
}

export interface LibraryCallContext {
  /** The device's GemmLibrary; null when cuBLASLt is unavailable, with the reason. */
  gemm: GemmRunner | { unavailable: string };
  stream?: bigint;
  /**
   * A dense row-major copy of `source` broadcast to `sizes` (a generated copy kernel on the same
   * stream): needed only for operands whose params say `copy`.
   */
  copyDense?: (source: GemmBuffer, sizes: readonly number[], input: number) => GemmBuffer;
}

/** The GEMM segment of `fusion` for `info`; a SchedulingError with the reason when it is not one. */
export function planLibraryCallSegment(fusion: Fusion, info: RuntimeInfo, groupId: number, scheduler: Scheduler, analysis?: HeuristicDataCache): LibraryCallSegment {
  const params = planned(() => scheduler.computeHeuristics(fusion, info, HeuristicDataCache.for(fusion, info, analysis)), `segment ${groupId} was planned as a GEMM (cuBLASLt) call but is none`);
  if (params.schedulerType !== 'matmul') throw new SchedulingError(`segment ${groupId} was planned as a GEMM (cuBLASLt) call but its scheduler gave ${params.schedulerType} parameters`);
  return { kind: 'libraryCall', groupId, fusion, info, params };
}

function sameLayout(a: GemmBuffer, sizes: readonly number[], strides: readonly number[]): boolean {
  return a.sizes.length === sizes.length && a.sizes.every((s, i) => s === sizes[i] && (s === 1 || a.strides[i] === strides[i]));
}

function layoutText(sizes: readonly number[], strides: readonly number[]): string {
  return `sizes [${sizes.join(', ')}] strides [${strides.join(', ')}]`;
}

function denseStrides(sizes: readonly number[]): number[] {
  const strides = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) strides[i] = (strides[i + 1] as number) * Math.max(sizes[i + 1] as number, 1);
  return strides;
}

/** The operand's matrix as cuBLASLt reads it (a dense copy first where the params say so). */
function operandMatrix(segment: LibraryCallSegment, name: 'a' | 'b', layout: MatmulOperandLayout, inputs: readonly GemmBuffer[], context: LibraryCallContext): GemmMatrix {
  const where = `segment ${segment.groupId} (GEMM)`;
  let buffer = inputs[layout.input];
  const info = segment.info.inputs[layout.input];
  if (buffer === undefined || info === undefined || info.kind !== 'tensor') throw new Error(`${where}: operand ${name.toUpperCase()} (input ${layout.input}) has no buffer`);
  if (!sameLayout(buffer, info.sizes, info.strides)) {
    throw new ExecutorInputError(
      `${where}: operand ${name.toUpperCase()} (input ${layout.input}) has ${layoutText(buffer.sizes, buffer.strides)} but the plan was made for ${layoutText(info.sizes, info.strides)}`,
    );
  }
  if (layout.copy !== null) {
    if (context.copyDense === undefined) {
      throw new ExecutorInputError(`${where}: operand ${name.toUpperCase()} needs a dense copy (${layout.copy.reason}) and this executor has no copy step`);
    }
    buffer = context.copyDense(buffer, layout.copy.sizes, layout.input);
    if (!sameLayout(buffer, layout.copy.sizes, denseStrides(layout.copy.sizes))) throw new Error(`${where}: the copy of operand ${name.toUpperCase()} is not dense`);
  }
  const p = segment.params;
  return {
    pointer: buffer.dataPtr,
    dtype: name === 'a' ? p.inputDtype : p.bDtype,
    rows: layout.rows,
    cols: layout.cols,
    ld: layout.ld,
    transposed: layout.transposed,
    batchCount: p.batch > 1 && layout.batchStride !== 0 ? p.batch : 1,
    batchStride: layout.batchStride,
  };
}

/** D (and the aux) must be the dense outputs the params describe. */
function outputBuffer(segment: LibraryCallSegment, output: number, what: string, outputs: readonly GemmBuffer[]): GemmBuffer {
  const buffer = outputs[output];
  if (buffer === undefined) throw new Error(`segment ${segment.groupId} (GEMM): ${what} (output ${output}) has no buffer`);
  if (!sameLayout(buffer, buffer.sizes, denseStrides(buffer.sizes))) {
    throw new ExecutorInputError(`segment ${segment.groupId} (GEMM): ${what} must be dense row-major for cuBLASLt, got ${layoutText(buffer.sizes, buffer.strides)}`);
  }
  return buffer;
}

function epilogueOf(segment: LibraryCallSegment, inputs: readonly GemmBuffer[], outputs: readonly GemmBuffer[]): GemmEpilogue {
  const e = segment.params.epilogue;
  const bias = (): GemmVector => {
    if (e.bias === null) throw new Error(`segment ${segment.groupId} (GEMM): epilogue ${e.kind} without a bias`);
    const b = inputs[e.bias.input];
    if (b === undefined) throw new Error(`segment ${segment.groupId} (GEMM): the bias (input ${e.bias.input}) has no buffer`);
    return { pointer: b.dataPtr, dtype: e.bias.dtype, batchStride: 0 };
  };
  const aux = (): { pointer: bigint; ld: number; batchStride: number; dtype: MatmulParams['d']['dtype'] } => {
    if (e.aux === null) throw new Error(`segment ${segment.groupId} (GEMM): epilogue ${e.kind} without an aux output`);
    const x = outputBuffer(segment, e.aux.output, 'the pre-activation', outputs);
    return { pointer: x.dataPtr, ld: e.aux.ld, batchStride: e.aux.batchStride, dtype: e.aux.dtype };
  };
  switch (e.kind) {
    case 'DEFAULT':
    case 'RELU':
    case 'GELU':
      return { kind: e.kind };
    case 'BIAS':
    case 'RELU_BIAS':
    case 'GELU_BIAS':
      return { kind: e.kind, bias: bias() };
    case 'GELU_AUX':
      return { kind: e.kind, aux: aux() };
    case 'GELU_AUX_BIAS':
      return { kind: e.kind, bias: bias(), aux: aux() };
    case 'DGELU':
    case 'DGELU_BGRAD': {
      const x = e.auxInput;
      const source = x === null ? undefined : inputs[x.input];
      if (x === null || source === undefined) throw new Error(`segment ${segment.groupId} (GEMM): epilogue ${e.kind} without its pre-activation input`);
      const auxIn = { pointer: source.dataPtr, ld: x.ld, batchStride: x.batchStride, dtype: x.dtype };
      if (e.kind === 'DGELU') return { kind: e.kind, aux: auxIn };
      if (e.biasGradient === null) throw new Error(`segment ${segment.groupId} (GEMM): DGELU_BGRAD without a bias-gradient output`);
      const g = outputs[e.biasGradient.output];
      if (g === undefined) throw new Error(`segment ${segment.groupId} (GEMM): the bias gradient (output ${e.biasGradient.output}) has no buffer`);
      return { kind: e.kind, aux: auxIn, biasGradient: { pointer: g.dataPtr, dtype: e.biasGradient.dtype, batchStride: 0 } };
    }
    case 'BGRADA':
    case 'BGRADB': {
      // a weight gradient's bias gradient: op(A) (BGRADA) or op(B) (BGRADB) summed over k
      if (e.biasGradient === null) throw new Error(`segment ${segment.groupId} (GEMM): ${e.kind} without a bias-gradient output`);
      const g = outputs[e.biasGradient.output];
      if (g === undefined) throw new Error(`segment ${segment.groupId} (GEMM): the bias gradient (output ${e.biasGradient.output}) has no buffer`);
      return { kind: e.kind, biasGradient: { pointer: g.dataPtr, dtype: e.biasGradient.dtype, batchStride: 0 } };
    }
    default: {
      const unreachable: never = e.kind;
      throw new Error(`unknown GEMM epilogue ${String(unreachable)}`);
    }
  }
}

/** scaled_mm: the device pointer of a one-element fp32 scale input. */
function scalePointer(segment: LibraryCallSegment, input: number, inputs: readonly GemmBuffer[]): bigint {
  const b = inputs[input];
  if (b === undefined) throw new Error(`segment ${segment.groupId} (GEMM): the scale (input ${input}) has no buffer`);
  if (b.sizes.reduce((x, y) => x * y, 1) !== 1) throw new ExecutorInputError(`segment ${segment.groupId} (scaled_mm): the scale at input ${input} has sizes [${b.sizes.join(', ')}], not one element`);
  return b.dataPtr;
}

/** The cuBLASLt call of `segment` on these buffers (segment inputs and outputs in their order). */
export function gemmDescriptorOf(segment: LibraryCallSegment, inputs: readonly GemmBuffer[], outputs: readonly GemmBuffer[], context: LibraryCallContext): GemmDescriptor {
  const p = segment.params;
  const d = outputBuffer(segment, p.d.output, 'the result', outputs);
  const desc: GemmDescriptor = {
    a: operandMatrix(segment, 'a', p.a, inputs, context),
    b: operandMatrix(segment, 'b', p.b, inputs, context),
    d: { pointer: d.dataPtr, dtype: p.d.dtype, rows: p.m, cols: p.n, ld: p.d.ld, batchCount: p.batch, batchStride: p.d.batchStride },
    epilogue: epilogueOf(segment, inputs, outputs),
  };
  if (p.scales !== null) desc.scales = { a: scalePointer(segment, p.scales.a, inputs), b: scalePointer(segment, p.scales.b, inputs) };
  const c = p.epilogue.c;
  if (c === null) return desc;
  const buffer = inputs[c.input];
  const info = segment.info.inputs[c.input];
  if (buffer === undefined || info === undefined || info.kind !== 'tensor') throw new Error(`segment ${segment.groupId} (GEMM): C (input ${c.input}) has no buffer`);
  if (!sameLayout(buffer, info.sizes, info.strides)) {
    throw new ExecutorInputError(`segment ${segment.groupId} (GEMM): C (input ${c.input}) has ${layoutText(buffer.sizes, buffer.strides)} but the plan was made for ${layoutText(info.sizes, info.strides)}`);
  }
  return { ...desc, c: { pointer: buffer.dataPtr, dtype: c.dtype, rows: p.m, cols: p.n, ld: c.ld, batchCount: p.batch, batchStride: c.batchStride }, beta: 1 };
}

/** Enqueues the segment's GEMM (see the header); without cuBLASLt, says why GEMM segments cannot run. */
export function runLibraryCall(segment: LibraryCallSegment, inputs: readonly GemmBuffer[], outputs: readonly GemmBuffer[], context: LibraryCallContext): GemmCall {
  if ('unavailable' in context.gemm) {
    throw new RuntimeUnavailableError(
      `segment ${segment.groupId} is a GEMM (${segment.params.op}, m ${segment.params.m} n ${segment.params.n} k ${segment.params.k}) that runs through cuBLASLt, which is unavailable: ${context.gemm.unavailable} (set TSFUSER_CUBLASLT_PATH, or run on the CPU reference backend)`,
    );
  }
  const desc = gemmDescriptorOf(segment, inputs, outputs, context);
  const options = context.stream === undefined ? {} : { stream: context.stream };
  const grouped = segment.params.grouped;
  if (grouped === null) return context.gemm.matmul(desc, options);
  return runGroupedCalls(segment, grouped, desc, inputs, context.gemm, options);
}
