// Kernel profiles of one executor-cache call (nvFuser's FusionProfiler, as fd.profile() reports
// it): per timed entry — a generated kernel's launch, a library call (cuBLASLt GEMM) or an
// attention segment's call (its 1 or 3 generated flash-attention kernels) — its device time
// from CUDA events recorded around it on its stream, its launch shape, the bytes it reads and
// writes and, where the work is known (GEMM, attention), its floating-point operations; per call
// the sums and the host time.
// nvFuser times kernels with CUPTI activity records; events bracket exactly one entry here, so a
// kernel's time is the same quantity (start to end on the device), measured differently.
// FLOP conventions: a GEMM is 2·m·n·k·batch (a multiply and an add per product term); attention
// follows FlashAttention's benchmark: forward 4·B·H·L·S·E (QKᵀ and PV, 2 flops a term each),
// halved when causal, backward 2.5× the forward (five matmuls against the forward's two).
// Invariant: a profile lists the entries of one call in execution order; metadata-only segments
// (expr_eval, no_op) launch nothing and are not listed.

import type { CudaEvent } from '@tsfuser/device';

/** What a profiled entry ran: a generated kernel, a GEMM library call, an attention call. */
export type ProfiledKind = 'kernel' | 'libraryCall' | 'attention';

/** One timed entry of a call (nvFuser's KernelProfile, camelCase). */
export interface KernelProfile {
  /** The kernel's name (nvfuser_<scheduler>_f<fusion>_c…), `cublasLt_<op>_<m>x<n>x<k>` for a GEMM, the attention kernels joined by '+'. */
  name: string;
  /** Position of the entry in the call's execution order. */
  segmentId: number;
  /** The segmentation group it runs (nvFuser's segment id). */
  groupId: number;
  kind: ProfiledKind;
  /** The scheduler that planned it (a GEMM: 'matmul'; attention: 'attention'). */
  scheduler: string;
  /** The library that ran it ('cublasLt'), null for kernels tsfuser generated. */
  library: string | null;
  /** Device time between events recorded just before and just after it. */
  timeMs: number;
  /** Launch shape of a kernel; a library call's is [0, 0, 0] (cuBLASLt picks it), an attention call's that of its main kernel. */
  grid: [number, number, number];
  block: [number, number, number];
  dynamicSharedMem: number;
  /** Bytes of the entry's tensor arguments that are its inputs / outputs (logical sizes). */
  inputBytes: number;
  outputBytes: number;
  /** (inputBytes + outputBytes) / timeMs, in GB/s (1e9 bytes). */
  effectiveBandwidthGbs: number;
  /** Floating-point operations of the entry where known (GEMM, attention: see the header), else null. */
  flops: number | null;
  /** flops / timeMs in TFLOP/s (1e12), null without flops. */
  tflops: number | null;
  /** Whether it ran on the side stream, beside the main stream's kernels. */
  sideStream: boolean;
  /** A GEMM that ran as a no-algorithm fallback: "fallback: <why>: <what ran>" (device GemmCall.fallback). */
  fallback?: string;
}

/** The entries of one call (nvFuser's FusionProfile, camelCase). */
export interface FusionProfile {
  fusionId: number;
  /** Entries timed (the segments that ran a kernel or a library call; a scatter's copy counts apart). */
  segments: number;
  /** Sum of the entries' device times. */
  kernelTimeMs: number;
  inputBytes: number;
  outputBytes: number;
  effectiveBandwidthGbs: number;
  /**
   * Host wall time of the runFusion call, from its entry to the return of its outputs, without
   * the profile's own waits for its events (those come after); it includes recording them.
   */
  hostTimeMs: number;
  kernelProfiles: KernelProfile[];
}

/** An entry bracketed by two recorded events, timed once both are complete. */
export interface PendingKernelTiming {
  start: CudaEvent;
  end: CudaEvent;
  profile: Omit<KernelProfile, 'timeMs' | 'effectiveBandwidthGbs' | 'tflops'>;
}

function bandwidth(bytes: number, ms: number): number {
  return ms > 0 ? bytes / (ms * 1e6) : 0;
}

/** TFLOP/s of `flops` done in `ms` (0 for no time), null without flops. */
export function teraflops(flops: number | null, ms: number): number | null {
  if (flops === null) return null;
  return ms > 0 ? flops / (ms * 1e9) : 0;
}

/** A GEMM's floating-point operations: 2·m·n·k·batch. */
export function gemmFlops(m: number, n: number, k: number, batch: number): number {
  return 2 * m * n * k * batch;
}

/** Attention's floating-point operations in FlashAttention's convention (see the header). */
export function attentionFlops(p: { batch: number; heads: number; queryLength: number; keyLength: number; headDim: number; causal: boolean; backward: boolean }): number {
  const forward = (4 * p.batch * p.heads * p.queryLength * p.keyLength * p.headDim) / (p.causal ? 2 : 1);
  return p.backward ? 2.5 * forward : forward;
}

/** Waits for every pending timing, frees its events and sums the call. */
export function finishProfile(fusionId: number, pending: readonly PendingKernelTiming[], hostTimeMs = 0): FusionProfile {
  const kernelProfiles = pending.map(({ start, end, profile }): KernelProfile => {
    try {
      const timeMs = end.elapsedSince(start);
      return { ...profile, timeMs, effectiveBandwidthGbs: bandwidth(profile.inputBytes + profile.outputBytes, timeMs), tflops: teraflops(profile.flops, timeMs) };
    } finally {
      start.dispose();
      end.dispose();
    }
  });
  const kernelTimeMs = kernelProfiles.reduce((s, k) => s + k.timeMs, 0);
  const inputBytes = kernelProfiles.reduce((s, k) => s + k.inputBytes, 0);
  const outputBytes = kernelProfiles.reduce((s, k) => s + k.outputBytes, 0);
  return {
    fusionId,
    segments: kernelProfiles.length,
    kernelTimeMs,
    inputBytes,
    outputBytes,
    effectiveBandwidthGbs: bandwidth(inputBytes + outputBytes, kernelTimeMs),
    hostTimeMs,
    kernelProfiles,
  };
}
