// Random fusions with slice / pad / cat on the input side of a reduction (issue 20: resize ops
// fused into the reduction kernel): one to three inputs of rank 2 or 3 (Float / Half /
// BFloat16, odd sizes, sometimes an inner dim of 64 so vectors are possible), sometimes
// pointwise work, then one resize step — a slice with an offset and a step (negative and
// out-of-range bounds included), a pad with negative widths and a value, or a cat of 2–3
// inputs along the reduced or a kept dim — sometimes an input of the resized shape added (read
// unshifted, so the kernel may vectorize it) and pointwise work after it (exp), then sum,
// max or mean over the innermost dim, an outer dim or every dim. Shared by codegen's simulation
// test (each case one reduction kernel, simulated against the reference evaluator) and its
// nvcc check.
import { abs, add, cast, cat, exp, Fusion, max, mean, mul, neg, pad, slice, sum, type DataType, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { addRandomInput, randomDraws } from './random-case.js';
import type { RandomShapeCase } from './shape-ops-random.js';

function sliceLength(size: number, start: number, stop: number, step: number): number {
  const norm = (i: number): number => Math.min(Math.max(i < 0 ? i + size : i, 0), size);
  const a = norm(start);
  return Math.ceil((Math.max(norm(stop), a) - a) / step);
}

export function randomResizeReductionCase(seed: number): RandomShapeCase {
  const { r, int, pick } = randomDraws(seed);
  const dtype: DataType = pick(['Float', 'Float', 'Half', 'BFloat16'] as const);
  const rank = pick([2, 2, 3]);
  const wide = r() < 0.3;
  let shape = Array.from({ length: rank }, (_, d) => (wide && d === rank - 1 ? 64 : pick([1, 3, 5, 7, 9, 13, 17, 23, 31]) + (d === rank - 1 ? int(0, 40) : 0)));
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const steps: string[] = [];
  const newInput = (s: readonly number[]): TensorView => cast(addRandomInput(f, inputs, dtype, s, r), 'Float');
  let cur = newInput(shape);
  if (r() < 0.4) {
    cur = abs(mul(cur, 0.5));
    steps.push('abs');
  }
  const reduceKind = pick(['inner', 'outer', 'all'] as const);
  const reduced = reduceKind === 'inner' ? [rank - 1] : reduceKind === 'outer' ? [int(0, rank - 2)] : shape.map((_, d) => d);
  const kind = pick(['slice', 'pad', 'cat'] as const);
  const d = pick([int(0, rank - 1), reduced[0] as number]);
  const size = shape[d] as number;
  let n = 0;
  if (kind === 'slice') {
    for (let tries = 0; tries < 8 && n === 0; tries += 1) {
      const step = pick([1, 1, 2, 3]);
      const start = pick([0, int(0, size), -int(1, size + 2), size + 3]);
      const stop = pick([size, int(0, size + 4), -int(0, size), 1000]);
      n = sliceLength(size, start, stop, step);
      if (n === 0) continue;
      cur = slice(cur, shape.map((_, e) => (e === d ? start : 0)), shape.map((s, e) => (e === d ? stop : s)), shape.map((_, e) => (e === d ? step : 1)));
      steps.push(`slice(d${d} ${start}:${stop}:${step})`);
    }
    if (n === 0) {
      n = size;
      cur = slice(cur, shape.map(() => 0), shape, shape.map(() => 1));
      steps.push(`slice(d${d} whole)`);
    }
  } else if (kind === 'pad') {
    let left = int(-2, 4);
    let right = int(-2, 4);
    if (size + left + right < 1 || -left >= size || -right >= size) [left, right] = [int(0, 4), int(1, 4)];
    const widths = new Array<number>(2 * (rank - d)).fill(0);
    widths[2 * (rank - 1 - d)] = left;
    widths[2 * (rank - 1 - d) + 1] = right;
    const value = pick([0, 1.5, -2]);
    cur = pad(cur, widths, value);
    n = size + left + right;
    steps.push(`pad(d${d} ${left},${right} value ${value})`);
  } else {
    const pieces = int(2, 3);
    const parts: TensorView[] = [cur];
    n = size;
    for (let p = 1; p < pieces; p += 1) {
      const w = wide && d === rank - 1 ? pick([8, 16, 64]) : pick([1, 2, 5, 6]);
      parts.push(r() < 0.2 ? neg(newInput(shape.map((s, e) => (e === d ? w : s)))) : newInput(shape.map((s, e) => (e === d ? w : s))));
      n += w;
    }
    if (r() < 0.5) parts.reverse();
    cur = cat(parts, d);
    steps.push(`cat(d${d} of ${pieces})`);
  }
  shape = shape.map((s, e) => (e === d ? n : s));
  if (r() < 0.3) {
    // An input of the resized shape: read unshifted (vectorizable), beside the shifted one.
    cur = add(cur, newInput(shape));
    steps.push('add-input');
  }
  if (r() < 0.3) {
    cur = exp(mul(cur, 0.25));
    steps.push('exp');
  }
  const op = pick(['sum', 'max', 'mean'] as const);
  const red = op === 'sum' ? sum(cur, reduced) : op === 'max' ? max(cur, reduced) : mean(cur, reduced);
  f.addOutput(dtype === 'Float' ? red : cast(red, dtype));
  steps.push(`${op}([${reduced.join(', ')}])`);
  return { fusion: f, inputs, description: `${dtype} rank ${rank}: ${steps.join(', ')} → [${shape.join(', ')}]` };
}
