// Random fusions with a reshape AFTER a reduction (issue 20: the view runs in the reduction
// kernel when it does not interfere with the schedule's merges — nvFuser's
// reductionInterferingView): one input of Float / Half / BFloat16 (cast to Float), the kept dims
// and the reduced dims laid out inner ([K..., R...]), outer ([R..., K...]) or around a reduced
// dim ([K0, R, K1]); sum, max, mean, sum with keepdim, or var_mean (welford); then a reshape of
// the kept dims — all merged, one split in two, a size-1 dim added or removed (a kept dim of
// size 1 in the input), merged then split again ([4, 6] → [2, 12]) — with sizes as numbers or,
// for a merge, from `size(x, d)`; a [K0, R, K1] layout only splits within K0 or K1 or adds a
// size-1 dim (merging K0 with K1 interferes). After it at random: a second input of the new
// shape added (its size-1 dims broadcast dims), exp, a scalar product, a cast back to the input dtype; several outputs at random
// (the reduction result itself, a second reshape of it). Every case should be one reduction
// kernel. Shared by codegen's simulation test, its nvcc check and the GPU shape-ops suite
// (--reduction-reshape-random N).
import {
  add, cast, exp, Fusion, max, mean, mul, reshape, size, sum, varMean,
  type DataType, type EvalValue, type Scalar, type SizeOperand, type TensorView,
} from '@tsfuser/fusion-ir';
import { addRandomInput, randomDraws } from './random-case.js';
import type { RandomShapeCase } from './shape-ops-random.js';

/** Whether a reshape (ViewOp) reads, directly or not, a reduction's result. */
export function hasReshapeAfterReduction(fusion: Fusion): boolean {
  const reached = new Set<unknown>();
  for (const e of fusion.exprs()) {
    const past = e.inputs.some((v) => reached.has(v));
    if (e.kind === 'ViewOp' && past) return true;
    if (past || e.kind === 'ReductionOp' || e.kind === 'WelfordOp') for (const o of e.outputs) reached.add(o);
  }
  return false;
}

type Layout = 'inner' | 'outer' | 'around';

/** Two factors of n (the first ≥ 2 where n allows), or null when n is prime or < 4. */
function factorPair(n: number, pick: <T>(xs: readonly T[]) => T): [number, number] | null {
  const fs: number[] = [];
  for (let a = 2; a < n; a += 1) if (n % a === 0) fs.push(a);
  if (fs.length === 0) return null;
  const a = pick(fs);
  return [a, n / a];
}

