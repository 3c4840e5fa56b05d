// When an inner persistent kernel copies its rows to shared memory with cp.async.bulk
// (InnerPersistentParams.bulkLoadRows), and the block-per-SM cap that goes with it.
//
// With register loads, the bytes a block keeps in flight are bounded by what its threads can
// issue and hold; a bulk copy is one instruction per row for the whole row, tracked by the copy
// engine and an mbarrier, so residency alone decides the bytes in flight. Measured on the H100
// (layer_norm f32 16384×4096, one process beside torch.compile, 400 runs per variant, both
// orders): the bulk-copy kernel at its register-limited 4 blocks per SM ran 175.3–175.7 µs,
// like the register-load kernel (175.4–175.6); capped at 3 blocks per SM (48 KB of row in
// flight per SM) it ran 174.5–174.6 µs, ahead of torch.compile (174.8–174.9) and of a copy_ of
// the same bytes (175.4–175.5); at 2 blocks 189, at 8 blocks (32 registers, parameters not
// hoisted) 178.3. The register-load kernel capped at 3 blocks ran 189.7: the cap only pays
// with bulk copies. tsfuser's own generated kernels, same process (µs; torch.compile
// 174.7–175.0 in the same runs): register loads, 256 threads × B = 4 (the shape the heuristic
// picks), 175.3–176.0; the same shape with bulk copies and the cap (this default) 175.0–175.6,
// 0.3–0.6 µs nearer; with one-barrier allreduces on top 175.2. 512 threads × B = 2 with bulk
// copies and the cap ran 174.7–174.8 in one session and 175.2 in another, and it needs ≤ 40
// registers for 3 blocks of 512 threads: with mean and invstd outputs it takes 46 (ptxas,
// sm_90), falls to 2 blocks per SM and ran 198 µs (176 with 256 threads), so it is not the
// default. For softmax f32
// (no row parameters) and the 16-bit rows bulk copies were slower (softmax_f32 +0.7 to +4 µs,
// bf16 rows +0.1 to +28 µs with caps of 3–4). So the default applies only where it was
// measured to help: 4-byte rows read as 16-byte vectors, row parameters hoisted, one row per
// block, a cap of exactly 3 blocks (48 KB over 12–16 KB of rows per block), sm_90 or later
// (cp.async.bulk).
// One-barrier allreduces (InnerPersistentParams.singleBarrierAllreduce) cost registers
// (layer_norm f32 with mean/invstd outputs: 66 → 76 under NVRTC) that under the cap cost no
// blocks, so they were tried as the default there: in two runs of one session (2026-11-23, 400
// runs each, µs) they were 0.2–0.3 faster in the first and 0–0.3 slower in the second, and
// with mean and invstd outputs the other way round. Noise, so they stay opt-in.
// Invariant: pure functions of the heuristic's decisions and the device; no fusion is changed.

import { dataTypeSize, type TensorView } from '@tsfuser/fusion-ir';
import type { SchedulerDevice } from '../runtime-info.js';

/** Bytes of row the bulk copies should keep in flight on each SM. */
export const TARGET_BULK_ROW_BYTES_PER_SM = 48 * 1024;
/** The only cap measured to pay (see the header); other row sizes keep register loads. */
export const MEASURED_BLOCK_CAP = 3;
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

export interface BulkRowLoadFacts {
  device: SchedulerDevice;
  fullRowInputs: readonly TensorView[];
  rowParams: readonly TensorView[];
  vectorizedFullRows: boolean;
  vec: number;
}

/** Whether the fusion and device are of the kind bulk row copies were measured to help. */
export function bulkRowLoadsEligible(f: BulkRowLoadFacts): boolean {
  const [major] = f.device.computeCapability;
  if (major < 9 || f.rowParams.length === 0 || !f.vectorizedFullRows || f.fullRowInputs.length === 0) return false;
  return f.fullRowInputs.every((tv) => dataTypeSize(tv.dtype) === 4) && f.vec * 4 === 16;
}

/**
 * The default for a schedule whose block holds `rowCapacity` elements of each full row: bulk
 * copies with a cap of MEASURED_BLOCK_CAP blocks per SM when that is what the 48 KB target
 * gives, else none.
 */
export function bulkRowLoadsByDefault(f: BulkRowLoadFacts, rowCapacity: number): BulkRowLoadChoice {
  if (!bulkRowLoadsEligible(f)) return NO_BULK_ROW_LOADS;
  const blocks = Math.floor(TARGET_BULK_ROW_BYTES_PER_SM / (rowCapacity * 4 * f.fullRowInputs.length));
  if (blocks !== MEASURED_BLOCK_CAP) return NO_BULK_ROW_LOADS;
  const smem = sharedMemForBlockCap(f.device, blocks);
  return smem === null ? NO_BULK_ROW_LOADS : { bulkLoadRows: true, maxBlocksPerSm: blocks, minSharedMemBytes: smem };
}

/** The choice under explicit overrides (absent ones: the default `byDefault`). */
export function bulkRowLoadsWith(device: SchedulerDevice, byDefault: BulkRowLoadChoice, bulk: boolean | undefined, cap: number | undefined): BulkRowLoadChoice {
  const on = bulk ?? byDefault.bulkLoadRows;
  if (on && device.computeCapability[0] < 9) return NO_BULK_ROW_LOADS;
  if (cap === undefined && on === byDefault.bulkLoadRows) return byDefault;
  // An explicit cap the device cannot express (shared memory unknown, past the opt-in) is no cap.
  const smem = cap === undefined || cap === 0 ? null : sharedMemForBlockCap(device, cap);
  return smem === null || cap === undefined ? { bulkLoadRows: on, maxBlocksPerSm: 0, minSharedMemBytes: 0 } : { bulkLoadRows: on, maxBlocksPerSm: cap, minSharedMemBytes: smem };
}
