// Values for the shape-op and tensor-factory tests and GPU suite: seeded random inputs of a
// dtype, the runtime info of a fusion over host inputs, and an element-wise comparison with a
// tolerance by dtype (failure messages carry the label, which carries the seed).
import { Complex, HostTensor, type DataType, type EvalValue, type Fusion } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, type RuntimeInfo } from '@tsfuser/scheduler';
import { seededRandom, testSeed } from './random.js';

/** The project's one seeded generator (random.ts), under the name the shape-op tests use. */
export const seeded = seededRandom;

/** The base seed of a test run: TSFUSER_SEED, else a fresh one (printed on failure). */
export function baseSeed(): number {
  return testSeed();
}

export function randomTensor(dtype: DataType, sizes: readonly number[], r: () => number): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => {
    if (dtype === 'Bool') return r() < 0.5;
    if (dtype === 'Int') return BigInt(Math.floor((r() - 0.5) * 200));
    if (dtype === 'Int32') return Math.floor((r() - 0.5) * 200);
    return (r() - 0.5) * 8;
  });
  return HostTensor.fromValues(dtype, sizes, values);
}

/** Relative tolerance of one pointwise result stored in `dtype`. */
export function dtypeTolerance(dtype: DataType): number {
  switch (dtype) {
    case 'Half':
      return 2e-3;
    case 'BFloat16':
      return 1.6e-2;
    case 'Float':
      return 1e-5;
    case 'Double':
      return 1e-12;
    default:
      return 0;
  }
}

/**
 * Per-element slack for an output computed through a reduction: the dtype tolerance times the
 * output's largest magnitude (a norm-wise bound). A kernel sums in another order than the
 * evaluator, and where a row's terms cancel the element keeps the rounding of the large terms, not
 * of its own small value (seen: layer-norm backward, f32, |error| 4.4e-5 on an element of 4.2 whose
 * row holds values in the hundreds). An indexing error moves an element by a whole term, far more.
 */
export function normwiseSlack(want: HostTensor, toleranceDtype: DataType = want.dtype): Float64Array {
  const tol = Math.max(dtypeTolerance(want.dtype), dtypeTolerance(toleranceDtype));
  let largest = 0;
  for (const v of want.toNumbers()) {
    const a = Math.abs(v as number);
    if (Number.isFinite(a) && a > largest) largest = a;
  }
  return new Float64Array(want.numel).fill(tol * largest);
}

export function runtimeInfoOf(fusion: Fusion, inputs: readonly EvalValue[]): RuntimeInfo {
  // Integral scalar inputs carry their values (a dynamic reshape's sizes), as the executor's do.
  return makeRuntimeInfo(
    fusion,
    // Complex scalars never size anything: they carry no value for the scheduler.
    inputs.map((v) => (v instanceof HostTensor ? { sizes: v.sizes, strides: v.strides } : v instanceof Complex ? null : { value: v })),
  );
}

/**
 * Throws, naming `label`, unless every element of `got` is within `want`'s dtype tolerance (plus
 * `slack[k]` where given: a sum's rounding bound on elements whose sum cancels).
 */
export function compareOutput(want: HostTensor, got: HostTensor, label: string, slack?: ArrayLike<number>, toleranceDtype: DataType = want.dtype): void {
  // `toleranceDtype`: a Float output computed through a Half or BFloat16 intermediate carries that
  // intermediate's rounding (one of its ulps where a value sits on a rounding boundary).
  const tol = Math.max(dtypeTolerance(want.dtype), dtypeTolerance(toleranceDtype));
  if (want.sizes.join(',') !== got.sizes.join(',')) throw new Error(`${label}: sizes [${got.sizes.join(', ')}], want [${want.sizes.join(', ')}]`);
  const g = got.toNumbers();
  const w = want.toNumbers();
  for (let k = 0; k < w.length; k += 1) {
    const x = w[k] as number;
    const y = g[k] as number;
    const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x)) + (slack?.[k] ?? 0);
    if (!ok) throw new Error(`${label} element ${k}: got ${y}, want ${x} (tolerance ${tol}${slack === undefined ? '' : ` + slack ${(slack[k] ?? 0).toPrecision(3)}`})`);
  }
}