export function randomReductionReshapeCase(seed: number): RandomShapeCase {
  const { r, int, pick } = randomDraws(seed);
  const dtype: DataType = pick(['Float', 'Float', 'Half', 'BFloat16'] as const);
  const layout: Layout = pick(['inner', 'inner', 'outer', 'outer', 'around'] as const);
  const keptSizes = pick([[6], [4, 6], [12, 2], [3, 4], [8, 9], [2, 3, 4], [5, 7], [16, 3], [10]] as const).map((s): number => s);
  // A kept dim of size 1 the reshape may remove.
  const one = r() < 0.25;
  if (one) keptSizes.splice(int(0, keptSizes.length), 0, 1);
  const redSizes = r() < 0.25 ? [int(2, 5), int(3, 40)] : [pick([5, 17, 32, 64, 100, 257, 1000])];
  let shape: number[];
  let reducedDims: number[];
  if (layout === 'inner') {
    shape = [...keptSizes, ...redSizes];
    reducedDims = redSizes.map((_, i) => keptSizes.length + i);
  } else if (layout === 'outer') {
    shape = [...redSizes, ...keptSizes];
    reducedDims = redSizes.map((_, i) => i);
  } else {
    if (keptSizes.length < 2) keptSizes.push(pick([3, 4, 5]));
    const at = int(1, keptSizes.length - 1);
    shape = [...keptSizes.slice(0, at), ...redSizes, ...keptSizes.slice(at)];
    reducedDims = redSizes.map((_, i) => at + i);
  }
  const f = new Fusion();
  const inputs: EvalValue[] = [];
  const x0 = addRandomInput(f, inputs, dtype, shape, r);
  const x = dtype === 'Float' ? x0 : cast(x0, 'Float');
  const steps = [`${dtype} ${layout} [${shape.join(', ')}] reduce [${reducedDims.join(', ')}]`];

  const red = pick(['sum', 'max', 'mean', 'keepdim', 'var_mean'] as const);
  let res: TensorView;
  let also: TensorView | null = null;
  if (red === 'sum') res = sum(x, reducedDims);
  else if (red === 'max') res = max(x, reducedDims);
  else if (red === 'mean') res = mean(x, reducedDims);
  else if (red === 'keepdim') res = sum(x, reducedDims, true);
  else {
    const vm = varMean(x, reducedDims, 1);
    res = vm.mean;
    also = vm.var;
  }
  steps.push(red);
  // The result's sizes (keepdim: 1 at the reduced positions).
  const resSizes = red === 'keepdim' ? shape.map((s, d) => (reducedDims.includes(d) ? 1 : s)) : shape.filter((_, d) => !reducedDims.includes(d));
  const keptTotal = keptSizes.reduce((a, b) => a * b, 1);
  // Reshape targets that keep the kept groups apart.
  const options: string[] = ['split', 'unsqueeze'];
  if (layout !== 'around') options.push('merge', 'merge', 'regroup');
  if (one || red === 'keepdim') options.push('squeeze');
  let kind = pick(options);
  let newShape: SizeOperand[] = [];
  const splittable = resSizes.map((s, d) => (factorPair(s, pick) === null ? -1 : d)).filter((d) => d >= 0);
  if (kind === 'split' && splittable.length === 0) kind = 'unsqueeze';
  if (kind === 'merge') {
    const dynamic = r() < 0.3 && red !== 'keepdim';
    const keptInputDims = shape.map((_, d) => d).filter((d) => !reducedDims.includes(d));
    newShape = dynamic ? [keptInputDims.map((d): Scalar => size(x0, d)).reduce((a, b) => mul(a, b))] : [keptTotal];
    if (dynamic) steps.push('sizes from size()');
  } else if (kind === 'split') {
    const d = pick(splittable);
    const [a, b] = factorPair(resSizes[d] as number, pick) as [number, number];
    newShape = resSizes.flatMap((s, e) => (e === d ? [a, b] : [s]));
  } else if (kind === 'unsqueeze') {
    const at = int(0, resSizes.length);
    newShape = [...resSizes.slice(0, at), 1, ...resSizes.slice(at)];
  } else if (kind === 'squeeze') {
    newShape = resSizes.filter((s) => s !== 1);
    if (newShape.length === 0) newShape = [1];
  } else {
    const pair = factorPair(keptTotal, pick);
    newShape = pair === null ? [keptTotal] : [pair[1], pair[0]];
  }
  let out = reshape(res, newShape);
  steps.push(`${kind} -> [${newShape.map((s) => (typeof s === 'number' ? s : 'size()')).join(', ')}]`);
  const outSizes = newShape.map((s) => (typeof s === 'number' ? s : keptTotal));
  // Its size-1 dims are broadcast dims (the input's cache then feeds only tensors after the
  // reduction and is loaded in the result's loops: codegen loop-groups.ts).
  if (r() < 0.5) {
    const y = addRandomInput(f, inputs, dtype, outSizes, r, true);
    out = add(out, dtype === 'Float' ? y : cast(y, 'Float'));
    steps.push('+ y');
  }
  if (r() < 0.3) {
    out = exp(mul(out, 0.01));
    steps.push('exp');
  } else if (r() < 0.3) {
    out = mul(out, 0.5);
    steps.push('* 0.5');
  }
  if (dtype !== 'Float' && r() < 0.5) {
    out = cast(out, dtype);
    steps.push(`cast ${dtype}`);
  }
  f.addOutput(out);
  if (also !== null) {
    f.addOutput(reshape(also, newShape));
    steps.push('variance reshaped too');
  }
  if (r() < 0.25) {
    f.addOutput(res);
    steps.push('result output too');
  }
  return { fusion: f, inputs, description: steps.join(', ') };
}
