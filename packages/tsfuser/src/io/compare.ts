// Compares two output tensors with dtype-aware tolerances (|a - b| <= atol + rtol·|b|, NaN equal
// to NaN, infinities equal when of the same sign; ints and bools exact). Used by `--check`.

import { isComplexType, type DataType, type HostTensor } from '@tsfuser/fusion-ir';

export interface Tolerance {
  rtol: number;
  atol: number;
}

export function toleranceFor(dtype: DataType): Tolerance {
  switch (dtype) {
    case 'Half':
      return { rtol: 1e-2, atol: 1e-3 };
    case 'BFloat16':
      return { rtol: 2e-2, atol: 1e-2 };
    case 'Float':
    case 'ComplexFloat':
      return { rtol: 1e-5, atol: 1e-6 };
    case 'Double':
    case 'ComplexDouble':
      // Differences of nearly equal values amplify 1-ulp math errors: an absolute floor.
      return { rtol: 1e-10, atol: 1e-12 };
    // fp8: one unit in the last place (results are rounded once from float).
    case 'Float8_e4m3fn':
      return { rtol: 2 ** -3, atol: 2 ** -9 };
    case 'Float8_e5m2':
      return { rtol: 2 ** -2, atol: 2 ** -16 };
    case 'Float8_e8m0fnu':
      return { rtol: 1, atol: 0 };
    case 'Bool':
    case 'Int32':
    case 'Int':
    case 'Index':
    case 'UInt64':
      return { rtol: 0, atol: 0 };
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

export interface Mismatch {
  /** Row-major index of the first element out of tolerance. */
  index: number;
  actual: number;
  expected: number;
  /** How many elements are out of tolerance. */
  count: number;
}

export type CompareResult = { ok: true; maxAbsDiff: number } | { ok: false; reason: string; mismatch?: Mismatch };

/**
 * The loosest tolerance among `dtypes`: an output is only as precise as the least precise
 * value it was computed from (a Double output of a Float atan2 carries float rounding).
 */
export function loosestTolerance(dtypes: Iterable<DataType>): Tolerance {
  let t: Tolerance = { rtol: 0, atol: 0 };
  for (const d of dtypes) {
    const u = toleranceFor(d);
    t = { rtol: Math.max(t.rtol, u.rtol), atol: Math.max(t.atol, u.atol) };
  }
  return t;
}

/**
 * `slack` (optional, one value per element) widens each element's tolerance by how far the
 * exact result moves when the inputs move by an ulp (inputSensitivity): CUDA's math functions
 * are accurate to a few ulps, and an ill-conditioned composition (cos of exp(2x) with
 * exp(2x) ≈ 80) turns that into differences far above the output dtype's tolerance although
 * the GPU result is the exact result of inputs within an ulp.
 */
export function compareTensors(actual: HostTensor, expected: HostTensor, tolerance?: Tolerance, slack?: ArrayLike<number>): CompareResult {
  if (actual.dtype !== expected.dtype) return { ok: false, reason: `dtype ${actual.dtype} vs ${expected.dtype}` };
  if (actual.sizes.join(',') !== expected.sizes.join(',')) {
    return { ok: false, reason: `shape [${actual.sizes.join(', ')}] vs [${expected.sizes.join(', ')}]` };
  }
  const { rtol, atol } = tolerance ?? toleranceFor(expected.dtype);
  let first: Mismatch | undefined;
  let count = 0;
  let maxAbsDiff = 0;
  // Complex tensors compare component by component (re and im each within tolerance).
  const complex = isComplexType(expected.dtype);
  const as = complex ? actual.toComplexInterleaved() : null;
  const bs = complex ? expected.toComplexInterleaved() : null;
  const per = complex ? 2 : 1;
  for (let k = 0; k < expected.numel * per; k += 1) {
    const i = complex ? Math.floor(k / 2) : k;
    const a = as === null ? actual.getNumber(i) : (as[k] as number);
    const b = bs === null ? expected.getNumber(i) : (bs[k] as number);
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (a === b) continue;
    const diff = Math.abs(a - b);
    if (Number.isFinite(diff)) maxAbsDiff = Math.max(maxAbsDiff, diff);
    if (!(diff <= atol + rtol * Math.abs(b) + (slack?.[i] ?? 0))) {
      count += 1;
      first ??= { index: i, actual: a, expected: b, count: 0 };
    }
  }
  if (first !== undefined) return { ok: false, reason: `${count} of ${expected.numel} elements differ`, mismatch: { ...first, count } };
  return { ok: true, maxAbsDiff };
}
