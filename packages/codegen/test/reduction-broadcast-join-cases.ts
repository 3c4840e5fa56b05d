// Fixture fusions for the reduction kernels that join an input with size-1 (broadcast) dims to
// the reduction's result after the reduction (sum(x, [2]) broadcast to [1, B, S, 1] plus a
// [1, B, S, 1] input, …): the input's cache only feeds tensors after the reduction, so it sits
// in the result's loops and its broadcast dims do not iterate (loop-groups.ts). Broadcast dims
// in several positions, keepdim sums, outer and grid reductions, mean / max / var_mean, Half and
// BFloat16 with casts, odd sizes (predicated rows), an input read before and after the
// reduction. Shared by the simulation test and the nvcc check.
import { add, broadcast, cast, exp, expand, Fusion, makeTensor, max, mean, mul, size, sum, varMean, type DataType, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { randomTensor, seeded } from './shape-ops-simulation.js';

export interface BroadcastJoinCase {
  label: string;
  fusion: Fusion;
  inputs: EvalValue[];
  /** Whether the kernel loads input 1 (y, kernel parameter T1) outside every loop. */
  yOutsideLoops: boolean;
  /** The segments the fusion is cut into. */
  segments: string[];
}

/** An input of symbolic sizes (1 stays a size-1 broadcast dim) with random values. */
function input(f: Fusion, inputs: EvalValue[], dtype: DataType, sizes: readonly number[], r: () => number): TensorView {
  const t = makeTensor(f, { shape: sizes.map((s) => (s === 1 ? 1 : -1)), dtype });
  f.addInput(t);
  inputs.push(randomTensor(dtype, sizes, r));
  return t;
}

const toFloat = (t: TensorView): TensorView => (t.dtype === 'Float' ? t : cast(t, 'Float'));
const back = (t: TensorView, dtype: DataType): TensorView => (dtype === 'Float' ? t : cast(t, dtype));

/**
 * x of `xSizes` reduced over `axes` (result broadcast with `bcast` when given), plus y of
 * `ySizes`, optionally through `after`; one output.
 */
function joined(
  label: string,
  dtype: DataType,
  xSizes: readonly number[],
  ySizes: readonly number[],
  reduce: (x: TensorView) => TensorView,
  bcast: readonly boolean[] | null,
  seed: number,
  after: (t: TensorView) => TensorView = (t) => t,
): BroadcastJoinCase {
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const r = seeded(seed);
  const x = input(f, inputs, dtype, xSizes, r);
  const y = input(f, inputs, dtype, ySizes, r);
  const t = reduce(toFloat(x));
  f.addOutput(back(after(add(bcast === null ? t : broadcast(t, bcast), toFloat(y))), dtype));
  return { label: `${label} (${dtype}, x [${xSizes.join(', ')}], y [${ySizes.join(', ')}]; seed ${seed})`, fusion: f, inputs, yOutsideLoops: true, segments: ['reduction'] };
}

/** The cases, input values drawn from `base` + a per-case offset (named in each label). */
export function broadcastJoinCases(base: number): BroadcastJoinCase[] {
  const cases: BroadcastJoinCase[] = [];
  for (const dtype of ['Float', 'Half', 'BFloat16'] as const) {
    // The reported case: [B, S] broadcast to [1, B, S, 1] + a [1, B, S, 1] input.
    cases.push(joined('sum inner, [1, B, S, 1]', dtype, [4, 6, 99], [1, 4, 6, 1], (x) => sum(x, [2]), [true, false, false, true], base + 1));
    cases.push(joined('sum inner, [1, B, S, 1], odd rows', dtype, [5, 7, 130], [1, 5, 7, 1], (x) => sum(x, [2]), [true, false, false, true], base + 2));
  }
  // No broadcast dims in y (worked before).
  cases.push(joined('sum inner, y [B, S]', 'Float', [4, 6, 99], [4, 6], (x) => sum(x, [2]), null, base + 3));
  // Broadcast dims in other positions.
  cases.push(joined('sum inner, [B, 1, S]', 'Float', [3, 5, 64], [3, 1, 5], (x) => sum(x, [2]), [false, true, false], base + 4));
  cases.push(joined('sum inner, [B, S, 1]', 'Float', [3, 5, 64], [3, 5, 1], (x) => sum(x, [2]), [false, false, true], base + 5));
  cases.push(joined('sum inner, [1, 1, B, S]', 'Float', [3, 5, 17], [1, 1, 3, 5], (x) => sum(x, [2]), [true, true, false, false], base + 6));
  cases.push(joined('sum inner, [B, 1, S, 1, 1]', 'BFloat16', [3, 5, 200], [3, 1, 5, 1, 1], (x) => sum(x, [2]), [false, true, false, true, true], base + 7));
  // keepdim: the result's reduced dim is a broadcast.
  cases.push(joined('keepdim sum inner + [B, S, 1]', 'Float', [4, 6, 99], [4, 6, 1], (x) => sum(x, [2], true), null, base + 8));
  cases.push(joined('keepdim sum inner + [1, S, 1]', 'Float', [4, 6, 99], [1, 6, 1], (x) => sum(x, [2], true), null, base + 9));
  cases.push(joined('keepdim sum inner, [1, B, S, 1, 1]', 'Half', [4, 6, 99], [1, 4, 6, 1, 1], (x) => sum(x, [2], true), [true, false, false, false, true], base + 10));
  // Outer reductions.
  cases.push(joined('sum outer, [1, B, S, 1]', 'Float', [40, 4, 6], [1, 4, 6, 1], (x) => sum(x, [0]), [true, false, false, true], base + 11));
  cases.push(joined('sum outer, [B, 1, S]', 'BFloat16', [33, 5, 7], [5, 1, 7], (x) => sum(x, [0]), [false, true, false], base + 12));
  cases.push(joined('keepdim sum outer + [1, B, 1]', 'Float', [33, 5, 7], [1, 5, 1], (x) => sum(x, [0, 2], true), null, base + 13));
  cases.push(joined('keepdim sum outer + [1, 1, S]', 'Float', [33, 5, 7], [1, 1, 7], (x) => sum(x, [0], true), null, base + 14));
  // Other reductions and work after the join.
  cases.push(joined('mean inner, [1, B, S, 1], exp', 'Float', [4, 6, 257], [1, 4, 6, 1], (x) => mean(x, [2]), [true, false, false, true], base + 15, (t) => exp(mul(t, 0.1))));
  cases.push(joined('max inner, [B, 1, S]', 'Half', [4, 6, 1000], [4, 1, 6], (x) => max(x, [2]), [false, true, false], base + 16));
  cases.push(joined('var_mean inner, [1, B, S, 1]', 'Float', [4, 6, 100], [1, 4, 6, 1], (x) => varMean(x, [2], 1).var, [true, false, false, true], base + 17));
  cases.push(joined('sum over two inner dims, [1, B, 1]', 'Float', [5, 6, 7], [1, 5, 1], (x) => sum(x, [1, 2]), [true, false, true], base + 18));
  // A grid reduction (blockIdx.y over the row).
  cases.push(joined('grid sum inner, [1, B, 1]', 'Float', [4, 200000], [1, 4, 1], (x) => sum(x, [1]), [true, false, true], base + 19));
  // A full reduction: the result [1, 1] plus a [1, 1] input.
  cases.push(joined('full sum, [1, 1]', 'Float', [7, 300], [1, 1], (x) => sum(x, [0, 1]), [true, true], base + 20));
  // y read before the reduction (x + y) and after it (result + y): its cache feeds both.
  // (A row of 99 is neither vectorized nor unrolled; 256 Float rows are vectorized; Half rows of
  // 1000 unrolled.)
  for (const [dtype, h, seed] of [['Float', 99, 21], ['Float', 256, 23], ['Half', 1000, 24], ['BFloat16', 4096, 25]] as const) {
    const f = new Fusion();
    const inputs: EvalValue[] = [];
    const r = seeded(base + seed);
    const x = toFloat(input(f, inputs, dtype, [4, 6, h], r));
    const y = toFloat(input(f, inputs, dtype, [4, 6, 1], r));
    f.addOutput(back(add(sum(add(x, y), [2], true), y), dtype));
    cases.push({ label: `y [B, S, 1] read before and after the reduction (${dtype}, rows of ${h}; seed ${base + seed})`, fusion: f, inputs, yOutsideLoops: true, segments: ['reduction'] });
  }
  // An expanded broadcast summed over its expanded dim, the result joined with y [B, 1].
  {
    const f = new Fusion();
    const inputs: EvalValue[] = [];
    const r = seeded(base + 27);
    const x = input(f, inputs, 'Float', [6, 70], r);
    const y = input(f, inputs, 'Float', [6, 1], r);
    f.addOutput(add(sum(mul(x, expand(y, [-1, size(x, 1)])), [1], true), y));
    cases.push({ label: `x * y [B, 1] expanded over the row, summed, + y (Float; seed ${base + 27})`, fusion: f, inputs, yOutsideLoops: true, segments: ['reduction'] });
  }
  // The same join with the reduced dim as a broadcast of y before the reduction only.
  {
    const f = new Fusion();
    const inputs: EvalValue[] = [];
    const r = seeded(base + 26);
    const x = input(f, inputs, 'Float', [8, 512], r);
    const y = input(f, inputs, 'Float', [1, 512], r);
    const z = input(f, inputs, 'Float', [8, 1], r);
    f.addOutput(add(sum(mul(x, y), [1], true), z));
    cases.push({ label: `x * y [1, H] summed (vectorized), + z [B, 1] (Float; seed ${base + 26})`, fusion: f, inputs, yOutsideLoops: false, segments: ['reduction'] });
  }
  // y joined after the reduction and also an output of its own (y * 2).
  {
    const f = new Fusion();
    const inputs: EvalValue[] = [];
    const r = seeded(base + 22);
    const x = input(f, inputs, 'Float', [4, 6, 99], r);
    const y = input(f, inputs, 'Float', [1, 4, 6, 1], r);
    f.addOutput(add(broadcast(sum(x, [2]), [true, false, false, true]), y));
    f.addOutput(mul(y, 2));
    cases.push({ label: `y [1, B, S, 1] joined after the reduction and y * 2 an output (Float; seed ${base + 22})`, fusion: f, inputs, yOutsideLoops: true, segments: ['reduction', 'pointwise'] });
  }
  return cases;
}
