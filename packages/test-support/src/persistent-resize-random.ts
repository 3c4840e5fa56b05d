// Seeded random inner persistent (normalization) fusions with slice / pad / cat on the input
// side of the row (issue 20: resize ops fused into the persistent kernel), for codegen's
// simulation test (persistent-resize-random.test.ts), its nvcc check and the GPU shape-ops
// suite (--persistent-resize-random N). An input of rank 2 or 3 (Float / Half / BFloat16; odd
// row lengths, a wide row of 64–512 or a long one of 1536–3072 (several persistent batches)
// with shifts that are multiples of 8 so the kernel may vectorize), sometimes pointwise work, then one or two resize steps — a slice of the row with
// an offset and a step (negative and out-of-range bounds included), a pad with negative widths
// and a value, a cat of 2–3 inputs along the row, or a slice / pad / cat of the rows (a kept
// dim) — sometimes an input of the resized shape added (read unshifted), then softmax,
// log_softmax, layer_norm (with weight and bias of the resized length at random), rms_norm,
// x − mean(x) or x / max|x| over the row, sometimes followed by a resize of the normalized row
// that comes back into the row (RoPE's rotate-half: slice + neg + cat, times cos / sin inputs;
// a roll: cat of two slices; a window: pad of a slice, subtracted), at random cast back. Every
// case is one inner_persistent kernel (`segments`); sometimes a window (step-1 slice) of the
// normalized row is an output, beside the row or instead of it. randomOuterPersistentResizeCase:
// the same for outer persistent (batch_norm-like) fusions.
import {
  abs, add, broadcast, cast, cat, Fusion, layerNorm, logSoftmax, max, mul, neg, pad, rmsNorm, rsqrt, slice, softmax, sub, sum, truediv,
  type DataType, type EvalValue, type TensorView,
} from '@tsfuser/fusion-ir';
import { addRandomInput, randomDraws, type RandomDraws } from './random-case.js';
import type { RandomReshapeCase } from './reshape-random.js';

function sliceLength(size: number, start: number, stop: number, step: number): number {
  const norm = (i: number): number => Math.min(Math.max(i < 0 ? i + size : i, 0), size);
  const a = norm(start);
  return Math.ceil((Math.max(norm(stop), a) - a) / step);
}

interface Resized {
  tv: TensorView;
  shape: number[];
  step: string;
}

/**
 * One slice / pad / cat of `cur` (shape `shape`) along dim `d`, leaving at least `minN`
 * elements (`shape[d]` ≥ minN); `quantum` divides every shift along the row (wide rows).
 */
function resizeStep(draws: RandomDraws, cur: TensorView, shape: readonly number[], d: number, quantum: number, minN: number, newInput: (s: readonly number[]) => TensorView): Resized {
  const { r, int, pick } = draws;
  const rank = shape.length;
  const size = shape[d] as number;
  const kind = pick(['slice', 'pad', 'cat'] as const);
  let n = 0;
  if (kind === 'slice') {
    for (let tries = 0; tries < 8; tries += 1) {
      const step = quantum > 1 ? 1 : pick([1, 1, 2, 3]);
      const start = quantum > 1 ? quantum * int(0, Math.floor(size / quantum) - 1) : pick([0, int(0, size - 1), -int(1, size + 2), size + 3]);
      const stop = quantum > 1 ? pick([size, -quantum * int(0, 2), 1000]) : pick([size, int(1, size + 4), -int(0, size - 1), 1000]);
      n = sliceLength(size, start, stop, step);
      if (n < minN) continue;
      const tv = slice(cur, shape.map((_, e) => (e === d ? start : 0)), shape.map((s, e) => (e === d ? stop : s)), shape.map((_, e) => (e === d ? step : 1)));
      return { tv, shape: shape.map((s, e) => (e === d ? n : s)), step: `slice(d${d} ${start}:${stop}:${step})` };
    }
    const tv = slice(cur, shape.map(() => 0), shape, shape.map(() => 1));
    return { tv, shape: [...shape], step: `slice(d${d} whole)` };
  }
  if (kind === 'pad') {
    let left = quantum * int(-1, 2);
    let right = quantum * int(-1, 2);
    if (size + left + right < minN || -left >= size || -right >= size || -(left + right) >= size) [left, right] = [quantum * int(0, 2), quantum * int(1, 2)];
    const widths = new Array<number>(2 * (rank - d)).fill(0);
    widths[2 * (rank - 1 - d)] = left;
    widths[2 * (rank - 1 - d) + 1] = right;
    const value = pick([0, 1.5, -2]);
    n = size + left + right;
    return { tv: pad(cur, widths, value), shape: shape.map((s, e) => (e === d ? n : s)), step: `pad(d${d} ${left},${right} value ${value})` };
  }
  const pieces = int(2, 3);
  const parts: TensorView[] = [cur];
  n = size;
  for (let p = 1; p < pieces; p += 1) {
    const w = quantum > 1 ? quantum * pick([1, 2, 8]) : pick([1, 2, 5, 6]);
    const part = newInput(shape.map((s, e) => (e === d ? w : s)));
    parts.push(r() < 0.2 ? neg(part) : part);
    n += w;
  }
  if (r() < 0.5) parts.reverse();
  return { tv: cat(parts, d), shape: shape.map((s, e) => (e === d ? n : s)), step: `cat(d${d} of ${pieces})` };
}

