// Seeded random fusions mixing slice / pad / cat with pointwise work, for the CPU differential
// test (codegen's resize-random.test.ts: kernel simulator against the reference evaluator) and
// the GPU shape-ops suite (`--random N` runs these beside the shape-op fusions). Rank 2 or 3,
// Float / Half / BFloat16, sizes up to ~24 (sometimes an inner dim of 64, vectorizable); 1–4
// resize steps (slices with steps and negative or out-of-range bounds, pads with negative
// widths and a value, cat of up to three pieces along any dim, one of them possibly the tensor
// itself) with unary/binary math between them and new inputs of the current shape; the result
// and sometimes a second output of the same shape (or an intermediate of another shape, which
// makes two segments).
import {
  abs, add, cast, cat, exp, Fusion, mul, neg, pad, slice, sub, type DataType, type EvalValue, type TensorView,
} from '@tsfuser/fusion-ir';
import { addRandomInput, randomDraws } from './random-case.js';
import type { RandomShapeCase } from './shape-ops-random.js';

function sliceSize(size: number, start: number, stop: number, step: number): number {
  const norm = (i: number): number => Math.min(Math.max(i < 0 ? i + size : i, 0), size);
  const a = norm(start);
  const b = Math.max(norm(stop), a);
  return Math.ceil((b - a) / step);
}

export function randomResizeCase(seed: number): RandomShapeCase {
  const { r, int, pick } = randomDraws(seed);
  const dtype: DataType = pick(['Float', 'Float', 'Half', 'BFloat16'] as const);
  const rank = pick([2, 2, 3]);
  const wide = r() < 0.3;
  let shape = Array.from({ length: rank }, (_, d) => (wide && d === rank - 1 ? 64 : int(1, rank === 3 ? 10 : 24)));
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const steps: string[] = [];
  const newInput = (s: readonly number[]): TensorView => cast(addRandomInput(f, inputs, dtype, s, r), 'Float');
  let cur = newInput(shape);
  const extra: TensorView[] = [];
  const resizes = int(1, 4);
  for (let k = 0; k < resizes; k += 1) {
    // Pointwise work before the resize.
    const pw = int(0, 2);
    for (let j = 0; j < pw; j += 1) {
      const op = int(0, 3);
      if (op === 0) cur = exp(mul(cur, 0.25));
      else if (op === 1) cur = add(cur, newInput(shape));
      else if (op === 2) cur = sub(abs(cur), 1);
      else cur = mul(cur, neg(cur));
      steps.push(['exp', 'add-input', 'abs', 'mul-neg'][op] as string);
    }
    const kind = int(0, 2);
    const d = int(0, rank - 1);
    const size = shape[d] as number;
    if (kind === 0) {
      const step = pick([1, 1, 2, 3]);
      const start = pick([0, int(0, size), -int(1, size + 2), size + 3]);
      const stop = pick([size, int(0, size + 4), -int(0, size), 1000]);
      const n = sliceSize(size, start, stop, step);
      if (n === 0) continue;
      const starts = shape.map((_, e) => (e === d ? start : 0));
      const stops = shape.map((s, e) => (e === d ? stop : s));
      const stepsArg = shape.map((_, e) => (e === d ? step : 1));
      cur = slice(cur, starts, stops, stepsArg);
      shape = shape.map((s, e) => (e === d ? n : s));
      steps.push(`slice(d${d} ${start}:${stop}:${step})`);
    } else if (kind === 1) {
      const left = int(-2, 3);
      const right = int(-2, 3);
      if (size + left + right < 1 || -left >= size || -right >= size) continue;
      const widths = new Array<number>(2 * (rank - d)).fill(0);
      widths[2 * (rank - 1 - d)] = left;
      widths[2 * (rank - 1 - d) + 1] = right;
      const value = pick([0, 1.5, -2]);
      cur = pad(cur, widths, value);
      shape = shape.map((s, e) => (e === d ? s + left + right : s));
      steps.push(`pad(d${d} ${left},${right} value ${value})`);
    } else {
      const pieces = int(2, 3);
      const parts: TensorView[] = [cur];
      let total = size;
      for (let p = 1; p < pieces; p += 1) {
        if (r() < 0.3) {
          parts.push(neg(cur));
          total += size;
        } else {
          const w = wide && d === rank - 1 ? pick([8, 16, 64]) : int(1, 6);
          parts.push(newInput(shape.map((s, e) => (e === d ? w : s))));
          total += w;
        }
      }
      if (r() < 0.5) parts.reverse();
      cur = cat(parts, d);
      shape = shape.map((s, e) => (e === d ? total : s));
      steps.push(`cat(d${d} of ${pieces})`);
    }
    if (r() < 0.1) extra.push(cur);
  }
  const result = dtype === 'Float' ? cur : cast(cur, dtype);
  f.addOutput(result);
  if (r() < 0.3) {
    f.addOutput(mul(cur, 3));
    steps.push('out:second');
  }
  for (const e of extra) {
    f.addOutput(e);
    steps.push('out:intermediate');
  }
  return { fusion: f, inputs, description: `${dtype} rank ${rank}: ${steps.join(', ')} → [${shape.join(', ')}]` };
}
