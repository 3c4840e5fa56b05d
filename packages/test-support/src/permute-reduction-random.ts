// Random fusions with a permute inside reduction and normalization work (issue 20, "permute in
// every scheduler"): an input of rank 3 or 4, pointwise work, a permute of the outer dims (the
// innermost dim stays innermost), pointwise work with a second input given in the permuted
// shape, then a reduction over the innermost dim or an outer dim, a softmax, a layer_norm or an
// rms_norm over the innermost dim, or a centering over every outer dim (batch_norm-like), and
// sometimes a permute of the result's outer dims. Shared by
// codegen's simulation test (each case one reduction or persistent kernel, simulated against the
// reference evaluator) and its nvcc check.
import {
  abs, add, broadcast, cast, exp, Fusion, layerNorm, max, mul, permute, rmsNorm, softmax, sub, sum, truediv, type DataType, type EvalValue, type TensorView,
} from '@tsfuser/fusion-ir';
import { addRandomInput, randomDraws } from './random-case.js';
import type { RandomShapeCase } from './shape-ops-random.js';

/** A random permutation of dims 0 … rank-2 with the last dim kept last (not the identity when rank > 2). */
function outerPermutation(rank: number, r: () => number): number[] {
  const outer = Array.from({ length: rank - 1 }, (_, d) => d);
  for (let tries = 0; tries < 8; tries += 1) {
    for (let i = outer.length - 1; i > 0; i -= 1) {
      const j = Math.floor(r() * (i + 1));
      [outer[i], outer[j]] = [outer[j] as number, outer[i] as number];
    }
    if (outer.some((d, i) => d !== i)) break;
  }
  return [...outer, rank - 1];
}

export function randomPermuteReductionCase(seed: number): RandomShapeCase {
  const { r, int, pick } = randomDraws(seed);
  const dtype: DataType = pick(['Float', 'Float', 'Half', 'BFloat16'] as const);
  const rank = pick([3, 3, 4]);
  const shape = Array.from({ length: rank }, (_, d) => (d === rank - 1 ? pick([8, 33, 64, 128]) : int(1, rank === 4 ? 5 : 9)));
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const input = (sizes: readonly number[]): TensorView => cast(addRandomInput(f, inputs, dtype, sizes, r), 'Float');
  const steps: string[] = [];
  let cur = input(shape);
  if (r() < 0.5) {
    cur = exp(mul(cur, 0.25));
    steps.push('exp');
  }
  const p = outerPermutation(rank, r);
  cur = permute(cur, p);
  const permuted = p.map((d) => shape[d] as number);
  steps.push(`permute[${p.join(',')}]`);
  if (r() < 0.5) {
    cur = add(cur, input(permuted));
    steps.push('add-input');
  }
  const kind = int(0, 5);
  let out: TensorView;
  let outRank = rank;
  if (kind === 0) {
    out = sum(cur, [rank - 1]);
    outRank = rank - 1;
    steps.push('sum(inner)');
  } else if (kind === 1) {
    const d = int(0, rank - 2);
    out = max(sub(abs(cur), 1), [d]);
    outRank = rank - 1;
    steps.push(`max(d${d})`);
  } else if (kind === 2) {
    out = softmax(cur, rank - 1);
    steps.push('softmax');
  } else if (kind === 3) {
    out = layerNorm(cur, 1).output;
    steps.push('layer_norm');
  } else if (kind === 4) {
    out = rmsNorm(cur, 1, null, 1e-6).output;
    steps.push('rms_norm');
  } else {
    // Centered over every outer dim (batch_norm-like: the outer persistent scheduler's pattern).
    const outer = Array.from({ length: rank - 1 }, (_, d) => d);
    const count = permuted.slice(0, rank - 1).reduce((a, b) => a * b, 1);
    const mean = truediv(sum(cur, outer), count);
    out = sub(cur, broadcast(mean, permuted.map((_, d) => d < rank - 1)));
    steps.push('minus mean over outer dims');
  }
  if (outRank >= 3 && r() < 0.4) {
    const q = outerPermutation(outRank, r);
    out = permute(out, q);
    steps.push(`permute[${q.join(',')}]`);
  }
  f.addOutput(cast(out, dtype));
  return { fusion: f, inputs, description: `${dtype} [${shape.join(', ')}]: ${steps.join(' → ')}` };
}