export function randomPersistentResizeCase(seed: number): RandomReshapeCase {
  const draws = randomDraws(seed);
  const { r, int, pick } = draws;
  const dtype: DataType = pick(['Float', 'Float', 'Half', 'BFloat16'] as const);
  const rank = pick([2, 2, 3]);
  const size = pick(['odd', 'odd', 'odd', 'wide', 'wide', 'long'] as const);
  const wide = size !== 'odd';
  const row = size === 'long' ? pick([1536, 2048, 3072]) : wide ? pick([64, 128, 256, 512]) : pick([3, 5, 7, 9, 13, 17, 23, 31]) + int(0, 40);
  let shape = Array.from({ length: rank }, (_, d) => (d === rank - 1 ? row : size === 'long' ? 2 : int(2, wide ? 3 : 5)));
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const steps: string[] = [`${dtype}`];
  const newInput = (s: readonly number[]): TensorView => cast(addRandomInput(f, inputs, dtype, s, r), 'Float');
  let cur = newInput(shape);
  steps.push(`[${shape.join(', ')}]`);
  if (r() < 0.4) {
    cur = abs(mul(cur, 0.5));
    steps.push('abs');
  }
  const resizes = r() < 0.25 ? 2 : 1;
  for (let k = 0; k < resizes; k += 1) {
    // Mostly the row; sometimes a kept dim (the rows), never leaving fewer than 2 rows.
    const d = r() < 0.7 ? rank - 1 : int(0, rank - 2);
    // A kept dim keeps ≥ 2 entries (≥ 2 rows: a single row is a plain reduction).
    const step = resizeStep(draws, cur, shape, d, wide && d === rank - 1 ? 8 : 1, d === rank - 1 ? 1 : 2, newInput);
    cur = step.tv;
    shape = step.shape;
    steps.push(step.step);
  }
  if (r() < 0.3) {
    cur = add(cur, newInput(shape));
    steps.push('add-input');
  }
  const H = shape[rank - 1] as number;
  const last = rank - 1;
  const keep = shape.map((_, d) => d === last);
  let out: TensorView;
  const op = int(0, 5);
  if (op === 0) {
    const affine = r() < 0.5;
    out = layerNorm(cur, 1, affine ? newInput([H]) : null, affine ? newInput([H]) : null, 1e-5).output;
    steps.push(`layer_norm${affine ? ' affine' : ''}`);
  } else if (op === 1) {
    out = rmsNorm(cur, 1, newInput([H]), 1e-6).output;
    steps.push('rms_norm');
  } else if (op === 2) {
    out = softmax(cur, last);
    steps.push('softmax');
  } else if (op === 3) {
    out = logSoftmax(cur, last);
    steps.push('log_softmax');
  } else if (op === 4) {
    out = sub(cur, broadcast(sum(cur, [last]), keep));
    steps.push('x - sum(x)');
  } else {
    out = truediv(cur, broadcast(max(abs(cur), [last]), keep));
    steps.push('x/max|x|');
  }
  if (r() < 0.4) {
    // A resize of the normalized row that comes back into the row (read at shifted indices,
    // recomputed there from a re-read of the inputs; the row's per-row statistics broadcast).
    const y = out.dtype === 'Float' ? out : cast(out, 'Float');
    const sliceFrom = (t: TensorView, a: number, b: number): TensorView => slice(t, shape.map((_, e) => (e === last ? a : 0)), shape.map((s, e) => (e === last ? b : s)), shape.map(() => 1));
    const post = H >= 2 && H % 2 === 0 ? pick(['rope', 'roll', 'window'] as const) : pick(['roll', 'window'] as const);
    const q = wide ? 8 : 1;
    if (post === 'rope') {
      const rot = cat([neg(sliceFrom(y, H / 2, H)), sliceFrom(y, 0, H / 2)], last);
      out = add(mul(y, newInput(shape)), mul(rot, newInput(shape)));
      steps.push('rotate-half (RoPE)');
    } else if (post === 'roll' && H > q) {
      const k = q * int(1, Math.floor((H - 1) / q));
      out = add(y, mul(cat([sliceFrom(y, k, H), sliceFrom(y, 0, k)], last), 0.5));
      steps.push(`roll ${k}`);
    } else {
      const a = q * int(0, Math.floor((H - 1) / q));
      const b = Math.min(H, a + q * int(1, 4));
      const widths = new Array<number>(2).fill(0);
      widths[0] = a;
      widths[1] = H - b;
      out = sub(y, pad(sliceFrom(y, a, b), widths, 0.25));
      steps.push(`window ${a}:${b}`);
    }
  }
  if (dtype !== 'Float' && r() < 0.6) out = cast(out, dtype);
  if (r() < 0.3) {
    // A window of the normalized row written as an output (stored at the shifted index), beside
    // the whole row or instead of it.
    const q = wide ? 8 : 1;
    const a = q * int(0, Math.floor((H - 1) / q));
    const b = Math.min(H, a + q * int(1, 6));
    // Sometimes the rows are windowed too (a kept dim: nothing is read shifted for an output).
    const rowStart = r() < 0.3 && (shape[0] as number) > 1 ? 1 : 0;
    const window = slice(out, shape.map((_, e) => (e === last ? a : e === 0 ? rowStart : 0)), shape.map((s, e) => (e === last ? b : s)), shape.map(() => 1));
    if (r() < 0.5) f.addOutput(out);
    f.addOutput(window);
    steps.push(`output window ${a}:${b}${rowStart > 0 ? ', rows 1:' : ''}`);
    return { fusion: f, inputs, description: `${steps.join(', ')} → [${shape.join(', ')}]`, segments: 'inner_persistent' };
  }
  f.addOutput(out);
  return { fusion: f, inputs, description: `${steps.join(', ')} → [${shape.join(', ')}]`, segments: 'inner_persistent' };
}

