// Seeded random slice / pad / cat fusions shaped for the pointwise scheduler's 2-D resize schedule
// (scheduler pointwise/resize/two-d.ts): rank 2 or 3, Float / Half / BFloat16, rows of tens to a
// few hundred elements, the innermost dim's shifts often multiples of 8 (vectorized) and
// sometimes odd (not). One resize per case — a pad (widths −8…16 on the innermost dim incl.
// crops, −2…2 elsewhere, value 0 / 1.5 / −2), a cat of 2–3 inputs along dim 0, 1 or the last, or
// a slice with offsets (start, stop, step 1; step 2 on an outer dim) — with optional pointwise
// work before it and an added input after it. Used by codegen's resize-2d-random.test.ts
// (kernel simulator under forced 2-D parameters against the reference evaluator).
import { add, cast, cat, exp, Fusion, mul, pad, slice, type DataType, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { addRandomInput, randomDraws } from './random-case.js';
import type { RandomShapeCase } from './shape-ops-random.js';

export function randomResize2dCase(seed: number): RandomShapeCase {
  const { r, int, pick } = randomDraws(seed);
  const dtype: DataType = pick(['Float', 'Float', 'BFloat16', 'Half'] as const);
  const rank = pick([2, 2, 3]);
  const aligned = r() < 0.6;
  const innerSize = (): number => (aligned ? 8 * int(2, 40) : int(9, 300));
  const shape = Array.from({ length: rank }, (_, d) => (d === rank - 1 ? innerSize() : int(1, rank === 3 ? 4 : 6)));
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const newInput = (s: readonly number[]): TensorView => {
    const t = addRandomInput(f, inputs, dtype, s, r);
    return dtype === 'Float' ? t : cast(t, 'Float');
  };
  let cur = newInput(shape);
  const steps: string[] = [];
  if (r() < 0.4) {
    cur = exp(mul(cur, 0.25));
    steps.push('exp');
  }
  const kind = int(0, 2);
  let out = [...shape];
  if (kind === 0) {
    const widths = new Array<number>(2 * rank).fill(0);
    for (let d = 0; d < rank; d += 1) {
      const k = rank - 1 - d;
      const size = shape[d] as number;
      const choices = d === rank - 1 ? (aligned ? [-8, 0, 8, 16] : [-3, -1, 0, 1, 5, 8]) : [-1, 0, 1, 2];
      let lo = pick(choices);
      let hi = pick(choices);
      if (size + lo + hi < 1 || -lo >= size || -hi >= size) [lo, hi] = [0, 0];
      widths[2 * k] = lo;
      widths[2 * k + 1] = hi;
      out[d] = size + lo + hi;
    }
    const value = pick([0, 1.5, -2]);
    cur = pad(cur, widths, value);
    steps.push(`pad([${widths.join(', ')}] value ${value})`);
  } else if (kind === 1) {
    const d = pick([0, Math.min(1, rank - 1), rank - 1]);
    const pieces = int(2, 3);
    const parts: TensorView[] = [cur];
    for (let p = 1; p < pieces; p += 1) {
      const w = d === rank - 1 ? innerSize() : int(1, 5);
      parts.push(newInput(shape.map((s, e) => (e === d ? w : s))));
      out[d] = (out[d] as number) + w;
    }
    if (r() < 0.5) {
      parts.reverse();
    }
    cur = cat(parts, d);
    steps.push(`cat(d${d} of ${pieces})`);
  } else {
    const inner = shape[rank - 1] as number;
    const start = Math.min(pick(aligned ? [0, 8, 16] : [0, 1, 3, 5]), inner - 1);
    const stop = Math.max(start + 1, inner - pick(aligned ? [0, 8] : [0, 2, 7]));
    const outerStep = rank > 1 && r() < 0.3 ? 2 : 1;
    const starts = shape.map((s, d) => (d === rank - 1 ? start : Math.min(int(0, 1), s - 1)));
    const stops = shape.map((s, d) => (d === rank - 1 ? stop : s));
    const stepsArg = shape.map((_, d) => (d === 0 ? outerStep : 1));
    cur = slice(cur, starts, stops, stepsArg);
    out = shape.map((_, d) => Math.ceil(((stops[d] as number) - (starts[d] as number)) / (stepsArg[d] as number)));
    steps.push(`slice([${starts.join(', ')}]:[${stops.join(', ')}]:[${stepsArg.join(', ')}])`);
  }
  if (r() < 0.4) {
    cur = add(cur, newInput(out));
    steps.push('add-input');
  }
  f.addOutput(dtype === 'Float' ? cur : cast(cur, dtype));
  return { fusion: f, inputs, description: `${dtype} rank ${rank}${aligned ? ' aligned' : ''} [${shape.join(', ')}]: ${steps.join(', ')} → [${out.join(', ')}]` };
}
