// The pieces every random fusion generator draws with (resize-random.ts, reshape-random.ts,
// permute-reduction-random.ts, …): integers and picks from the one seeded generator (random.ts),
// and a fusion input with random values of its sizes. Invariant: each draw takes exactly one
// number from `r`, so a generator's cases stay the same for the same seed.
import { Fusion, makeTensor, type DataType, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { seededRandom } from './random.js';
import { randomTensor } from './shape-ops-values.js';

export interface RandomDraws {
  /** The seeded generator itself: uniform in [0, 1). */
  r: () => number;
  /** An integer in [lo, hi]. */
  int: (lo: number, hi: number) => number;
  /** One of `xs`, uniformly. */
  pick: <T>(xs: readonly T[]) => T;
}

export function randomDraws(seed: number): RandomDraws {
  const r = seededRandom(seed);
  return {
    r,
    int: (lo, hi) => lo + Math.floor(r() * (hi - lo + 1)),
    pick: <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T,
  };
}

/**
 * A new input of `f` with symbolic sizes (-1, or 1 for a size-1 dim when `broadcastOnes`), its
 * random values of `sizes` appended to `inputs`. Returns the input.
 */
export function addRandomInput(f: Fusion, inputs: EvalValue[], dtype: DataType, sizes: readonly number[], r: () => number, broadcastOnes = false): TensorView {
  const t = makeTensor(f, { shape: sizes.map((s) => (broadcastOnes && s === 1 ? 1 : -1)), dtype });
  f.addInput(t);
  inputs.push(randomTensor(dtype, sizes, r));
  return t;
}