/**
 * Outer persistent (batch_norm-like, reduced over the rows) fusions with slice / pad / cat:
 * an input [R, C] (R 4–40 rows reduced, C 3–20 columns, or tall: R 300–700, C 3–6), sometimes
 * pointwise work, one resize
 * step of the rows or the columns on the input side (a cat of 2–3 inputs, a pad, a slice),
 * sometimes an input of the resized shape added, then x − mean(x, 0), x / max|x| over dim 0 or
 * (x − mean)·rsqrt(var + eps) over dim 0, sometimes a window of the rows of the result as an
 * output (stored at the shifted index), at random cast back. Every case is one
 * outer_persistent kernel (`segments`).
 */
export function randomOuterPersistentResizeCase(seed: number): RandomReshapeCase {
  const draws = randomDraws(seed);
  const { r, int, pick } = draws;
  const dtype: DataType = pick(['Float', 'Float', 'Half', 'BFloat16'] as const);
  // Sometimes tall (several persistent batches per thread).
  let shape = r() < 0.3 ? [int(300, 700), int(3, 6)] : [int(4, 40), int(3, 20)];
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const steps: string[] = [`${dtype} [${shape.join(', ')}]`];
  const newInput = (s: readonly number[]): TensorView => cast(addRandomInput(f, inputs, dtype, s, r), 'Float');
  let cur = newInput(shape);
  if (r() < 0.4) {
    cur = abs(mul(cur, 0.5));
    steps.push('abs');
  }
  const d = int(0, 1);
  // ≥ 2 columns kept, ≥ 2 rows reduced.
  const step = resizeStep(draws, cur, shape, d, 1, 2, newInput);
  cur = step.tv;
  shape = step.shape;
  steps.push(step.step);
  if (r() < 0.3) {
    cur = add(cur, newInput(shape));
    steps.push('add-input');
  }
  const keep = [true, false];
  const op = int(0, 2);
  const mean0 = (t: TensorView): TensorView => truediv(broadcast(sum(t, [0]), keep), shape[0] as number);
  let out: TensorView;
  if (op === 0) {
    out = sub(cur, mean0(cur));
    steps.push('x - mean(x, 0)');
  } else if (op === 1) {
    out = truediv(cur, broadcast(max(abs(cur), [0]), keep));
    steps.push('x/max|x| over 0');
  } else {
    const c = sub(cur, mean0(cur));
    out = mul(c, rsqrt(add(mean0(mul(c, c)), 1e-5)));
    steps.push('(x - mean)·rsqrt(var) over 0');
  }
  if (dtype !== 'Float' && r() < 0.6) out = cast(out, dtype);
  const rows = shape[0] as number;
  if (r() < 0.3) {
    const a = int(0, rows - 1);
    const b = Math.min(rows, a + int(1, 6));
    const cols = shape[1] as number;
    const c0 = r() < 0.3 ? int(0, cols - 1) : 0;
    const window = slice(out, [a, c0], [b, cols], [1, 1]);
    if (r() < 0.5) f.addOutput(out);
    f.addOutput(window);
    steps.push(`output rows ${a}:${b}, columns ${c0}:`);
  } else {
    f.addOutput(out);
  }
  return { fusion: f, inputs, description: `${steps.join(', ')} → [${shape.join(', ')}]`, segments: 'outer_persistent' };
}

