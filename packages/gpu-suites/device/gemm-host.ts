// Host side of the GEMM GPU suite: element encoding for the GEMM dtypes (the values a case
// uploads are exactly representable, so the float64 reference sees what the GPU sees), the
// float64 reference of a row-major GemmDescriptor-shaped case, the tolerance by dtype and K,
// and where libcublasLt lives on a GPU host where the loader cannot see it.
//
// Invariant: the reference reads the same decoded inputs that were uploaded; it is written from
// the descriptor's documented row-major meaning (packages/device/src/gemm/gemm-descriptor.ts),
// not from the column-major plan, so it checks the transposition identity on the device.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  allocateStorage,
  dataTypeSize,
  writeStorage,
  bfloat16BitsToNumber,
  halfBitsToNumber,
  float8E4M3FnBitsToNumber,
  float8E5M2BitsToNumber,
  numberToBFloat16Bits,
  numberToHalfBits,
  numberToFloat8E4M3FnBits,
  numberToFloat8E5M2Bits,
} from '@tsfuser/fusion-ir';
import { gemmAvailability, isAvailable, type GemmDtype } from '@tsfuser/device';

export function elementBytes(dtype: GemmDtype): number {
  return dataTypeSize(dtype);
}

/** Encodes `values` in `dtype` (round to nearest even); returns the bytes and the decoded values. */
export function encode(dtype: GemmDtype, values: readonly number[]): { bytes: Uint8Array; decoded: Float64Array } {
  const storage = allocateStorage(dtype, values.length);
  values.forEach((v, i) => writeStorage(dtype, storage, i, v));
  const bytes = new Uint8Array(storage.buffer, storage.byteOffset, storage.byteLength);
  return { bytes, decoded: decode(dtype, bytes) };
}

export function decode(dtype: GemmDtype, bytes: Uint8Array): Float64Array {
  const count = bytes.byteLength / elementBytes(dtype);
  const out = new Float64Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i += 1) {
    switch (dtype) {
      case 'Float':
        out[i] = view.getFloat32(4 * i, true);
        break;
      case 'BFloat16':
        out[i] = bfloat16BitsToNumber(view.getUint16(2 * i, true));
        break;
      case 'Half':
        out[i] = halfBitsToNumber(view.getUint16(2 * i, true));
        break;
      case 'Float8_e4m3fn':
        out[i] = float8E4M3FnBitsToNumber(view.getUint8(i));
        break;
      case 'Float8_e5m2':
        out[i] = float8E5M2BitsToNumber(view.getUint8(i));
        break;
      default: {
        const never: never = dtype;
        throw new Error(`no decoder for ${String(never)}`);
      }
    }
  }
  return out;
}

/** `v` rounded to `dtype` (round to nearest even), as a number: what storing it in D's dtype keeps. */
export function roundTo(dtype: GemmDtype, v: number): number {
  switch (dtype) {
    case 'Float':
      return Math.fround(v);
    case 'BFloat16':
      return bfloat16BitsToNumber(numberToBFloat16Bits(v));
    case 'Half':
      return halfBitsToNumber(numberToHalfBits(v));
    case 'Float8_e4m3fn':
      return float8E4M3FnBitsToNumber(numberToFloat8E4M3FnBits(v));
    case 'Float8_e5m2':
      return float8E5M2BitsToNumber(numberToFloat8E5M2Bits(v));
    default: {
      const never: never = dtype;
      throw new Error(`no rounding for ${String(never)}`);
    }
  }
}

/** Significand bits of a stored dtype (the implicit bit included). */
function significandBits(dtype: GemmDtype): number {
  return -Math.log2(unitRoundoff(dtype));
}

/** One ulp of `dtype` at |x| (the spacing of its values there; the subnormal step near 0). */
export function ulpAt(dtype: GemmDtype, x: number): number {
  const a = Math.abs(x);
  if (a === 0 || !Number.isFinite(a)) return subnormalSpacing(dtype);
  return Math.max(2 ** (Math.floor(Math.log2(a)) - (significandBits(dtype) - 1)), subnormalSpacing(dtype));
}

