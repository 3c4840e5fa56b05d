// How an fp8 D is described to cuBLASLt. On the H200 (cuBLASLt 13.1, 2026-12-01/02) every fp8-D
// call the library made failed in cublasLtMatmul: CUBLAS_STATUS_INVALID_VALUE with C described
// at D's address in a 16-bit type (beta 0; with and without a D scale), NOT_SUPPORTED with a
// separate BFloat16 C (beta 0.5) — while NVIDIA's LtFp8Matmul sample (C BFloat16 in its own
// buffer, D e4m3, A/B/C/D scales and AMAX_D all set) runs. cuBLASLt documents in-place calls as
// C == D *and* Cdesc == Ddesc; an fp8 D's C is never fp8, so C at D's address is neither in-place
// nor out-of-place. This file completes a descriptor with an fp8 D the way the sample calls it:
//   - C: the caller's, or a scratch matrix of the library (never D's address) in the bias's type,
//     else Half (PyTorch's scaled_gemm: bias_dtype, Half without a bias), beta 0 (never read);
//   - CUBLASLT_MATMUL_DESC_D_SCALE_POINTER: the caller's, else a device float 1.0 of the library;
//   - CUBLASLT_MATMUL_DESC_AMAX_D_POINTER: the caller's, else a scratch float of the library.
// Invariant: the completed descriptor computes what the caller's means (D scale 1 = none, C with
// beta 0 is not read, amax is an extra output nobody reads), and it is a function of the
// descriptor and the library's resources only; a non-fp8 D is returned unchanged.
// The device suite's e4m3→e4m3 cases (device-gemm-suite --only e4m3→e4m3) run this form on the GPU;
// Fp8OutputForm turns a part off to find which of the three cuBLASLt needs.

import type { GemmDescriptor, GemmDtype } from './gemm-descriptor.js';
import { isFloat8 } from './validate-gemm.js';

/** Device buffers the library owns for fp8 outputs (fp8-output.ts's header). */
export interface Fp8OutputResources {
  /** A device float holding 1.0 (the D scale when none is given). */
  unitScale(): bigint;
  /** A device float cuBLASLt may write max |D| into (when the caller asks for none). */
  amaxScratch(): bigint;
  /** At least `bytes` of device memory, zeroed, that is not D (C of beta 0: never read). */
  scratchC(bytes: number): bigint;
}

/** Which parts of the sample's form are applied (all by default; the probe turns them off one at a time). */
export interface Fp8OutputForm {
  separateC?: boolean;
  dScale?: boolean;
  amaxD?: boolean;
}

/** The type of an fp8 D's C: the bias's (cuBLASLt's bias type follows C), else Half (PyTorch's rule). */
export function fp8OutputCType(desc: GemmDescriptor): GemmDtype {
  const epilogue = desc.epilogue;
  if (epilogue !== undefined && 'bias' in epilogue) return epilogue.bias.dtype;
  return 'Half';
}

/** `desc` with an fp8 D completed as the header says (unchanged for any other D). */
export function completeFp8Output(desc: GemmDescriptor, resources: Fp8OutputResources, form: Fp8OutputForm = {}): GemmDescriptor {
  if (!isFloat8(desc.d.dtype)) return desc;
  const out: GemmDescriptor = { ...desc, scales: { ...desc.scales } };
  const scales = out.scales ?? {};
  if (form.dScale !== false && scales.d === undefined) scales.d = resources.unitScale();
  if (form.amaxD !== false && scales.amaxD === undefined) scales.amaxD = resources.amaxScratch();
  out.scales = scales;
  if (form.separateC !== false && desc.c === undefined) {
    const batch = desc.d.batchCount ?? 1;
    const ld = desc.d.cols;
    const batchStride = batch > 1 ? desc.d.rows * ld : 0;
    const bytes = Math.max(batch, 1) * desc.d.rows * ld * 2;
    out.c = { pointer: resources.scratchC(bytes), dtype: fp8OutputCType(desc), rows: desc.d.rows, cols: desc.d.cols, ld, batchCount: batch, batchStride };
    out.beta = 0;
  }
  return out;
}