/**
 * Inner-outer persistent (layer_norm backward-like) fusions with slice / pad / cat on the input
 * side: x [N, H0] resized along the row to [N, H] (a pad, a slice, a cat with a second input),
 * grad_out [N, H] (sometimes itself a slice of a wider input), mean / rstd [N] and a weight [H];
 *   xhat = (x − mean)·rstd, g = grad_out·weight,
 *   grad_input = rstd·(g − sum(g, 1)/H − xhat·sum(g·xhat, 1)/H), sum(grad_out·xhat, 0), sum(grad_out, 0).
 * Float / Half / BFloat16 rows. Every case is one inner_outer_persistent kernel (`segments`).
 */
export function randomInnerOuterPersistentResizeCase(seed: number): RandomReshapeCase {
  const draws = randomDraws(seed);
  const { r, int, pick } = draws;
  const dtype: DataType = pick(['Float', 'Float', 'Half', 'BFloat16'] as const);
  const N = int(4, 40);
  const wide = r() < 0.4;
  const H0 = wide ? pick([64, 128, 256]) : int(3, 40);
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const newInput = (s: readonly number[], dt: DataType = dtype): TensorView => cast(addRandomInput(f, inputs, dt, s, r), 'Float');
  const x0 = newInput([N, H0]);
  const step = resizeStep(draws, x0, [N, H0], 1, wide ? 8 : 1, 2, (s) => newInput(s));
  const x = step.tv;
  const H = step.shape[1] as number;
  const steps = [`${dtype} [${N}, ${H0}]`, step.step];
  let go: TensorView;
  if (r() < 0.3) {
    const k = wide ? 8 : int(1, 3);
    go = slice(newInput([N, H + k]), [0, k], [N, H + k], [1, 1]);
    steps.push(`grad_out = slice(d1 ${k}:)`);
  } else {
    go = newInput([N, H]);
  }
  const mean = newInput([N], 'Float');
  const rstdIn = newInput([N], 'Float');
  const w = newInput([H]);
  const keepRows = [false, true];
  const rstd = broadcast(rstdIn, keepRows);
  const xhat = mul(sub(x, broadcast(mean, keepRows)), rstd);
  const g = mul(go, broadcast(w, [true, false]));
  const a = broadcast(sum(mul(g, xhat), [1]), keepRows);
  const b = broadcast(sum(g, [1]), keepRows);
  const gi = mul(sub(sub(g, truediv(b, H)), truediv(mul(xhat, a), H)), rstd);
  f.addOutput(dtype === 'Float' ? gi : cast(gi, dtype));
  f.addOutput(sum(mul(go, xhat), [0]));
  f.addOutput(sum(go, [0]));
  return { fusion: f, inputs, description: `${steps.join(', ')} → [${N}, ${H}], layer_norm backward`, segments: 'inner_outer_persistent' };
}
