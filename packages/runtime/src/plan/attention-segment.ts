// An attention segment of a compile plan: one sdpfa_fwd or sdpfa_bwd run as codegen's generated
// flash-attention kernels. Planning (no device) takes the segment's AttentionParams from the attention scheduler through
// the analysis cache acceptance filled (computed once per segment) and
// generates its kernels from their variant — the forward kernel, or the backward's preprocess
// (D = rowsum(dO ∘ O), zeroes the f32 dQ accumulator), main and dQ-convert kernels — with the
// tuned tiling. Running packs each kernel's arguments from the params and the segment's buffers
// and launches them through an AttentionDevice (the executor's: NVRTC through the cubin cache,
// pool memory, the plan's stream) in order on one stream: the forward's logsumexp (a scratch
// buffer when the segment does not output it) and philox_seed = [seed, offset] /
// philox_offset = 0 as nvFuser's sdpfa_fwd returns them; the backward's f32 dQ workspace from
// the pool, and the forward's seed read back only when there is dropout.
// Invariant: every size, stride, flag and scale comes from the params (computed by the
// scheduler for the layouts the plan was made for; a runtime scale is the call's value of the
// scalar input the params name); running checks the buffers still have those
// layouts and that outputs are rows the kernels can write (last dim contiguous, 16-byte aligned),
// and any mismatch is one clear error naming the segment and the tensor.

import type { Fusion } from '@tsfuser/fusion-ir';
import {
  checkAttentionInputs, dropoutConstants, generateAttentionBackward, generateAttentionBackwardConvert, generateAttentionBackwardPreprocess, generateAttentionForward, forwardTilingForDevice,
  type AttentionKernel, type AttentionProblem, type AttentionVariant,
} from '@tsfuser/codegen';
import { HeuristicDataCache, SchedulingError, type AttentionOperand, type AttentionParams, type AttentionRngValue, type RuntimeInfo, type Scheduler } from '@tsfuser/scheduler';
import { ExecutorInputError } from '../errors.js';
import { planned } from './planned.js';

/** An attention segment: its params and generated kernels in launch order (see the header). */
export interface AttentionSegment {
  kind: 'attention';
  groupId: number;
  fusion: Fusion;
  info: RuntimeInfo;
  params: AttentionParams;
  problem: AttentionProblem;
  /** Forward: [forward]; backward: [preprocess, main, convert]. */
  kernels: readonly AttentionKernel[];
}

/** A segment input or output buffer: its data pointer and logical layout (in elements). */
export interface AttentionBuffer {
  dataPtr: bigint;
  sizes: readonly number[];
  strides: readonly number[];
}

/** What running an attention segment needs of a device (the executor's, or a test double). */
export interface AttentionDevice {
  /** Enqueues `kernel` (compiled and loaded once per kernel) with its arguments by parameter name. */
  launch(kernel: AttentionKernel, problem: AttentionProblem, values: Readonly<Record<string, number | bigint>>): void;
  /** `bytes` of device memory from the pool, valid until `release` (stream-ordered reuse). */
  allocate(bytes: number): bigint;
  release(pointer: bigint): void;
  /** Writes 64-bit words at `pointer` (ordered before later launches on the stream). */
  writeWords(pointer: bigint, words: readonly bigint[]): void;
  /** Reads `count` 64-bit words at `pointer` after the work enqueued so far finished. */
  readWords(pointer: bigint, count: number): bigint[];
}

const LOG2E = Math.LOG2E;

/**
 * The call's scale: the constant, or the value of the segment's scalar input (`scalars[i]`: the
 * value of input i where it is a scalar), read at each call since a plan serves every value.
 */
function scaleValue(segment: AttentionSegment, scalars: readonly (number | undefined)[]): number {
  const s = segment.params.scale;
  if ('constant' in s) return s.constant;
  const v = scalars[s.input];
  if (v === undefined || !Number.isFinite(v)) throw new ExecutorInputError(`${where(segment)}: the scale (input ${s.input}) is ${String(v)}, not a finite number`);
  return v;
}

function rngBig(v: AttentionRngValue): bigint {
  return 'constant' in v ? v.constant : v.value;
}

