// fp8 outputs (fp8-output.ts): completeFp8Output gives an fp8 D a C that is not D's address (in
// the bias type, else Half; beta 0), a unit D scale and an amax scratch, leaves what the caller
// gave and every non-fp8 D alone, and the forms the probe compares turn each part off; through
// GemmLibrary over a recording addon, the plan reaching cublasLtMatmul has C ≠ D with a 16-bit
// type, the D scale / amax pointers set, and the library's buffers made once and freed on dispose.

import { describe, expect, it } from 'vitest';
import type { CublasLtPlan } from '../src/gemm/cublaslt-plan.js';
import { CUBLASLT_VALUES as V } from '../src/gemm/cublaslt-constants.js';
import type { GemmDescriptor } from '../src/gemm/gemm-descriptor.js';
import { completeFp8Output, type Fp8OutputResources } from '../src/gemm/fp8-output.js';
import { GemmLibrary, type GemmDevice, type GemmNative } from '../src/gemm/gemm-library.js';

/** e4m3 [m×k] · e4m3 [n×k]ᵀ → `d` (the TN form cuBLASLt's fp8 kernels take). */
function fp8Desc(d: GemmDescriptor['d']['dtype'], m = 32, n = 48, k = 64): GemmDescriptor {
  return {
    a: { pointer: 0x1000n, dtype: 'Float8_e4m3fn', rows: m, cols: k, ld: k },
    b: { pointer: 0x2000n, dtype: 'Float8_e4m3fn', rows: n, cols: k, ld: k, transposed: true },
    d: { pointer: 0x3000n, dtype: d, rows: m, cols: n, ld: n },
    scales: { a: 0x4000n, b: 0x4004n },
  };
}

function resources(): Fp8OutputResources & { asked: number[] } {
  const asked: number[] = [];
  return { asked, unitScale: () => 0x9000n, amaxScratch: () => 0x9004n, scratchC: (bytes) => (asked.push(bytes), 0xa000n) };
}

describe('completeFp8Output', () => {
  it('gives an fp8 D a separate Half C (beta 0), a unit D scale and an amax scratch', () => {
    const r = resources();
    const out = completeFp8Output(fp8Desc('Float8_e4m3fn'), r);
    expect(out.c).toMatchObject({ pointer: 0xa000n, dtype: 'Half', rows: 32, cols: 48, ld: 48 });
    expect(out.c?.pointer).not.toBe(out.d.pointer);
    expect(out.beta).toBe(0);
    expect(out.scales).toEqual({ a: 0x4000n, b: 0x4004n, d: 0x9000n, amaxD: 0x9004n });
    expect(r.asked).toEqual([32 * 48 * 2]);
  });

  it('takes C in the bias type, and keeps what the caller gave (its C, D scale, amax)', () => {
    const withBias: GemmDescriptor = { ...fp8Desc('Float8_e4m3fn'), epilogue: { kind: 'BIAS', bias: { pointer: 0x5000n, dtype: 'BFloat16' } } };
    expect(completeFp8Output(withBias, resources()).c?.dtype).toBe('BFloat16');
    const given: GemmDescriptor = {
      ...fp8Desc('Float8_e4m3fn'),
      c: { pointer: 0x6000n, dtype: 'BFloat16', rows: 32, cols: 48, ld: 56 },
      beta: 0.5,
      scales: { a: 0x4000n, b: 0x4004n, d: 0x7000n, amaxD: 0x7004n },
    };
    const r = resources();
    const out = completeFp8Output(given, r);
    expect(out.c).toEqual(given.c);
    expect(out.beta).toBe(0.5);
    expect(out.scales).toEqual(given.scales);
    expect(r.asked).toEqual([]);
  });

  it('leaves a 16-bit or Float D unchanged, and the probe forms turn each part off', () => {
    const bf16 = fp8Desc('BFloat16');
    expect(completeFp8Output(bf16, resources())).toBe(bf16);
    const bare = completeFp8Output(fp8Desc('Float8_e4m3fn'), resources(), { separateC: false, dScale: false, amaxD: false });
    expect(bare.c).toBeUndefined();
    expect(bare.scales).toEqual({ a: 0x4000n, b: 0x4004n });
  });

  it('sizes a batched scratch C for the whole batch', () => {
    const r = resources();
    const d: GemmDescriptor = { ...fp8Desc('Float8_e4m3fn', 16, 16, 16), d: { pointer: 0x3000n, dtype: 'Float8_e4m3fn', rows: 16, cols: 16, ld: 16, batchCount: 3, batchStride: 256 } };
    const out = completeFp8Output(d, r);
    expect(out.c).toMatchObject({ batchCount: 3, batchStride: 256, ld: 16 });
    expect(r.asked).toEqual([3 * 16 * 16 * 2]);
  });
});

describe('GemmLibrary with an fp8 D', () => {
  it('hands cuBLASLt a C that is not D, in Half, with the D scale and amax set; buffers made once, freed on dispose', () => {
    const plans: CublasLtPlan[] = [];
    const native: GemmNative = {
      cublasLtProbe: () => ({ loaded: true, reason: '', path: '/x', version: 130100 }),
      cublasLtCreate: () => 1n,
      cublasLtDestroy: () => undefined,
      cublasLtHeuristic: () => [{ algo: new Uint8Array(64), workspaceSize: 0, wavesCount: 1 }],
      cublasLtMatmul: (_h, plan) => {
        plans.push(plan);
      },
    };
    let next = 0x10000n;
    const log: string[] = [];
    const written: number[][] = [];
    const device: GemmDevice = {
      stream: 1n,
      malloc: (bytes) => {
        next += 0x10000n;
        log.push(`malloc ${bytes}`);
        return next;
      },
      free: (p) => log.push(`free ${p.toString(16)}`),
      memsetD8: (_p, v, bytes) => log.push(`memset ${v} ${bytes}`),
      copyHostToDevice: (_p, source) => written.push(Array.from(source as Float32Array)),
    };
    const library = GemmLibrary.withNative(native, device);
    // scales 16-byte aligned: nothing staged (gemm-fp8-scale-staging.test.ts covers packed ones)
    const desc: GemmDescriptor = { ...fp8Desc('Float8_e4m3fn'), scales: { a: 0x4000n, b: 0x4100n } };
    library.matmul(desc);
    library.matmul(desc);
    const plan = plans[0] as CublasLtPlan;
    expect(plan.d.dataType).toBe(V.CUDA_R_8F_E4M3);
    expect(plan.c.dataType).toBe(V.CUDA_R_16F);
    expect(plan.cPointer).not.toBe(plan.dPointer);
    expect(plan.beta).toBe(0);
    expect(plan.dScalePointer).not.toBe(0n);
    expect(plan.amaxDPointer).toBe(plan.dScalePointer + 4n);
    expect(written).toEqual([[1, 0, 0, 0]]);
    // one scalar buffer, one zeroed scratch C (32×48 Half), reused by the second call
    expect(log).toEqual(['malloc 16', `malloc ${32 * 48 * 2}`, `memset 0 ${32 * 48 * 2}`]);
    library.dispose();
    expect(log.filter((l) => l.startsWith('free'))).toHaveLength(2);
  });
});
