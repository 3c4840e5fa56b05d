// What the outputs of the random TorchScript fixtures (test-fixtures/torchscript/traced-random/,
// training dropout and rand_like traced and scripted by tools/torchscript/generate_graphs.py)
// must be, element by element, whatever the random numbers: PyTorch's generator state cannot be
// reproduced, so a run is checked by the form of each element and by the kept fraction / mean
// (within 5 standard deviations), and the same oracle is applied to PyTorch's committed outputs to
// show that it describes PyTorch. Used by test/torchscript-traced-random.test.ts (reference
// backend) and gpu/traced-graphs.ts (GPU).

import { HostTensor, roundToBFloat16, specialFunctions } from '@tsfuser/fusion-ir';

/** Null when `output` is a possible result of the fixture on `inputs`, else the first problem. */
export type RandomGraphOracle = (inputs: readonly HostTensor[], output: HostTensor) => string | null;

const within5Sigma = (observed: number, p: number, n: number): boolean => Math.abs(observed - p) < 5 * Math.sqrt((p * (1 - p)) / n);

/** Each element 0 or kept_i (relative tolerance rtol), and about (1 − p) of them kept. */
function dropoutForm(kept: readonly number[], base: readonly number[], out: readonly number[], p: number, rtol: number): string | null {
  let keptCount = 0;
  for (let i = 0; i < out.length; i += 1) {
    const o = out[i] as number;
    const k = kept[i] as number;
    const tol = rtol * Math.max(Math.abs(k), 1e-6) + 1e-6;
    const isKept = Math.abs(o - (base[i] as number) - k) <= tol;
    const isDropped = Math.abs(o - (base[i] as number)) <= 1e-6;
    if (!isKept && !isDropped) return `element ${i} is ${o}: neither dropped (${base[i]}) nor kept (${(base[i] as number) + k})`;
    if (isKept && !isDropped) keptCount += 1;
    else if (isKept && isDropped) keptCount += 1 - p; // |kept| ≈ 0: either; count its expectation
  }
  const fraction = keptCount / out.length;
  return within5Sigma(fraction, 1 - p, out.length) ? null : `kept fraction ${fraction.toFixed(4)}, expected ${1 - p} ± 5σ`;
}

const gelu = (v: number): number => 0.5 * v * (1 + specialFunctions.erf(v / Math.SQRT2));

export const RANDOM_GRAPH_ORACLES: Record<string, RandomGraphOracle> = {
  // F.dropout(x, 0.1, True) + r: out − r is 0 or x / 0.9.
  dropout_residual: ([x, r], out) => {
    const xs = (x as HostTensor).toNumbers();
    return dropoutForm(xs.map((v) => v / 0.9), (r as HostTensor).toNumbers(), out.toNumbers(), 0.1, 1e-5);
  },
  // F.dropout(F.gelu(x + b), 0.25, True) in bfloat16: 0 or gelu(x + b) / 0.75, rounded to bf16.
  gelu_dropout_bf16: ([x, b], out) => {
    const xs = (x as HostTensor).toNumbers();
    const bs = (b as HostTensor).toNumbers();
    const kept = xs.map((v, i) => roundToBFloat16(gelu(roundToBFloat16(v + (bs[i % bs.length] as number))) / 0.75));
    // Two bf16 roundings (and CPU PyTorch's scale rounded to bf16, 1.3359): 2^-6 relative.
    return dropoutForm(kept, new Array<number>(xs.length).fill(0), out.toNumbers(), 0.25, 2 ** -6);
  },
  // torch.rand_like(x) * x: out / x in [0, 1] (|x| > 1e-3), mean 1/2 ± 5σ.
  rand_like_scale: ([x], out) => {
    const xs = (x as HostTensor).toNumbers();
    const os = out.toNumbers();
    const u: number[] = [];
    for (let i = 0; i < xs.length; i += 1) {
      const v = xs[i] as number;
      if (Math.abs(v) <= 1e-3) continue;
      const q = (os[i] as number) / v;
      if (q < -1e-6 || q > 1 + 1e-6) return `element ${i}: ${os[i]} / ${v} = ${q} is not in [0, 1]`;
      u.push(q);
    }
    const mean = u.reduce((a, c) => a + c, 0) / u.length;
    return Math.abs(mean - 0.5) < 5 * Math.sqrt(1 / 12 / u.length) ? null : `mean of u ${mean.toFixed(4)}, expected 0.5 ± 5σ`;
  },
};

/** The oracle of a fixture file (`dropout_residual.traced.ir` → dropout_residual), or null. */
export function randomGraphOracle(file: string): RandomGraphOracle | null {
  return RANDOM_GRAPH_ORACLES[file.replace(/\.(traced|scripted)\.ir$/, '')] ?? null;
}
