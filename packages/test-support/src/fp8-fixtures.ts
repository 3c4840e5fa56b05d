// fp8 fusions for codegen tests (simulator, nvcc) and the GPU suite: casts Float → each fp8 and
// back (pointwise, vectorized), fp8 inputs computed in float, an fp8 row sum (reduction), the
// MX-style e8m0 block scale (amax / 448 → e8m0, a reduction epilogue) and the per-row fp8
// scaling recipe (amax of bf16 rows → scale → cast to e4m3, a normalization-style fusion); each
// with inputs from a seed that hit every rounding branch (ties, subnormals, overflow, ±0, ±inf,
// NaN). Results are compared bit for bit: every op computes in float and rounds once.
import { abs, broadcast, cast, div, Fusion, HostTensor, makeTensor, max, mul, sum, type DataType } from '@tsfuser/fusion-ir';
import { seededRandom } from './random.js';

export const FLOAT8_TYPES = ['Float8_e4m3fn', 'Float8_e5m2', 'Float8_e8m0fnu'] as const satisfies readonly DataType[];

export interface Fp8Case {
  name: string;
  fusion: Fusion;
  /** Inputs at `sizes` (each case's own shape convention) from `seed`. */
  inputs: (seed: number, rows: number, cols: number) => HostTensor[];
  /** Scheduler the case is meant to exercise. */
  scheduler: 'pointwise' | 'reduction' | 'inner_persistent';
}

/** Float32 values that exercise every fp8 rounding branch, then random magnitudes over 2^±20. */
export function fp8CastValues(seed: number, n: number): number[] {
  const rand = seededRandom(seed);
  const specials = [0, -0, Infinity, -Infinity, NaN, 448, 464, 480, -1e6, 57344, 61440, 65536, 2 ** -9, 2 ** -10, 3 * 2 ** -10, 2 ** -16, 2 ** -17, 1.0625, 1.1875, 3, 0.75, 2 ** -127, 2 ** -130, 1.5 * 2 ** -127];
  const out = specials.slice(0, n);
  while (out.length < n) out.push(Math.fround((rand() - 0.5) * 2 ** Math.floor(rand() * 40 - 20)));
  return out;
}

function randomBytes(seed: number, n: number, mask = 0xff): Uint8Array {
  const rand = seededRandom(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(rand() * 256) & mask);
}

function castRoundTrip(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
  f.addInput(x);
  for (const d of FLOAT8_TYPES) {
    const q = cast(x, d);
    f.addOutput(q);
    f.addOutput(cast(q, 'Float'));
  }
  return f;
}

function fp8Product(): Fusion {
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, -1], dtype: 'Float8_e4m3fn' });
  const b = makeTensor(f, { shape: [-1, -1], dtype: 'Float8_e5m2' });
  f.addInput(a);
  f.addInput(b);
  const p = mul(cast(a, 'Float'), cast(b, 'Float'));
  f.addOutput(cast(p, 'BFloat16'));
  f.addOutput(cast(p, 'Float8_e5m2'));
  f.addOutput(cast(p, 'Float8_e8m0fnu'));
  return f;
}

function fp8RowSum(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float8_e4m3fn' });
  f.addInput(x);
  f.addOutput(sum(cast(x, 'Float'), [1]));
  return f;
}

function e8m0BlockScale(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  f.addInput(x);
  f.addOutput(cast(div(max(abs(cast(x, 'Float')), [1]), 448), 'Float8_e8m0fnu'));
  return f;
}

function rowScaledE4m3(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  f.addInput(x);
  const xf = cast(x, 'Float');
  const scale = div(448, max(abs(xf), [1]));
  f.addOutput(cast(mul(xf, broadcast(scale, [false, true])), 'Float8_e4m3fn'));
  f.addOutput(scale);
  return f;
}

export function fp8Cases(): Fp8Case[] {
  return [
    { name: 'fp8_cast_round_trip', fusion: castRoundTrip(), scheduler: 'pointwise', inputs: (seed, r, c) => [HostTensor.fromValues('Float', [r, c], fp8CastValues(seed, r * c))] },
    {
      name: 'fp8_e4m3_times_e5m2',
      fusion: fp8Product(),
      scheduler: 'pointwise',
      inputs: (seed, r, c) => [new HostTensor('Float8_e4m3fn', [r, c], [c, 1], randomBytes(seed, r * c)), new HostTensor('Float8_e5m2', [r, c], [c, 1], randomBytes(seed + 1, r * c))],
    },
    {
      name: 'fp8_e4m3_row_sum',
      fusion: fp8RowSum(),
      scheduler: 'reduction',
      // Finite patterns below 2^5 (no NaN 0x7f/0xff), so float sums are exact in any order.
      inputs: (seed, r, c) => [new HostTensor('Float8_e4m3fn', [r, c], [c, 1], randomBytes(seed, r * c, 0xbf).map((b) => (b & 0x80) | Math.min(b & 0x7f, 0x5f)))],
    },
    { name: 'fp8_e8m0_block_scale', fusion: e8m0BlockScale(), scheduler: 'reduction', inputs: (seed, r, c) => [bf16Values(seed, r, c, true)] },
    { name: 'fp8_row_scaled_e4m3', fusion: rowScaledE4m3(), scheduler: 'inner_persistent', inputs: (seed, r, c) => [bf16Values(seed, r, c, false)] },
  ];
}

function bf16Values(seed: number, rows: number, cols: number, wideRange: boolean): HostTensor {
  const rand = seededRandom(seed);
  const values = Array.from({ length: rows * cols }, () => (rand() - 0.5) * (wideRange ? 2 ** Math.floor(rand() * 30 - 10) : 40));
  return HostTensor.fromValues('BFloat16', [rows, cols], values);
}

/** Reductions straight over fp8 tensors (no explicit cast): accumulated in float, rounded once. */
export function fp8DirectReductionCases(): Fp8Case[] {
  const make = (dtype: 'Float8_e4m3fn' | 'Float8_e5m2', op: 'sum' | 'max'): Fp8Case => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype });
    f.addInput(x);
    f.addOutput(op === 'sum' ? sum(x, [1]) : max(x, [1]));
    return {
      name: `fp8_direct_${op}_${dtype}`,
      fusion: f,
      scheduler: 'reduction',
      // Finite, small patterns: float sums exact in any order.
      inputs: (seed, r, c) => [new HostTensor(dtype, [r, c], [c, 1], randomBytes(seed, r * c).map((b) => (b & 0x80) | Math.min(b & 0x7f, 0x50)))],
    };
  };
  return [make('Float8_e4m3fn', 'sum'), make('Float8_e5m2', 'max')];
}