/** The attention segment of `fusion` for `info`; a SchedulingError with the reason when it is not one. */
export function planAttentionSegment(fusion: Fusion, info: RuntimeInfo, groupId: number, scheduler: Scheduler, analysis?: HeuristicDataCache): AttentionSegment {
  const p = planned(() => scheduler.computeHeuristics(fusion, info, HeuristicDataCache.for(fusion, info, analysis)), `segment ${groupId} was planned as an attention segment but is none`);
  if (p.schedulerType !== 'attention') throw new SchedulingError(`segment ${groupId} was planned as an attention segment but its scheduler gave ${p.schedulerType} parameters`);
  const variant: AttentionVariant = p.variant;
  const t = p.tensors;
  const tensor = (o: AttentionOperand): { sizes: readonly number[]; strides: readonly number[] } => ({ sizes: o.sizes, strides: o.strides });
  // The scheduler's checks are the kernels' (codegen's): a disagreement is a bug, said here.
  const problem = checkAttentionInputs(variant, {
    query: tensor(t.query),
    key: tensor(t.key),
    value: tensor(t.value),
    ...(p.op === 'sdpfa_fwd' && p.tensors.bias !== null ? { bias: tensor(p.tensors.bias) } : {}),
    dropoutProbability: p.dropoutP,
  });
  const kernels =
    // The forward's tiling by device: the wgmma kernel where it was measured faster (sm_90a, codegen's forwardTilingForDevice).
    p.op === 'sdpfa_fwd' ? [generateAttentionForward(variant, forwardTilingForDevice(variant, info.device.computeCapability))] : [generateAttentionBackwardPreprocess(variant), generateAttentionBackward(variant), generateAttentionBackwardConvert(variant)];
  return { kind: 'attention', groupId, fusion, info, params: p, problem, kernels };
}

function layoutText(sizes: readonly number[], strides: readonly number[]): string {
  return `sizes [${sizes.join(', ')}] strides [${strides.join(', ')}]`;
}

function sameLayout(b: AttentionBuffer, sizes: readonly number[], strides: readonly number[]): boolean {
  return b.sizes.length === sizes.length && b.sizes.every((s, i) => s === sizes[i] && (s === 1 || b.strides[i] === strides[i]));
}

function where(segment: AttentionSegment): string {
  return `segment ${segment.groupId} (attention ${segment.params.op})`;
}

/** An input operand's buffer, with the layout the plan was made for. */
function operand(segment: AttentionSegment, name: string, o: AttentionOperand, inputs: readonly AttentionBuffer[]): AttentionBuffer {
  const b = inputs[o.position];
  if (b === undefined) throw new Error(`${where(segment)}: ${name} (input ${o.position}) has no buffer`);
  const planned = segment.info.inputs[o.position];
  if (planned === undefined || planned.kind !== 'tensor') throw new Error(`${where(segment)}: ${name} (input ${o.position}) was planned without a layout`);
  if (!sameLayout(b, planned.sizes, planned.strides)) {
    throw new ExecutorInputError(`${where(segment)}: ${name} has ${layoutText(b.sizes, b.strides)} but the plan was made for ${layoutText(planned.sizes, planned.strides)}`);
  }
  if (b.dataPtr % 16n !== 0n) throw new ExecutorInputError(`${where(segment)}: ${name}'s data pointer 0x${b.dataPtr.toString(16)} is not 16-byte aligned`);
  return b;
}

/** An output the kernels write rows of: last dim contiguous, rows 16-byte aligned. */
function rowOutput(segment: AttentionSegment, name: string, position: number, outputs: readonly AttentionBuffer[]): AttentionBuffer {
  const b = outputs[position];
  if (b === undefined) throw new Error(`${where(segment)}: ${name} (output ${position}) has no buffer`);
  const rowsOk = b.sizes.length === 4 && (b.strides[3] === 1 || (b.sizes[3] ?? 0) <= 1) && [0, 1, 2].every((d) => (b.sizes[d] ?? 0) <= 1 || (b.strides[d] ?? 0) % 8 === 0);
  if (!rowsOk || b.dataPtr % 16n !== 0n) {
    throw new ExecutorInputError(`${where(segment)}: ${name} (${layoutText(b.sizes, b.strides)}) must have a contiguous last dim and 16-byte aligned rows for the attention kernels`);
  }
  return b;
}

function strideArgs(prefix: string, strides: readonly number[]): Record<string, number> {
  return { [`${prefix}StrideN`]: strides[0] ?? 0, [`${prefix}StrideH`]: strides[1] ?? 0, [`${prefix}StrideL`]: strides[2] ?? 0 };
}

function sizeArgs(segment: AttentionSegment): Record<string, number> {
  const p = segment.params;
  return { heads: p.heads, kvHeads: p.kvHeads, queryLength: p.queryLength, keyLength: p.keyLength };
}

