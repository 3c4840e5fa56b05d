// What a profiled executor-cache call records per entry of its sequence: the description of a
// generated kernel launch, a GEMM library call or an attention call (name, scheduler, library,
// launch shape, bytes, flops), and the pair of CUDA events around the entry on its stream.
// Kept apart from the executor cache so the cache only says where an entry starts and ends.
// Invariant: every description's bytes are the logical sizes of the entry's tensor refs (inputs
// first, then outputs), its flops those of kernel-profile.ts's conventions.

import { dataTypeSize } from '@tsfuser/fusion-ir';
import { Tensor, type DeviceContext, type GemmCall } from '@tsfuser/device';
import type { AttentionSegment } from '../plan/attention-segment.js';
import type { LibraryCallSegment } from '../plan/library-call-segment.js';
import type { FusionExecutor } from './fusion-executor.js';
import { attentionFlops, gemmFlops, type KernelProfile, type PendingKernelTiming } from './kernel-profile.js';
import type { PlanRef } from './launch-planner.js';

/** An entry's description before it is timed (what PendingKernelTiming carries). */
export type EntryDescription = PendingKernelTiming['profile'];

/** Bytes of the refs' tensors (scalars count 0). */
export function refBytes(refs: readonly PlanRef[], tensorAt: (r: PlanRef) => unknown): number {
  return refs.reduce((sum, r) => {
    const t = tensorAt(r);
    return t instanceof Tensor ? sum + t.numel * dataTypeSize(t.dtype) : sum;
  }, 0);
}

interface EntryRefs {
  refs: readonly PlanRef[];
  inputCount: number;
}

function bytesOf(entry: EntryRefs, tensorAt: (r: PlanRef) => unknown): Pick<KernelProfile, 'inputBytes' | 'outputBytes'> {
  return { inputBytes: refBytes(entry.refs.slice(0, entry.inputCount), tensorAt), outputBytes: refBytes(entry.refs.slice(entry.inputCount), tensorAt) };
}

/** A generated kernel's launch. */
export function kernelEntry(executor: FusionExecutor, grid: readonly [number, number, number], groupId: number, sideStream: boolean, entry: EntryRefs, tensorAt: (r: PlanRef) => unknown): Omit<EntryDescription, 'segmentId'> {
  const kernel = executor.kernel;
  return {
    name: kernel.kernelName,
    groupId,
    kind: 'kernel',
    scheduler: kernel.params.schedulerType,
    library: null,
    grid: [...grid],
    block: [...kernel.launch.block],
    dynamicSharedMem: kernel.launch.sharedMemBytes,
    ...bytesOf(entry, tensorAt),
    flops: null,
    sideStream,
  };
}

/** A GEMM segment's cuBLASLt call (2·m·n·k·batch flops); `call` its report, when it ran. */
export function libraryCallEntry(segment: LibraryCallSegment, entry: EntryRefs, tensorAt: (r: PlanRef) => unknown, call?: GemmCall): Omit<EntryDescription, 'segmentId'> {
  const p = segment.params;
  return {
    ...(call?.fallback === undefined ? {} : { fallback: call.fallback }),
    name: `cublasLt_${p.op}_${p.m}x${p.n}x${p.k}${p.batch > 1 ? `_b${p.batch}` : ''}`,
    groupId: segment.groupId,
    kind: 'libraryCall',
    scheduler: p.schedulerType,
    // a no-algorithm fallback ran the GEMM as several cuBLASLt calls (device gemm-fallback.ts)
    library: call?.fallback === undefined ? 'cublasLt' : `cublasLt, fallback: ${call.fallbackCalls ?? 2} calls`,
    grid: [0, 0, 0],
    block: [0, 0, 0],
    dynamicSharedMem: 0,
    ...bytesOf(entry, tensorAt),
    flops: gemmFlops(p.m, p.n, p.k, p.batch),
    sideStream: false,
  };
}

/** An attention segment's call: its kernels, the main one's launch shape, FlashAttention's flops. */
export function attentionEntry(segment: AttentionSegment, entry: EntryRefs, tensorAt: (r: PlanRef) => unknown): Omit<EntryDescription, 'segmentId'> {
  const p = segment.params;
  // Forward: the one kernel; backward: [preprocess, main, convert].
  const main = segment.kernels[segment.kernels.length === 3 ? 1 : 0];
  const grid = main === undefined ? [0, 0, 0] : main.grid(segment.problem);
  return {
    name: segment.kernels.map((k) => k.name).join('+'),
    groupId: segment.groupId,
    kind: 'attention',
    scheduler: p.schedulerType,
    library: null,
    grid: [grid[0], grid[1], grid[2]],
    block: main === undefined ? [0, 0, 0] : [main.block[0], main.block[1], main.block[2]],
    dynamicSharedMem: main?.sharedBytes ?? 0,
    ...bytesOf(entry, tensorAt),
    flops: attentionFlops({ batch: p.batch, heads: p.heads, queryLength: p.queryLength, keyLength: p.keyLength, headDim: p.headDim, causal: p.variant.causal, backward: p.op === 'sdpfa_bwd' }),
    sideStream: false,
  };
}

/**
 * Runs `work` between two events recorded on `stream` (the device's when undefined) and appends
 * its timing to `pending`; with `pending` null just runs it.
 */
export function timed(device: DeviceContext, pending: PendingKernelTiming[] | null, stream: bigint | undefined, describe: () => Omit<EntryDescription, 'segmentId'>, work: () => void): void {
  if (pending === null) {
    work();
    return;
  }
  const start = device.createEvent();
  const end = device.createEvent();
  try {
    start.record(stream);
    work();
    end.record(stream);
  } catch (error) {
    start.dispose();
    end.dispose();
    throw error;
  }
  pending.push({ start, end, profile: { ...describe(), segmentId: pending.length } });
}
