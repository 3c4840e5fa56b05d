// Seeded random persistent (normalization) fusions with reshapes, for codegen's simulation test
// (persistent-reshape-random.test.ts), its nvcc test and the GPU shape-ops suite
// (--random-persistent-reshape N). Rows N = a·b and a row of H = c·d elements (at most ~3000
// elements in all); the input comes in one of the factorizations [a, b, H], [N, c, d],
// [a, b, c, d], [a, 1, b, c, d], [N·H] or [N, H] (sizes as numbers or from `size(x, d)`) and is reshaped to
// [N, H]; at random a second input of another factorization is added (reshaped too); then
// layer_norm (with or without weight and bias), rms_norm, softmax, log_softmax or x / max|x| over
// the row — or, every fifth seed, batch_norm over the rows (outer persistent); the result is
// reshaped back to a random factorization (or not) and at random cast. Dtypes Float, Half and
// BFloat16. Every case should be one persistent kernel (`segments`).
import {
  abs, add, batchNorm, broadcast, cast, Fusion, layerNorm, logSoftmax, max, mul, reshape, rmsNorm, size, softmax, truediv,
  type DataType, type EvalValue, type SizeOperand, type TensorView,
} from '@tsfuser/fusion-ir';
import { addRandomInput, randomDraws } from './random-case.js';
import type { RandomReshapeCase } from './reshape-random.js';

type Layout = 'abH' | 'Ncd' | 'abcd' | 'a1bcd' | 'flat' | 'NH';

function layoutSizes(layout: Layout, a: number, b: number, c: number, d: number): number[] {
  switch (layout) {
    case 'abH':
      return [a, b, c * d];
    case 'Ncd':
      return [a * b, c, d];
    case 'abcd':
      return [a, b, c, d];
    case 'a1bcd':
      return [a, 1, b, c, d];
    case 'flat':
      return [a * b * c * d];
    case 'NH':
      return [a * b, c * d];
    default: {
      const unreachable: never = layout;
      throw new Error(`unknown layout ${String(unreachable)}`);
    }
  }
}

export function randomPersistentReshapeCase(seed: number): RandomReshapeCase {
  const { r, int, pick } = randomDraws(seed);
  const dtype: DataType = pick(['Float', 'Float', 'Half', 'BFloat16'] as const);
  const outer = seed % 5 === 4;
  const a = int(1, 4);
  const b = outer ? int(4, 12) : int(2, 6); // ≥ 2 rows: a single row is a plain reduction
  const c = int(1, 4);
  const d = outer ? pick([3, 4, 8, 10]) : pick([4, 8, 10, 16, 24, 32, 40, 64]);
  const N = a * b;
  const H = c * d;
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const newInput = (sizes: number[]): TensorView => addRandomInput(f, inputs, dtype, sizes, r);
  const layouts: readonly Layout[] = ['abH', 'Ncd', 'abcd', 'a1bcd', 'flat', 'NH'];
  const inLayout = pick(layouts);
  const x = newInput(layoutSizes(inLayout, a, b, c, d));
  const dynamic = r() < 0.3 && inLayout === 'abH';
  const rowsShape: SizeOperand[] = dynamic ? [mul(size(x, 0), size(x, 1)), size(x, 2)] : [N, H];
  let rows = inLayout === 'NH' ? x : reshape(x, rowsShape);
  const steps = [`${dtype} ${inLayout} a=${a} b=${b} c=${c} d=${d}${dynamic ? ' (sizes from size())' : ''}`];
  if (r() < 0.35) {
    const yLayout = pick(layouts);
    const y = newInput(layoutSizes(yLayout, a, b, c, d));
    rows = add(rows, yLayout === 'NH' ? y : reshape(y, [N, H]));
    steps.push(`+ y ${yLayout}`);
  }
  let out: TensorView;
  const extra: TensorView[] = [];
  if (outer) {
    out = batchNorm(rows, null, null, null, null, 0.1, 1e-5, true).output;
    steps.push('batch_norm');
  } else {
    const op = int(0, 4);
    if (op === 0) {
      const affine = r() < 0.5;
      const w = affine ? newInput([H]) : null;
      const bias = affine ? newInput([H]) : null;
      const ln = layerNorm(rows, 1, w, bias, 1e-5);
      out = ln.output;
      if (r() < 0.3) extra.push(reshape(ln.mean, [a, b]));
      steps.push(`layer_norm${affine ? ' affine' : ''}`);
    } else if (op === 1) {
      out = rmsNorm(rows, 1, newInput([H]), 1e-6).output;
      steps.push('rms_norm');
    } else if (op === 2) {
      out = softmax(rows, 1);
      steps.push('softmax');
    } else if (op === 3) {
      out = logSoftmax(rows, 1);
      steps.push('log_softmax');
    } else {
      // x / max|x| over the row: exact reductions, so no accumulation-order rounding.
      const xf = dtype === 'Float' ? rows : cast(rows, 'Float');
      out = truediv(xf, broadcast(max(abs(xf), [1]), [false, true]));
      steps.push('x/max|x|');
    }
  }
  const outLayout = pick(layouts);
  if (outLayout !== 'NH') out = reshape(out, layoutSizes(outLayout, a, b, c, d));
  if (r() < 0.3 && out.dtype !== 'Float') out = cast(out, 'Float');
  steps.push(`-> ${outLayout}`);
  f.addOutput(out);
  for (const e of extra) f.addOutput(e);
  return { fusion: f, inputs, description: steps.join(', '), segments: outer ? 'outer_persistent' : 'inner_persistent' };
}
