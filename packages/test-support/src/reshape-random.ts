// Seeded random fusions mixing reshapes with pointwise work, for codegen's simulation test
// (reshape-random.test.ts), its nvcc test and the GPU shape-ops suite (--random-reshape N).
// Each starts from one input of rank 1–3 (Float or Half, at most ~1500 elements) and applies
// 2–6 steps, each one of: a reshape to a random factorization of the element count (size-1
// dims and one -1 included at random; sizes given as numbers or, for a dim that keeps an input
// size, as `size(x, d)`), binary math with a second input of the current shape, a row
// parameter broadcast along the innermost dim, a permute, a unary op, a squeeze + unsqueeze
// through reshape, and an expanded broadcast of an earlier tensor reshaped. Outputs: the last
// tensor, and at random an intermediate of another rank; every fourth seed ends with a sum over
// some dims instead. Every case should be one pointwise kernel, or one reduction kernel
// (`segments` says so; '*' where a permute precedes the sum and forces a boundary).
import {
  abs, add, broadcast, cast, expand, Fusion, mul, neg, permute, reshape, size, sub, sum, type DataType, type EvalValue, type SizeOperand, type TensorView,
} from '@tsfuser/fusion-ir';
import { addRandomInput, randomDraws } from './random-case.js';

export interface RandomReshapeCase {
  fusion: Fusion;
  inputs: EvalValue[];
  description: string;
  /** The default registry's segments. */
  segments: string;
}

interface Shaped {
  tv: TensorView;
  sizes: number[];
}

function divisors(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n; d += 1) if (n % d === 0) out.push(d);
  return out;
}

export function randomReshapeCase(seed: number): RandomReshapeCase {
  const { r, int, pick } = randomDraws(seed);
  const dtype: DataType = pick(['Float', 'Float', 'Half'] as const);
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const newInput = (sizes: number[], dt: DataType = dtype): TensorView => addRandomInput(f, inputs, dt, sizes, r, true);
  const rank = int(1, 3);
  const sizes0 = Array.from({ length: rank }, () => pick([1, 2, 3, 4, 5, 6, 8, 12, 16, 7, 10]));
  const x = newInput(sizes0);
  let cur: Shaped = { tv: cast(x, 'Float'), sizes: sizes0 };
  const steps: string[] = [`${dtype} [${sizes0.join(',')}]`];
  const history: Shaped[] = [cur];
  const count = int(2, 6);
  for (let k = 0; k < count; k += 1) {
    const op = int(0, 6);
    const numel = cur.sizes.reduce((a, b) => a * b, 1);
    if (op === 0 || op === 1) {
      // Reshape to a random factorization of the element count.
      const target: number[] = [];
      let rest = numel;
      const parts = int(1, 4);
      for (let p = 0; p < parts - 1; p += 1) {
        const d = pick(divisors(rest));
        target.push(d);
        rest /= d;
      }
      target.push(rest);
      if (r() < 0.3) target.splice(int(0, target.length), 0, 1);
      const spec: SizeOperand[] = target.map((s, d) => (d < sizes0.length && s === sizes0[d] && r() < 0.5 ? size(x, d) : s));
      const infer = r() < 0.4 ? int(0, target.length - 1) : -1;
      if (infer >= 0 && target[infer] !== 0) spec[infer] = -1;
      cur = { tv: reshape(cur.tv, spec), sizes: target };
      steps.push(`reshape [${spec.map((s, d) => (typeof s === 'number' ? String(s) : `size(x,${d})`)).join(',')}]`);
    } else if (op === 2) {
      const y = newInput(cur.sizes);
      cur = { tv: pick([add, mul, sub])(cur.tv, cast(y, 'Float')), sizes: cur.sizes };
      steps.push('binary');
    } else if (op === 3 && cur.sizes.length > 0) {
      const inner = cur.sizes[cur.sizes.length - 1] as number;
      const w = newInput([inner], 'Float');
      cur = { tv: mul(cur.tv, broadcast(w, cur.sizes.map((_, d) => d < cur.sizes.length - 1))), sizes: cur.sizes };
      steps.push('row');
    } else if (op === 4 && cur.sizes.length > 1) {
      const dims = cur.sizes.map((_, d) => d);
      for (let i = dims.length - 1; i > 0; i -= 1) {
        const j = int(0, i);
        [dims[i], dims[j]] = [dims[j] as number, dims[i] as number];
      }
      cur = { tv: permute(cur.tv, dims), sizes: dims.map((d) => cur.sizes[d] as number) };
      steps.push(`permute [${dims.join(',')}]`);
    } else if (op === 5) {
      // An earlier tensor's row expanded along a new dim, reshaped to the current shape.
      const src = pick(history);
      const n = src.sizes.reduce((a, b) => a * b, 1);
      if (numel % n === 0 && numel > n) {
        const times = numel / n;
        const e = expand(broadcast(reshape(src.tv, [n]), [true, false]), [times, n]);
        cur = { tv: add(cur.tv, reshape(e, cur.sizes)), sizes: cur.sizes };
        steps.push(`expanded x${times}`);
      } else {
        cur = { tv: abs(cur.tv), sizes: cur.sizes };
        steps.push('abs');
      }
    } else {
      cur = { tv: neg(mul(cur.tv, 0.5)), sizes: cur.sizes };
      steps.push('unary');
    }
    history.push(cur);
  }
  // A sum over some dims at the end (reshapes before a reduction run in the reduction kernel;
  // a permute before it is segmented, so the segments are not checked then).
  // Not over size-1 (broadcast) dims: the reduction scheduler refuses those after a reshape, and
  // a sum over every dim with a broadcast operand fails to lower even without one (left open).
  const reduce = seed % 4 === 3 && cur.sizes.length > 0 && !cur.sizes.includes(1);
  if (reduce) {
    const dims = cur.sizes.map((_, d) => d).filter(() => r() < 0.5);
    const reduced = dims.length > 0 ? dims : [cur.sizes.length - 1];
    cur = { tv: sum(cur.tv, reduced), sizes: cur.sizes.filter((_, d) => !reduced.includes(d)) };
    steps.push(`sum [${reduced.join(',')}]`);
  }
  f.addOutput(dtype === 'Float' ? cur.tv : cast(cur.tv, dtype));
  const earlier = history[int(0, history.length - 2)];
  if (!reduce && r() < 0.3 && earlier !== undefined && earlier.sizes.length !== cur.sizes.length) {
    f.addOutput(earlier.tv === history[0]?.tv ? add(earlier.tv, 1) : earlier.tv);
    steps.push('out:intermediate');
  }
  const permuted = steps.some((x) => x.startsWith('permute'));
  return { fusion: f, inputs, description: steps.join(', '), segments: reduce ? (permuted ? '*' : 'reduction') : 'pointwise' };
}
