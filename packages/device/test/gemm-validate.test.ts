// validateGemm refuses, before any native call, every descriptor cuBLASLt cannot run as given,
// with one GemmError naming the field: bad dimensions and leading dimensions, mismatched shapes
// (PyTorch's message), inconsistent batches, dtype mixes, fp8 layout and scale rules, and each
// epilogue's vector and aux requirements. Accepted descriptors return their m, n, k and batch.

import { describe, expect, it } from 'vitest';
import { GemmError } from '../src/errors.js';
import type { GemmDescriptor, GemmDtype, GemmMatrix } from '../src/gemm/gemm-descriptor.js';
import { validateGemm } from '../src/gemm/validate-gemm.js';

const mat = (dtype: GemmDtype, rows: number, cols: number, extra: Partial<GemmMatrix> = {}): GemmMatrix => ({
  pointer: 0x10000n,
  dtype,
  rows,
  cols,
  ld: cols,
  ...extra,
});
const bf16Linear = (): GemmDescriptor => ({
  a: mat('BFloat16', 7, 129),
  b: mat('BFloat16', 33, 129, { transposed: true }),
  d: mat('BFloat16', 7, 33),
});

function refusal(desc: GemmDescriptor): GemmError {
  try {
    validateGemm(desc);
  } catch (error) {
    if (error instanceof GemmError) return error;
    throw error;
  }
  throw new Error('expected a GemmError, the descriptor was accepted');
}

describe('validateGemm accepts', () => {
  it('a linear layout, a plain matmul and a broadcast batch', () => {
    expect(validateGemm(bf16Linear())).toEqual({ m: 7, n: 33, k: 129, batch: 1 });
    expect(validateGemm({ a: mat('Float', 1, 1), b: mat('Float', 1, 4095), d: mat('Float', 1, 4095) })).toEqual({ m: 1, n: 4095, k: 1, batch: 1 });
    expect(
      validateGemm({
        a: mat('Half', 4, 8, { batchCount: 3, batchStride: 32 }),
        b: mat('Half', 8, 5),
        d: mat('Half', 4, 5, { batchCount: 3, batchStride: 20 }),
      }),
    ).toEqual({ m: 4, n: 5, k: 8, batch: 3 });
  });

  it('bf16 inputs with a Float output, and fp8 TN with scales and a bf16 bias', () => {
    expect(validateGemm({ ...bf16Linear(), d: mat('Float', 7, 33) }).n).toBe(33);
    const fp8: GemmDescriptor = {
      a: mat('Float8_e4m3fn', 16, 32),
      b: mat('Float8_e5m2', 48, 32, { transposed: true }),
      d: mat('Float8_e4m3fn', 16, 48),
      scales: { a: 0x100n, b: 0x200n, d: 0x300n, amaxD: 0x400n },
      epilogue: { kind: 'GELU_BIAS', bias: { pointer: 0x500n, dtype: 'BFloat16' } },
    };
    expect(validateGemm(fp8)).toEqual({ m: 16, n: 48, k: 32, batch: 1 });
  });
});

