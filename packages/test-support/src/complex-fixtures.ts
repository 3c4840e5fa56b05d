// Complex fusions for the codegen nvcc test and the GPU complex suite: one pointwise fusion per
// complex dtype that uses every complex op the GPU runtime has (arithmetic, exp/log/sqrt/sin/
// cos/tanh, reciprocal, neg, eq + where, abs/real/imag, complex(re, im), casts to and from
// complex, a complex scalar input), a cast-only copy (vectorized loads of 8/16-byte elements),
// and sum reductions over the inner and the outer dim. Inputs are seeded: normal-ish parts with
// a sprinkle of special values (±inf, NaN, ±0) in the pointwise cases.

import {
  abs, add, cast, complex, cos, div, eq, exp, Fusion, HostTensor, imag, log, makeTensor, mul, neg, real, reciprocal, sin, sqrt, sub, sum, tanh, where,
  Complex, type EvalValue, type TensorView,
} from '@tsfuser/fusion-ir';
import { seededRandom } from './random.js';

export type ComplexDtype = 'ComplexFloat' | 'ComplexDouble';

export interface ComplexCase {
  readonly name: string;
  readonly fusion: Fusion;
  /** Inputs for `seed` (HostTensors and scalars, in fusion.inputs order). */
  readonly inputs: (seed: number) => EvalValue[];
}

const SPECIAL = [Infinity, -Infinity, NaN, 0, -0];

/**
 * A complex tensor with parts of magnitude in [0.5, 2] and random sign (no near-zero divisors, so
 * the pointwise case stays well conditioned), and with `specials` one part in 64 special.
 */
export function randomComplexTensor(dtype: ComplexDtype, sizes: readonly number[], seed: number, specials = false): HostTensor {
  const rnd = seededRandom(seed);
  const n = sizes.reduce((a, b) => a * b, 1);
  const parts = new Float64Array(2 * n);
  for (let i = 0; i < parts.length; i += 1) {
    parts[i] = specials && rnd() < 1 / 64 ? (SPECIAL[Math.floor(rnd() * SPECIAL.length)] as number) : (rnd() < 0.5 ? -1 : 1) * (0.5 + 1.5 * rnd());
  }
  return HostTensor.fromComplexInterleaved(dtype, sizes, parts);
}

function realTensor(dtype: 'Float' | 'Double', sizes: readonly number[], seed: number): HostTensor {
  const rnd = seededRandom(seed);
  const n = sizes.reduce((a, b) => a * b, 1);
  return HostTensor.fromValues(dtype, sizes, Array.from({ length: n }, () => rnd() * 4 - 2));
}

function pointwiseCase(dtype: ComplexDtype, sizes: readonly number[]): ComplexCase {
  const real1 = dtype === 'ComplexFloat' ? 'Float' : 'Double';
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, -1], dtype });
  const b = makeTensor(f, { shape: [-1, -1], dtype });
  const r = makeTensor(f, { shape: [-1, -1], dtype: real1 });
  const s = f.newSymbolicScalar('ComplexDouble');
  [a, b, r, s].forEach((v) => f.addInput(v));
  const t1 = add(mul(a, b), div(a, b));
  const t2 = add(add(exp(a), log(a)), sub(sqrt(b), sin(a)));
  const t3 = add(add(cos(a), tanh(b)), add(reciprocal(b), neg(t2)));
  const t4 = where(eq(a, b), t3, mul(add(t3, t1), s)) as TensorView;
  f.addOutput(t4);
  f.addOutput(abs(t4));
  f.addOutput(complex(real(t4), imag(a)));
  f.addOutput(add(cast(r, dtype), a));
  f.addOutput(cast(t4, real1));
  return {
    name: `complex_pointwise_${dtype}_${sizes.join('x')}`,
    fusion: f,
    inputs: (seed) => [
      randomComplexTensor(dtype, sizes, seed, true),
      randomComplexTensor(dtype, sizes, seed + 1, true),
      realTensor(real1, sizes, seed + 2),
      new Complex(0.75, -1.25),
    ],
  };
}

function castCase(dtype: ComplexDtype, sizes: readonly number[]): ComplexCase {
  const other: ComplexDtype = dtype === 'ComplexFloat' ? 'ComplexDouble' : 'ComplexFloat';
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(a);
  f.addOutput(cast(a, other));
  f.addOutput(neg(a));
  return { name: `complex_cast_${dtype}_${sizes.join('x')}`, fusion: f, inputs: (seed) => [randomComplexTensor(dtype, sizes, seed)] };
}

function sumCase(dtype: ComplexDtype, sizes: readonly number[], dim: number): ComplexCase {
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(a);
  f.addOutput(sum(a, [dim]));
  return { name: `complex_sum_dim${dim}_${dtype}_${sizes.join('x')}`, fusion: f, inputs: (seed) => [randomComplexTensor(dtype, sizes, seed)] };
}

/** The complex cases at `scale` 'small' (simulator/nvcc sizes) or 'large' (vectorized GPU sizes). */
export function complexCases(scale: 'small' | 'large' = 'small'): ComplexCase[] {
  const out: ComplexCase[] = [];
  for (const dtype of ['ComplexFloat', 'ComplexDouble'] as const) {
    const pw = scale === 'small' ? [33, 70] : [1024, 4096];
    out.push(pointwiseCase(dtype, pw));
    out.push(castCase(dtype, scale === 'small' ? [16, 64] : [2048, 8192]));
    out.push(sumCase(dtype, scale === 'small' ? [8, 3000] : [1024, 16384], 1));
    out.push(sumCase(dtype, scale === 'small' ? [3000, 8] : [16384, 1024], 0));
  }
  return out;
}
