// fp8 scale staging (fp8-scale-staging.ts): which A / B scale pointers an fp8 GEMM copies into
// the library's aligned slots (the H200 refused a 4-byte-aligned B scale), the copy's exactness
// (a 1×1 Float GEMM over the host interpreter of cuBLASLt plans), and GemmLibrary's sequence:
// validation first, then the copies on the call's stream, then the fp8 GEMM reading the slots,
// the call reporting why; nothing staged for aligned scales, non-fp8 GEMMs or when turned off.

import { describe, expect, it } from 'vitest';
import { CUBLASLT_VALUES as V } from '../src/gemm/cublaslt-constants.js';
import type { CublasLtPlan } from '../src/gemm/cublaslt-plan.js';
import type { GemmDescriptor } from '../src/gemm/gemm-descriptor.js';
import { fp8ScalesToStage, scaleCopy, SCALE_ALIGNMENT } from '../src/gemm/fp8-scale-staging.js';
import { GemmLibrary, type GemmNative } from '../src/gemm/gemm-library.js';
import { HostMemory, hostDevice, interpreter } from './cublaslt-interpreter.js';

/** e4m3 [m×k] · e4m3 [n×k]ᵀ → `d` with scales at the given pointers (the suite's packed form: +0, +4, +8). */
function fp8(scales: GemmDescriptor['scales'], d: GemmDescriptor['d']['dtype'] = 'Float8_e4m3fn', pointers: [bigint, bigint, bigint] = [0x10000n, 0x20000n, 0x30000n]): GemmDescriptor {
  return {
    a: { pointer: pointers[0], dtype: 'Float8_e4m3fn', rows: 16, cols: 32, ld: 32 },
    b: { pointer: pointers[1], dtype: 'Float8_e4m3fn', rows: 16, cols: 32, ld: 32, transposed: true },
    d: { pointer: pointers[2], dtype: d, rows: 16, cols: 16, ld: d === 'Float8_e4m3fn' ? 16 : 24 },
    ...(scales === undefined ? {} : { scales }),
  };
}

describe('fp8ScalesToStage', () => {
  it('stages an A or B scale below 16-byte alignment, with the reason; leaves D scales, aligned ones and non-fp8 GEMMs alone', () => {
    expect(SCALE_ALIGNMENT).toBe(16);
    const packed = fp8({ a: 0x7000n, b: 0x7004n, d: 0x7008n });
    expect(fp8ScalesToStage(packed)).toEqual([
      { which: 'b', from: 0x7004n, reason: 'scales.b at 0x7004 is 4-byte aligned; cuBLASLt\'s fp8 GEMMs need 16 (CUBLAS_STATUS_NOT_SUPPORTED on the H200 otherwise)' },
    ]);
    expect(fp8ScalesToStage(fp8({ a: 0x7008n, b: 0x7010n })).map((s) => [s.which, s.reason.match(/(\d+)-byte/)?.[1]])).toEqual([['a', '8']]);
    expect(fp8ScalesToStage(fp8({ a: 0x7000n, b: 0x7100n, d: 0x7204n }))).toEqual([]);
    expect(fp8ScalesToStage(fp8({ a: 0x7000n, b: 0x7004n }, 'BFloat16'))).toHaveLength(1);
    const bf16: GemmDescriptor = { a: { pointer: 0x10000n, dtype: 'BFloat16', rows: 4, cols: 8, ld: 8 }, b: { pointer: 0x20004n, dtype: 'BFloat16', rows: 8, cols: 4, ld: 4 }, d: { pointer: 0x30000n, dtype: 'BFloat16', rows: 4, cols: 4, ld: 4 } };
    expect(fp8ScalesToStage(bf16)).toEqual([]);
  });

  it('copies a scale exactly: the 1×1 Float GEMM slot = scale · 1', () => {
    const memory = new HostMemory();
    const buffer = memory.alloc(16);
    const slot = memory.alloc(16);
    const one = memory.alloc(16);
    memory.setF32(buffer, 1, 0.123456789);
    memory.setF32(one, 0, 1);
    const library = GemmLibrary.withNative(interpreter(memory), hostDevice(memory));
    library.matmul(scaleCopy(buffer + 4n, slot, one));
    expect(memory.getF32(slot, 0)).toBe(Math.fround(0.123456789));
  });
});

