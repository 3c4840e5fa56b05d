// Kernel profiles of one executor-cache call (nvFuser's FusionProfiler, as fd.profile() reports
// it): per launched kernel its device time from CUDA events recorded around the launch on the
// kernel's own stream, its launch shape and the bytes it reads and writes; per call the sum.
// nvFuser times kernels with CUPTI activity records; events bracket exactly one launch here, so
// a kernel's time is the same quantity (launch start to end on the device), measured differently.
// Invariant: a profile lists the kernels of one call in launch order; metadata-only segments
// (expr_eval, no_op) launch nothing and are not listed.

import type { CudaEvent } from '@tsfuser/device';

/** One launched kernel (nvFuser's KernelProfile, camelCase). */
export interface KernelProfile {
  /** The kernel's name (nvfuser_<scheduler>_f<fusion>_c…). */
  name: string;
  /** Position of the kernel in the call's launch order. */
  segmentId: number;
  /** The scheduler that made it. */
  scheduler: string;
  /** Device time between events recorded just before and just after the launch. */
  timeMs: number;
  grid: [number, number, number];
  block: [number, number, number];
  dynamicSharedMem: number;
  /** Bytes of the kernel's tensor arguments that are its inputs / outputs (logical sizes). */
  inputBytes: number;
  outputBytes: number;
  /** (inputBytes + outputBytes) / timeMs, in GB/s (1e9 bytes). */
  effectiveBandwidthGbs: number;
  /** Whether it ran on the side stream, beside the main stream's kernels. */
  sideStream: boolean;
}

/** The kernels of one call (nvFuser's FusionProfile, camelCase). */
export interface FusionProfile {
  fusionId: number;
  /** Kernels launched (the segments that ran a kernel). */
  segments: number;
  /** Sum of the kernels' device times. */
  kernelTimeMs: number;
  inputBytes: number;
  outputBytes: number;
  effectiveBandwidthGbs: number;
  kernelProfiles: KernelProfile[];
}

/** A launch bracketed by two recorded events, timed once both are complete. */
export interface PendingKernelTiming {
  start: CudaEvent;
  end: CudaEvent;
  profile: Omit<KernelProfile, 'timeMs' | 'effectiveBandwidthGbs'>;
}

function bandwidth(bytes: number, ms: number): number {
  return ms > 0 ? bytes / (ms * 1e6) : 0;
}

/** Waits for every pending timing, frees its events and sums the call. */
export function finishProfile(fusionId: number, pending: readonly PendingKernelTiming[]): FusionProfile {
  const kernelProfiles = pending.map(({ start, end, profile }): KernelProfile => {
    try {
      const timeMs = end.elapsedSince(start);
      return { ...profile, timeMs, effectiveBandwidthGbs: bandwidth(profile.inputBytes + profile.outputBytes, timeMs) };
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
    kernelProfiles,
  };
}