function kernelAt(segment: AttentionSegment, i: number): AttentionKernel {
  const k = segment.kernels[i];
  if (k === undefined) throw new Error(`${where(segment)}: kernel ${i} was not generated`);
  return k;
}

function runForward(segment: AttentionSegment, p: Extract<AttentionParams, { op: 'sdpfa_fwd' }>, inputs: readonly AttentionBuffer[], outputs: readonly AttentionBuffer[], device: AttentionDevice, scale: number): void {
  const t = p.tensors;
  const q = operand(segment, 'query', t.query, inputs);
  const k = operand(segment, 'key', t.key, inputs);
  const v = operand(segment, 'value', t.value, inputs);
  const bias = t.bias === null ? null : operand(segment, p.variant.bias === 'bool' ? 'mask' : 'bias', t.bias, inputs);
  const scratch: bigint[] = [];
  const rows = p.batch * p.heads * p.queryLength;
  const take = (bytes: number): bigint => {
    const ptr = device.allocate(Math.max(bytes, 16));
    scratch.push(ptr);
    return ptr;
  };
  try {
    const o = t.output === null ? null : rowOutput(segment, 'output', t.output, outputs);
    const oPtr = o?.dataPtr ?? take(rows * p.headDim * 2);
    // Without an output tensor the scratch output is dense [N, H, L, E].
    const oStrides = o?.strides ?? [p.heads * p.queryLength * p.headDim, p.queryLength * p.headDim, p.headDim, 1];
    const lse = t.logsumexp === null ? take(rows * 4) : (outputs[t.logsumexp]?.dataPtr ?? take(rows * 4));
    const seed = rngBig(p.seed);
    const offset = rngBig(p.offset);
    const { keepProb, keepScale } = dropoutConstants(p.dropoutP);
    device.launch(kernelAt(segment, 0), segment.problem, {
      q: q.dataPtr,
      k: k.dataPtr,
      v: v.dataPtr,
      o: oPtr,
      lse,
      bias: bias?.dataPtr ?? 0n,
      ...sizeArgs(segment),
      ...strideArgs('q', t.query.strides),
      ...strideArgs('k', t.key.strides),
      ...strideArgs('v', t.value.strides),
      ...strideArgs('o', oStrides),
      biasStrideN: t.bias?.strides[0] ?? 0,
      biasStrideH: t.bias?.strides[1] ?? 0,
      biasStrideL: t.bias?.strides[2] ?? 0,
      biasStrideS: t.bias?.strides[3] ?? 0,
      scaleLog2: Math.fround(scale * LOG2E),
      seed,
      offset,
      keepProb,
      keepScale,
    });
    if (t.philoxSeed !== null) device.writeWords(outputAt(segment, 'philox_seed', t.philoxSeed, outputs).dataPtr, [seed, offset]);
    if (t.philoxOffset !== null) device.writeWords(outputAt(segment, 'philox_offset', t.philoxOffset, outputs).dataPtr, [0n]);
  } finally {
    for (const ptr of scratch) device.release(ptr);
  }
}

function outputAt(segment: AttentionSegment, name: string, position: number, outputs: readonly AttentionBuffer[]): AttentionBuffer {
  const b = outputs[position];
  if (b === undefined) throw new Error(`${where(segment)}: ${name} (output ${position}) has no buffer`);
  return b;
}