describe('GemmLibrary with packed fp8 scales', () => {
  /** Runs Float plans (the copies) on the interpreter; records every plan. */
  function recording(memory: HostMemory): GemmNative & { plans: CublasLtPlan[] } {
    const inner = interpreter(memory);
    const plans: CublasLtPlan[] = [];
    return {
      ...inner,
      plans,
      cublasLtHeuristic: (h, plan, ws, n) => inner.cublasLtHeuristic(h, plan, ws, n),
      cublasLtMatmul: (h, plan, algo, w, wb, stream) => {
        plans.push(plan);
        if (plan.a.dataType === V.CUDA_R_32F) inner.cublasLtMatmul(h, plan, algo, w, wb, stream);
      },
    };
  }

  it('validates, copies the misaligned B scale into its slot, then runs the fp8 GEMM reading the slot, and says so', () => {
    const memory = new HostMemory();
    const scales = memory.alloc(16);
    memory.setF32(scales, 0, 0.75);
    memory.setF32(scales, 1, 1.5);
    memory.setF32(scales, 2, 1.25);
    const native = recording(memory);
    const library = GemmLibrary.withNative(native, hostDevice(memory));
    const operands: [bigint, bigint, bigint] = [memory.alloc(512), memory.alloc(512), memory.alloc(256)];
    const call = library.matmul(fp8({ a: scales, b: scales + 4n, d: scales + 8n }, 'Float8_e4m3fn', operands));
    expect(call.stagedScales).toEqual([`scales.b at 0x${(scales + 4n).toString(16)} is 4-byte aligned; cuBLASLt's fp8 GEMMs need 16 (CUBLAS_STATUS_NOT_SUPPORTED on the H200 otherwise)`]);
    expect(native.plans.map((p) => p.a.dataType)).toEqual([V.CUDA_R_32F, V.CUDA_R_8F_E4M3]);
    const [copy, gemm] = native.plans as [CublasLtPlan, CublasLtPlan];
    // cuBLASLt's B scale is our A's and its A scale our B's (the plan swaps A and B)
    expect(gemm.bScalePointer).toBe(scales);
    expect(gemm.aScalePointer).toBe(copy.dPointer);
    expect(gemm.aScalePointer % 256n).toBe(0n);
    expect(gemm.dScalePointer).toBe(scales + 8n);
    expect(memory.getF32(copy.dPointer, 0)).toBe(1.5);
  });

  it('stages nothing for aligned scales or when turned off, and nothing runs for an invalid descriptor', () => {
    const memory = new HostMemory();
    const [a, b] = [memory.alloc(16), memory.alloc(16)];
    const operands: [bigint, bigint, bigint] = [memory.alloc(512), memory.alloc(512), memory.alloc(256)];
    const aligned = recording(memory);
    expect(GemmLibrary.withNative(aligned, hostDevice(memory)).matmul(fp8({ a, b }, 'Float8_e4m3fn', operands)).stagedScales).toBeUndefined();
    expect(aligned.plans).toHaveLength(1);
    const off = recording(memory);
    expect(GemmLibrary.withNative(off, hostDevice(memory), { stageFp8Scales: false }).matmul(fp8({ a, b: a + 4n }, 'Float8_e4m3fn', operands)).stagedScales).toBeUndefined();
    expect(off.plans.map((p) => p.bScalePointer)).toEqual([a]);
    const bad = recording(memory);
    const invalid = { ...fp8({ a, b: a + 4n }, 'Float8_e4m3fn', operands), b: { pointer: operands[1], dtype: 'Float8_e4m3fn' as const, rows: 16, cols: 32, ld: 32 } };
    expect(() => GemmLibrary.withNative(bad, hostDevice(memory)).matmul(invalid)).toThrow(/mat1 and mat2 shapes cannot be multiplied/);
    expect(bad.plans).toHaveLength(0);
  });
});
