// Seeded random fusions mixing shape ops with pointwise and reduction work, for the CPU
// differential test (shape-ops-random.test.ts) and the GPU suite (tsfuser-shape-ops-suite
// --random N). Each fusion works on [N, M] tensors (Float or Half; N, M from 0 to ~70): binary
// math, a 0-dim full scale, an iota along a dim, a permute round trip inside a kernel, a reshape
// round trip (inside kernels, of expanded tensors too), a broadcast-in-dim row parameter, a row sum expanded
// back as an output; outputs may be views (permute, strided slice) of the result. Dead
// intermediates are left in the definitions on purpose.
import {
  add, broadcast, cast, expand, Fusion, full, iota, makeTensor, mul, permute, reshape, size, slice, sub, sum,
  type DataType, type EvalValue, type TensorView,
} from '@tsfuser/fusion-ir';
import { randomTensor } from './shape-ops-values.js';
import { randomDraws } from './random-case.js';

export interface RandomShapeCase {
  fusion: Fusion;
  inputs: EvalValue[];
  /** What it is, for failure messages. */
  description: string;
}

export function randomShapeOpsCase(seed: number): RandomShapeCase {
  const { r, pick } = randomDraws(seed);
  const dtype: DataType = pick(['Float', 'Float', 'Half'] as const);
  const n = r() < 0.05 ? 0 : 1 + Math.floor(r() * 40);
  const m = r() < 0.05 ? 0 : 1 + Math.floor(r() * 70);
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(x);
  const inputs: EvalValue[] = [randomTensor(dtype, [n, m], r)];
  const steps: string[] = [];
  const pool: TensorView[] = [cast(x, 'Float')];
  if (r() < 0.5) {
    const y = makeTensor(f, { shape: [-1, -1], dtype });
    f.addInput(y);
    inputs.push(randomTensor(dtype, [n, m], r));
    pool.push(cast(y, 'Float'));
    steps.push('y');
  }
  /** The row parameter [1, m]: not n·m elements, so never reshaped to [n, m]. */
  let row: TensorView | null = null;
  if (r() < 0.4) {
    const w = makeTensor(f, { shape: [-1] });
    f.addInput(w);
    inputs.push(randomTensor('Float', [m], r));
    row = broadcast(w, [true, false]);
    pool.push(row);
    steps.push('row');
  }
  /** Tensors that carry an expanded broadcast dim (a row sum expanded back). */
  const expanded = new Set<TensorView>();
  const count = 1 + Math.floor(r() * 5);
  for (let k = 0; k < count; k += 1) {
    const a = pick(pool);
    const op = Math.floor(r() * 6);
    let t: TensorView;
    if (op === 0) {
      t = pick([add, mul, sub])(a, pick(pool));
      steps.push('binary');
    } else if (op === 1) {
      t = mul(a, full(f, [], Math.round(r() * 8) / 8 + 0.125, 'Float'));
      steps.push('full');
    } else if (op === 2) {
      t = add(a, broadcast(iota(f, size(x, 1), Math.floor(r() * 5), 0.5, 'Float'), [true, false]));
      steps.push('iota');
    } else if (op === 3) {
      t = permute(add(permute(a, [1, 0]), 1), [1, 0]);
      steps.push('permute');
    } else if (op === 4 && n > 0 && m > 0 && a !== row) {
      // Inside a pointwise kernel (an expanded tensor's reshape too: it is no view).
      // Back to a's own sizes (a may be a [1, m] tensor made from the row: x's sizes would not fit).
      t = reshape(mul(reshape(a, [-1]), 2), [size(a, 0), size(a, 1)]);
      steps.push(expanded.has(a) ? 'reshape of expanded' : 'reshape');
    } else if (op === 4) {
      // -1 cannot be inferred from 0 elements; the row has only m.
      t = mul(a, 2);
      steps.push('binary');
    } else {
      // Not of an expanded tensor: a reduction over an expanded broadcast dim is refused by
      // every scheduler (left open).
      const plain = pool.filter((p) => !expanded.has(p));
      const src = plain.length > 0 ? pick(plain) : (pool[0] as TensorView);
      t = expand(broadcast(sum(src, [1]), [false, true]), [size(src, 0), size(src, 1)]);
      expanded.add(t);
      steps.push('rowsum');
    }
    if (op !== 5 && expanded.has(a) && (op === 3 || op === 4)) expanded.add(t);
    pool.push(t);
  }
  const last = pool[pool.length - 1] as TensorView;
  f.addOutput(dtype === 'Float' ? last : cast(last, dtype));
  const tail = r();
  if (tail < 0.25) {
    f.addOutput(permute(last, [1, 0]));
    steps.push('out:permute');
  } else if (tail < 0.5) {
    f.addOutput(slice(last, [0, 1], [n, m], [2, 1]));
    steps.push('out:slice');
  }
  return { fusion: f, inputs, description: `${dtype} [${n}, ${m}]: ${steps.join(', ')}` };
}