function runBackward(segment: AttentionSegment, p: Extract<AttentionParams, { op: 'sdpfa_bwd' }>, inputs: readonly AttentionBuffer[], outputs: readonly AttentionBuffer[], device: AttentionDevice, scale: number): void {
  const t = p.tensors;
  const q = operand(segment, 'query', t.query, inputs);
  const k = operand(segment, 'key', t.key, inputs);
  const v = operand(segment, 'value', t.value, inputs);
  const go = operand(segment, 'grad_output', t.gradOutput, inputs);
  const o = operand(segment, 'output', t.output, inputs);
  const lse = inputs[t.logsumexp];
  if (lse === undefined) throw new Error(`${where(segment)}: logsumexp (input ${t.logsumexp}) has no buffer`);
  let seed = 0n;
  let offset = 0n;
  if (p.variant.dropout) {
    const seedBuffer = inputs[t.philoxSeed];
    if (seedBuffer === undefined) throw new Error(`${where(segment)}: philox_seed (input ${t.philoxSeed}) has no buffer`);
    [seed = 0n, offset = 0n] = device.readWords(seedBuffer.dataPtr, 2);
  }
  const rows = p.batch * p.heads * p.queryLength;
  const scratch: bigint[] = [];
  const take = (bytes: number): bigint => {
    const ptr = device.allocate(Math.max(bytes, 16));
    scratch.push(ptr);
    return ptr;
  };
  try {
    const kvDense = [p.kvHeads * p.keyLength * p.headDim, p.keyLength * p.headDim, p.headDim, 1];
    const qDense = [p.heads * p.queryLength * p.headDim, p.queryLength * p.headDim, p.headDim, 1];
    const grad = (name: string, position: number | null, dense: readonly number[], elements: number): { ptr: bigint; strides: readonly number[] } => {
      if (position === null) return { ptr: take(elements * 2), strides: dense };
      const b = rowOutput(segment, name, position, outputs);
      return { ptr: b.dataPtr, strides: b.strides };
    };
    const dq = grad('grad_query', t.gradQuery, qDense, rows * p.headDim);
    const dk = grad('grad_key', t.gradKey, kvDense, p.batch * p.kvHeads * p.keyLength * p.headDim);
    const dv = grad('grad_value', t.gradValue, kvDense, p.batch * p.kvHeads * p.keyLength * p.headDim);
    // D per query row and the f32 dQ accumulator [N, H, L, E] (the preprocess kernel zeroes it).
    const delta = take(rows * 4);
    const accumulator = take(rows * p.headDim * 4);
    const { keepProb, keepScale } = dropoutConstants(p.dropoutP);
    device.launch(kernelAt(segment, 0), segment.problem, {
      o: o.dataPtr,
      gradOutput: go.dataPtr,
      delta,
      gradQueryAccumulator: accumulator,
      heads: p.heads,
      queryLength: p.queryLength,
      rows,
      ...strideArgs('o', t.output.strides),
      ...strideArgs('gradOutput', t.gradOutput.strides),
    });
    device.launch(kernelAt(segment, 1), segment.problem, {
      q: q.dataPtr,
      k: k.dataPtr,
      v: v.dataPtr,
      gradOutput: go.dataPtr,
      lse: lse.dataPtr,
      delta,
      gradQueryAccumulator: accumulator,
      gradKey: dk.ptr,
      gradValue: dv.ptr,
      bias: 0n,
      ...sizeArgs(segment),
      ...strideArgs('q', t.query.strides),
      ...strideArgs('k', t.key.strides),
      ...strideArgs('v', t.value.strides),
      ...strideArgs('gradOutput', t.gradOutput.strides),
      ...strideArgs('gradKey', dk.strides),
      ...strideArgs('gradValue', dv.strides),
      biasStrideN: 0,
      biasStrideH: 0,
      biasStrideL: 0,
      biasStrideS: 0,
      scaleLog2: Math.fround(scale * LOG2E),
      scale: Math.fround(scale),
      seed,
      offset,
      keepProb,
      keepScale,
    });
    device.launch(kernelAt(segment, 2), segment.problem, {
      gradQueryAccumulator: accumulator,
      gradQuery: dq.ptr,
      heads: p.heads,
      queryLength: p.queryLength,
      rows,
      ...strideArgs('gradQuery', dq.strides),
      scale: Math.fround(scale),
    });
  } finally {
    for (const ptr of scratch) device.release(ptr);
  }
}

/**
 * Enqueues the segment's kernels (see the header) on the device's stream; `scalars[i]` is the
 * value of segment input i where it is a scalar (a runtime scale).
 */
export function runAttention(segment: AttentionSegment, inputs: readonly AttentionBuffer[], outputs: readonly AttentionBuffer[], device: AttentionDevice, scalars: readonly (number | undefined)[] = []): void {
  const p = segment.params;
  const scale = scaleValue(segment, scalars);
  if (p.op === 'sdpfa_fwd') runForward(segment, p, inputs, outputs, device, scale);
  else runBackward(segment, p, inputs, outputs, device, scale);
}

/** The segment's kernels and tiling, for the `scheduler_params` dump after its params. */
export function attentionKernelsToString(segment: AttentionSegment): string {
  const lines = segment.kernels.map((k) => {
    const t = k.tiling;
    const grid = k.grid(segment.problem);
    return `  ${k.name}: ${t.warps} warps, tile ${t.blockM}x${t.blockN}${t.rowTiles > 1 ? ` (${t.rowTiles} row tiles a warp)` : ''}${t.qInRegisters ? ', Q in registers' : ''}, grid [${grid.join(', ')}], block [${k.block.join(', ')}], ${k.sharedBytes} B shared`;
  });
  return `Attention kernels (${where(segment)}):\n${lines.join('\n')}\n`;
}
