// When an inner persistent kernel copies its rows to shared memory with cp.async.bulk
// (InnerPersistentParams.bulkLoadRows), and the block-per-SM cap that may go with it: only when
// an override asks (InnerPersistentOverrides.bulkLoadRows / maxBlocksPerSm).
//
// With register loads, the bytes a block keeps in flight are bounded by what its threads can
// issue and hold; a bulk copy is one instruction per row for the whole row, tracked by the copy
// engine and an mbarrier, so residency alone decides the bytes in flight.
// It was the default on the H100 for hoisted 4-byte rows of 12–16 KB (layer_norm f32 at 4096),
// capped at 3 blocks per SM (48 KB of row in flight per SM): 174.5–175.6 µs against 175.3–176.0
// for register loads, 0.3–0.6 µs nearer torch.compile (one process, 400 runs per variant; the
// scheduler README keeps that table). On the H200 (2026-12-03, tsfuser-normalization-variants,
// L2 flushed, 30-run medians, copy of the same bytes 126.8 µs) the same kernel ran 140.8 µs (90%
// of the copy) where register loads with everything else equal ran 129.0 (98%), and kernel_ab.py
// in one process beside torch.compile (127.3): 141.0 against 128.0. The cap, not the copy, is
// what costs: bulk copies with the parameters in place (no cap, 5 blocks by registers) ran
// 130.4, and the hoisted register-load kernel at 3 blocks of 512 (B = 2, 40 registers) ran
// 138.9 — 48 KB in flight per SM is too little on the H200. rms_norm f32 (one parameter), which
// the same default also covered, ran 129.9 with it and 130.0 without. So it is off by default;
// the mechanism stays for experiments (and a persistent grid pipelines it over the row loop).
// One-barrier allreduces (InnerPersistentParams.singleBarrierAllreduce) cost registers
// (layer_norm f32 with mean/invstd outputs: 66 → 76 under NVRTC) and were noise under the H100
// cap, so they are opt-in too.
// Invariant: pure functions of the heuristic's decisions and the device; no fusion is changed.

import type { SchedulerDevice } from '../runtime-info.js';

/** Shared memory the hardware reserves per resident block (sm_80 and later). */
export const RESERVED_SHARED_MEM_PER_BLOCK = 1024;

export interface BulkRowLoadChoice {
  bulkLoadRows: boolean;
  /** 0: no cap. */
  maxBlocksPerSm: number;
  /** Dynamic shared memory each block requests at least (0: what the kernel uses). */
  minSharedMemBytes: number;
}

export const NO_BULK_ROW_LOADS: BulkRowLoadChoice = { bulkLoadRows: false, maxBlocksPerSm: 0, minSharedMemBytes: 0 };

/**
 * Dynamic shared memory per block that lets at most `blocks` blocks reside on one SM of
 * `device` (each block also costs the reserved 1 KB), rounded up to 128 bytes; null when the
 * device's shared memory is not known or the amount would exceed a block's opt-in limit.
 */
export function sharedMemForBlockCap(device: SchedulerDevice, blocks: number): number | null {
  const perSm = device.sharedMemPerSm;
  const optin = device.sharedMemPerBlockOptin;
  if (perSm === undefined || optin === undefined || blocks < 1) return null;
  const bytes = Math.ceil((Math.floor(perSm / (blocks + 1)) + 1 - RESERVED_SHARED_MEM_PER_BLOCK) / 128) * 128;
  if (bytes > optin || blocks * (bytes + RESERVED_SHARED_MEM_PER_BLOCK) > perSm) return null;
  return Math.max(0, bytes);
}

/** The choice under the overrides (absent: no bulk copies, no cap). */
export function bulkRowLoadsWith(device: SchedulerDevice, bulk: boolean | undefined, cap: number | undefined): BulkRowLoadChoice {
  const on = bulk ?? false;
  if (on && device.computeCapability[0] < 9) return NO_BULK_ROW_LOADS;
  // An explicit cap the device cannot express (shared memory unknown, past the opt-in) is no cap.
  const smem = cap === undefined || cap === 0 ? null : sharedMemForBlockCap(device, cap);
  return smem === null || cap === undefined ? { bulkLoadRows: on, maxBlocksPerSm: 0, minSharedMemBytes: 0 } : { bulkLoadRows: on, maxBlocksPerSm: cap, minSharedMemBytes: smem };
}
