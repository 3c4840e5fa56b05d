// The reference evaluator's RNGOp: fills the output, element by element in row-major order of
// its logical domain, with nvFuser's random numbers (runtime/random_numbers.cu) from
// Philox-4x32-10 (philox.ts). For the element with linear index i and m = 2 (Double) or 4
// (other dtypes): subsequence i / m, component i % m, words = philox(seed, i / m, offset).
//   uniform          Float: uniformf(word[c]); Double: uniform(word[2c], word[2c+1]);
//                    Half/BFloat16: raw_uniform_float(word[c]) rounded, 1 → 0
//   uniform_range    low + (high − low) · u, each operation rounded to the compute type (float
//                    for Float/Half/BFloat16, with Half/BFloat16 results equal to high → low)
//   normal_standard  Box–Muller: Float/Half/BFloat16 on words [c/2·2], [c/2·2+1], sin for even
//                    c, cos for odd; Double on all four words, sin/cos by c % 2
//   normal_general   n · std + mean, each operation rounded
// Invariant: the value depends only on (seed, offset, i, op, dtype, parameters) — never on how
// the fusion is scheduled — so the GPU kernel reproduces it whatever its loops look like.

import { EvaluationError } from '../ir/errors.js';
import type { RNGOp } from '../ir/expr.js';
import type { RngOpType } from '../ir/op-types.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { EvalContext } from './evaluator.js';
import { roundToBFloat16, roundToHalf } from './float16.js';
import { HostTensor, writeStorage } from './host-tensor.js';
import { normalDouble, normalFloat, philox, rawUniformFloat, uniformDouble, uniformFloat } from './philox.js';
import { toFloat } from './values.js';

/** The dtypes an RNG op can produce. */
export type RngDtype = 'Float' | 'Double' | 'Half' | 'BFloat16';

export interface RngSpec {
  op: RngOpType;
  dtype: RngDtype;
  seed: number | bigint;
  offset: number | bigint;
  /** [low, high] or [mean, std] (as doubles) for the *_range / *_general ops, else []. */
  parameters: readonly number[];
}

/** Philox words per subsequence that one element consumes: 2 per Double, 1 otherwise. */
export function philoxMultiple(dtype: RngDtype): number {
  return dtype === 'Double' ? 2 : 4;
}

function round16(dtype: RngDtype): (x: number) => number {
  return dtype === 'Half' ? roundToHalf : roundToBFloat16;
}

/** The value of element `component` of one philox output (words) under `spec`. */
function valueOf(spec: RngSpec, words: readonly number[], c: number): number {
  const w = (i: number): number => words[i] as number;
  const [p0 = 0, p1 = 0] = spec.parameters;
  const f = Math.fround;
  switch (spec.op) {
    case 'uniform':
      if (spec.dtype === 'Double') return uniformDouble(w(2 * c), w(2 * c + 1));
      if (spec.dtype === 'Float') return uniformFloat(w(c));
      return ((r) => (r === 1 ? 0 : r))(round16(spec.dtype)(rawUniformFloat(w(c))));
    case 'uniform_range': {
      if (spec.dtype === 'Double') return p0 + (p1 - p0) * uniformDouble(w(2 * c), w(2 * c + 1));
      const from = f(p0);
      const to = f(p1);
      const range = f(to - from);
      if (spec.dtype === 'Float') return f(from + f(range * uniformFloat(w(c))));
      const round = round16(spec.dtype);
      const r = round(f(from + f(range * rawUniformFloat(w(c)))));
      return r === round(to) ? round(from) : r;
    }
    case 'normal_standard':
    case 'normal_general': {
      let n: number;
      if (spec.dtype === 'Double') {
        n = normalDouble(w(0), w(1), w(2), w(3), c);
        return spec.op === 'normal_general' ? n * p1 + p0 : n;
      }
      const base = Math.floor(c / 2) * 2;
      n = normalFloat(w(base), w(base + 1), c);
      if (spec.op === 'normal_general') n = f(f(n * f(p1)) + f(p0));
      return spec.dtype === 'Float' ? n : round16(spec.dtype)(n);
    }
    default: {
      const unreachable: never = spec.op;
      throw new Error(`unknown RNG op ${String(unreachable)}`);
    }
  }
}

/** The values of linear indices [0, count) under `spec` (one philox call per subsequence). */
export function rngValues(spec: RngSpec, count: number): Float64Array {
  const out = new Float64Array(count);
  const m = philoxMultiple(spec.dtype);
  let subsequence = -1;
  let words: readonly number[] = [];
  for (let i = 0; i < count; i += 1) {
    const q = Math.floor(i / m);
    if (q !== subsequence) {
      subsequence = q;
      words = philox(spec.seed, q, spec.offset);
    }
    out[i] = valueOf(spec, words, i - q * m);
  }
  return out;
}

/** The value at one linear index (what one GPU thread computes). */
export function rngValueAt(spec: RngSpec, linearIndex: number): number {
  const m = philoxMultiple(spec.dtype);
  const q = Math.floor(linearIndex / m);
  return valueOf(spec, philox(spec.seed, q, spec.offset), linearIndex - q * m);
}

function integerOf(v: unknown, what: string, expr: RNGOp): number | bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  throw new EvaluationError(`rng_${expr.rngOp} producing T${(expr.out() as TensorView).name}: ${what} must be an integer, got ${String(v)}`);
}

/** The spec of an RNGOp with its scalars evaluated. */
export function rngSpecOf(ctx: EvalContext, expr: RNGOp): RngSpec {
  const dtype = expr.dtype;
  if (dtype !== 'Float' && dtype !== 'Double' && dtype !== 'Half' && dtype !== 'BFloat16') {
    throw new EvaluationError(`rng_${expr.rngOp}: dtype ${dtype} is not a floating-point type`);
  }
  const seed = integerOf(ctx.scalar(expr.seed), 'rng_seed', expr);
  const offset = integerOf(ctx.scalar(expr.offset), 'rng_offset', expr);
  return { op: expr.rngOp, dtype, seed, offset, parameters: expr.parameters.map((p) => toFloat(ctx.scalar(p))) };
}

export function evalRng(ctx: EvalContext, expr: RNGOp): void {
  const out = expr.out() as TensorView;
  const sizes = ctx.sizesOf(out);
  const result = HostTensor.empty(out.dtype, sizes);
  const values = rngValues(rngSpecOf(ctx, expr), result.numel);
  for (let i = 0; i < values.length; i += 1) writeStorage(out.dtype, result.data, i, values[i] as number);
  ctx.bind(out, result);
}
