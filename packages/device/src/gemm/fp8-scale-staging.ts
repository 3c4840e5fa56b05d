// Where an fp8 GEMM's per-tensor A / B scales must live for cuBLASLt to run it, and the copy
// that puts them there when they do not. Measured on the H200 (cuBLASLt 13.1, 2026-12-03,
// device-gemm-fp8-probe, call2-h3-fp8-probe.log): with the A scale at a buffer's start and the B
// scale 4 bytes after it, cublasLtMatmul refuses every e4m3 GEMM with CUBLAS_STATUS_NOT_SUPPORTED
// — after the heuristic returned an algorithm (it never sees the scale pointers), for an e4m3
// and a BFloat16 D alike — while the same GEMM runs with each scale in its own allocation; a D
// scale 4 or 8 bytes into a buffer runs. That was every fp8 failure of device-gemm-suite (its
// scales were packed), not the operand layout: its "NT" cases are cuBLASLt's TN form, the one
// scaled_mm segments run.
// So an A or B scale pointer not aligned to SCALE_ALIGNMENT bytes is staged: a 1×1 Float GEMM
// (scale · 1, exact) copies it into a slot of the library's own scalars — on the call's stream,
// before the GEMM, so it is ordered with it and capturable into a CUDA graph — and the GEMM reads
// the slot; the call reports which scales were staged and why. The D scale and amax pointers are
// used as given.
// Invariant: a pure function of the descriptor's pointer values (decided when the call is
// lowered, never by catching cuBLASLt's error); the staged descriptor computes the same GEMM.

import type { GemmDescriptor, GemmScales } from './gemm-descriptor.js';
import { isFloat8 } from './validate-gemm.js';

/**
 * Alignment (bytes) an fp8 A / B scale pointer is given to cuBLASLt with. 4 was refused on the
 * H200; own allocations (≥ 256) ran; 16 is the alignment cuBLASLt documents for fp8 matrix
 * pointers, taken here until 8 / 16 are measured apart.
 */
export const SCALE_ALIGNMENT = 16;

/** A scale the library copies into one of its slots before the GEMM. */
export interface StagedScale {
  which: 'a' | 'b';
  /** The caller's pointer. */
  from: bigint;
  /** Why: "scales.b at 0x…04 is 4-byte aligned; cuBLASLt's fp8 GEMMs need 16". */
  reason: string;
}

/** The largest power of two (≤ 256) dividing `pointer`. */
function alignmentOf(pointer: bigint): number {
  let a = 1;
  while (a < 256 && pointer % BigInt(a * 2) === 0n) a *= 2;
  return a;
}

/** The A / B scales of `desc` that must be staged (none for a non-fp8 GEMM). */
export function fp8ScalesToStage(desc: GemmDescriptor): StagedScale[] {
  if (!isFloat8(desc.a.dtype) && !isFloat8(desc.b.dtype)) return [];
  const out: StagedScale[] = [];
  for (const which of ['a', 'b'] as const) {
    const pointer = desc.scales?.[which];
    if (pointer === undefined || pointer <= 0n) continue;
    const alignment = alignmentOf(pointer);
    if (alignment >= SCALE_ALIGNMENT) continue;
    out.push({
      which,
      from: pointer,
      reason: `scales.${which} at 0x${pointer.toString(16)} is ${alignment}-byte aligned; cuBLASLt's fp8 GEMMs need ${SCALE_ALIGNMENT} (CUBLAS_STATUS_NOT_SUPPORTED on the H200 otherwise)`,
    });
  }
  return out;
}

/** The 1×1 Float GEMM slot = scale · one (exact in f32) that stages one scale. */
export function scaleCopy(from: bigint, slot: bigint, one: bigint): GemmDescriptor {
  return {
    a: { pointer: from, dtype: 'Float', rows: 1, cols: 1, ld: 1 },
    b: { pointer: one, dtype: 'Float', rows: 1, cols: 1, ld: 1 },
    d: { pointer: slot, dtype: 'Float', rows: 1, cols: 1, ld: 1 },
  };
}

/** `desc` reading the staged scales from their slots. */
export function withStagedScales(desc: GemmDescriptor, slots: Partial<Record<'a' | 'b', bigint>>): GemmDescriptor {
  const scales: GemmScales = { ...desc.scales };
  if (slots.a !== undefined) scales.a = slots.a;
  if (slots.b !== undefined) scales.b = slots.b;
  return { ...desc, scales };
}