/** Unit roundoff of a stored dtype (half an ulp at 1: 2^-p for a p-bit significand). */
export function unitRoundoff(dtype: GemmDtype): number {
  switch (dtype) {
    case 'Float':
      return 2 ** -24;
    case 'BFloat16':
      // 8 significand bits (7 stored): 2^-8. It was 2^-9 until the first GPU run, half of
      // bf16's rounding error, which failed correctly rounded results a half ulp away.
      return 2 ** -8;
    case 'Half':
      return 2 ** -11;
    case 'Float8_e4m3fn':
      return 2 ** -4;
    case 'Float8_e5m2':
      return 2 ** -3;
    default: {
      const never: never = dtype;
      throw new Error(`no roundoff for ${String(never)}`);
    }
  }
}

export const gelu = (x: number): number => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
export const geluGrad = (x: number): number => {
  const c = Math.sqrt(2 / Math.PI);
  const t = Math.tanh(c * (x + 0.044715 * x ** 3));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
};

/** Spacing of the output dtype's subnormals (its absolute rounding step near 0). */
export function subnormalSpacing(dtype: GemmDtype): number {
  switch (dtype) {
    case 'Float':
      return 2 ** -149;
    case 'BFloat16':
      return 2 ** -133;
    case 'Half':
      return 2 ** -24;
    case 'Float8_e4m3fn':
      return 2 ** -9;
    case 'Float8_e5m2':
      return 2 ** -16;
    default: {
      const never: never = dtype;
      throw new Error(`no subnormal spacing for ${String(never)}`);
    }
  }
}

/**
 * Allowed |got − reference| for one output element: the output's rounding of |reference| (a subnormal
 * step near 0, twice the unit roundoff above), the
 * f32 accumulation of K products (γ·√K of the sum of |terms|, a probabilistic bound as PyTorch's
 * tests use), and slack for cuBLASLt's GELU (its tanh approximation in f32).
 */
export function tolerance(out: GemmDtype, reference: number, magnitude: number, k: number, gelu: boolean): number {
  const accumulation = 4 * Math.sqrt(k) * 2 ** -23 * magnitude;
  const epilogue = gelu ? 2e-3 * (Math.abs(reference) + 1e-3 * magnitude) + 1e-6 : 0;
  return 2 * unitRoundoff(out) * Math.abs(reference) + subnormalSpacing(out) + accumulation + epilogue + 1e-30;
}

/**
 * On a host where the loader cannot see libcublasLt (the addon's own search covers the toolkit
 * and the usual site-packages), look where Python's PyTorch gets it: its site-packages'
 * nvidia/{cublas,cu13}/lib. Returns the file, or undefined.
 */
export function locateCublasLt(): string | undefined {
  const roots = new Set<string>();
  try {
    const text = execFileSync('python3', ['-c', 'import site,sys;print("\\n".join(site.getsitepackages()+[site.getusersitepackages()]+sys.path))'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 20000,
    });
    for (const line of text.split('\n')) if (line.trim() !== '') roots.add(line.trim());
  } catch {
    // no python3: nothing more to look at
  }
  for (const root of roots) {
    for (const wheel of ['cublas', 'cu13', 'cu12']) {
      const dir = join(root, 'nvidia', wheel, 'lib');
      if (!existsSync(dir)) continue;
      const found = readdirSync(dir).filter((f) => /^libcublasLt\.so\.1[23]/.test(f)).sort().reverse()[0];
      if (found !== undefined) return join(dir, found);
    }
  }
  return undefined;
}

/** Points TSFUSER_CUBLASLT_PATH at the libcublasLt locateCublasLt finds, unless the caller set it. */
export function useHostCublasLt(): void {
  if (process.env['TSFUSER_CUBLASLT_PATH'] !== undefined) return;
  const found = locateCublasLt();
  if (found !== undefined) process.env['TSFUSER_CUBLASLT_PATH'] = found;
}

/** After useHostCublasLt: why a GEMM entry cannot run here (no CUDA runtime or no cuBLASLt), or null. */
export function gemmEntryRefusal(): string | null {
  useHostCublasLt();
  const runtime = isAvailable();
  if (!runtime.available) return runtime.reason ?? '?';
  const gemm = gemmAvailability();
  return gemm.available ? null : (gemm.reason ?? '?');
}