describe('validateGemm refuses, naming the field', () => {
  const cases: [string, () => GemmDescriptor, string, RegExp][] = [
    ['a leading dimension below the columns', () => ({ ...bf16Linear(), a: mat('BFloat16', 7, 129, { ld: 100 }) }), 'a.ld', /100 is less than the 129 columns/],
    ['a zero dimension', () => ({ ...bf16Linear(), a: mat('BFloat16', 0, 129) }), 'a.rows', /integer ≥ 1, got 0/],
    ['a fractional ld', () => ({ ...bf16Linear(), b: mat('BFloat16', 33, 129, { ld: 130.5, transposed: true }) }), 'b.ld', /integer/],
    ['mismatched inner dimensions', () => ({ ...bf16Linear(), b: mat('BFloat16', 33, 128, { transposed: true }) }), 'b', /mat1 and mat2 shapes cannot be multiplied \(7x129 and 128x33\)/],
    ['a D of the wrong shape', () => ({ ...bf16Linear(), d: mat('BFloat16', 33, 7) }), 'd', /is 33×7 but op\(A\)·op\(B\) is 7×33/],
    ['a transposed D', () => ({ ...bf16Linear(), d: mat('BFloat16', 7, 33, { transposed: true }) }), 'd.transposed', /cannot be transposed/],
    ['a null pointer', () => ({ ...bf16Linear(), a: mat('BFloat16', 7, 129, { pointer: 0n }) }), 'a.pointer', /device pointer/],
    ['mismatched input dtypes', () => ({ ...bf16Linear(), b: mat('Half', 33, 129, { transposed: true }) }), 'b.dtype', /A is BFloat16 but B is Half/],
    ['a Half output of bf16 inputs', () => ({ ...bf16Linear(), d: mat('Half', 7, 33) }), 'd.dtype', /BFloat16 or Float output, not Half/],
    ['an fp8 output of bf16 inputs', () => ({ ...bf16Linear(), d: mat('Float8_e4m3fn', 7, 33) }), 'd.dtype', /fp8 output needs fp8 inputs/],
    ['fp8 beside bf16', () => ({ ...bf16Linear(), a: mat('Float8_e4m3fn', 7, 129) }), 'b.dtype', /both inputs in fp8/],
    ['e5m2 × e5m2', () => ({ a: mat('Float8_e5m2', 16, 32), b: mat('Float8_e5m2', 16, 32, { transposed: true }), d: mat('BFloat16', 16, 16) }), 'b.dtype', /no e5m2 × e5m2/],
    ['fp8 with B not transposed', () => ({ a: mat('Float8_e4m3fn', 16, 32), b: mat('Float8_e4m3fn', 32, 16), d: mat('BFloat16', 16, 16) }), 'b.transposed', /"TN"/],
    ['a scale on a bf16 GEMM', () => ({ ...bf16Linear(), scales: { a: 0x100n } }), 'scales.a', /needs an fp8 tensor: A is not fp8/],
    ['a batch count that does not match', () => ({ a: mat('Float', 2, 3, { batchCount: 2, batchStride: 6 }), b: mat('Float', 3, 4, { batchCount: 3, batchStride: 12 }), d: mat('Float', 2, 4, { batchCount: 3, batchStride: 8 }) }), 'a.batchCount', /2 does not match the batch of 3/],
    ['overlapping batched outputs', () => ({ a: mat('Float', 2, 3, { batchCount: 2, batchStride: 6 }), b: mat('Float', 3, 4), d: mat('Float', 2, 4, { batchCount: 2, batchStride: 0 }) }), 'd.batchStride', /overlap/],
    ['a bias of another dtype', () => ({ ...bf16Linear(), epilogue: { kind: 'BIAS', bias: { pointer: 0x100n, dtype: 'Float' } } }), 'epilogue.bias.dtype', /D's dtype BFloat16/],
    ['a GELU aux ld not a multiple of 8', () => ({ ...bf16Linear(), epilogue: { kind: 'GELU_AUX', aux: { pointer: 0x100n, ld: 36 } } }), 'epilogue.aux.ld', /multiple of 8 elements and at least n = 33, got 36/],
    ['a ReLU mask ld not a multiple of 128', () => ({ ...bf16Linear(), epilogue: { kind: 'RELU_AUX', aux: { pointer: 0x100n, ld: 40 } } }), 'epilogue.aux.ld', /multiple of 128 bits/],
    ['a ReLU mask with a dtype', () => ({ ...bf16Linear(), epilogue: { kind: 'DRELU', aux: { pointer: 0x100n, ld: 128, dtype: 'BFloat16' } } }), 'epilogue.aux.dtype', /bit mask/],
    ['a batched BGRADB', () => ({ a: mat('Float', 2, 3, { batchCount: 2, batchStride: 6 }), b: mat('Float', 3, 4), d: mat('Float', 2, 4, { batchCount: 2, batchStride: 8 }), epilogue: { kind: 'BGRADB', biasGradient: { pointer: 0x100n, dtype: 'Float' } } }), 'epilogue.kind', /no batched form/],
    ['a backward epilogue on fp8', () => ({ a: mat('Float8_e4m3fn', 16, 32), b: mat('Float8_e4m3fn', 16, 32, { transposed: true }), d: mat('BFloat16', 16, 16), epilogue: { kind: 'DGELU', aux: { pointer: 0x100n, ld: 16 } } }), 'epilogue.kind', /not offered for fp8/],
    ['TF32 on bf16', () => ({ ...bf16Linear(), allowTf32: true }), 'allowTf32', /Float inputs only/],
    ['a non-finite alpha', () => ({ ...bf16Linear(), alpha: Number.NaN }), 'alpha', /finite/],
    ['C of another shape', () => ({ ...bf16Linear(), c: mat('BFloat16', 7, 32), beta: 1 }), 'c', /is 7×32 but D is 7×33/],
    ['in-place C with another ld', () => ({ ...bf16Linear(), d: mat('BFloat16', 7, 33, { pointer: 0x999n }), c: mat('BFloat16', 7, 33, { pointer: 0x999n, ld: 40 }), beta: 1 }), 'c.ld', /in place/],
  ];
  for (const [what, make, field, message] of cases) {
    it(what, () => {
      const error = refusal(make());
      expect(error.field).toBe(field);
      expect(error.message).toMatch(message);
      expect(error.message.startsWith(`GEMM ${field}: `)).toBe(true);
    });
  }
});
