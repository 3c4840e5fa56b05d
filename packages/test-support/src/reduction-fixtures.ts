// Reduction fusions for codegen tests and the GPU reduction suite: named fixtures (inner,
// outer, multi-axis, keepdim, every float dtype, sizes 1 / odd / 0, pointwise before and
// after; sum/max/min/prod and the Welford ops var_mean and welford) and a seeded generator of
// random single-reduction fusions with their sizes.
import {
  add, binaryOp, broadcast, cast, Fusion, makeTensor, max, min, mul, prod, sum, unaryOp, varMean, welford,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, PointwiseScheduler, ReductionScheduler, SchedulerRegistry, type RuntimeInfo } from '@tsfuser/scheduler';

/** Pointwise + a reduction scheduler that also takes outputs computed before the reduction. */
export function reductionRegistry(): SchedulerRegistry {
  return new SchedulerRegistry([new PointwiseScheduler(), new ReductionScheduler({ preReductionOutputs: true })]);
}

/**
 * var_mean: torch.var_mean (outputs var, then mean; correction 1); welford: the raw WelfordOp
 * (outputs avg, varSum and the count cast to Int). Both are one WelfordOp.
 */
export type ReductionKind = 'sum' | 'max' | 'min' | 'prod' | 'var_mean' | 'welford';

export interface ReductionCase {
  name: string;
  fusion: Fusion;
  /** Sizes of each fusion input (contiguous). */
  sizes: number[][];
  info: RuntimeInfo;
  op: ReductionKind;
  /** Merged reduction extent (for tolerances). */
  reductionSize: number;
}

export interface ReductionSpec {
  op: ReductionKind;
  dtype: DataType;
  shape: number[];
  axes: number[];
  keepdim?: boolean;
  /** Pointwise work before the reduction: `x * 2 + y` with a second input y of `yShape`. */
  pre?: 'none' | 'scale' | 'add' | 'exp' | 'bias';
  /** Pointwise work after: `r * 3`, `r + b` with b over the kept dims, or a cast to Float. */
  post?: 'none' | 'scale' | 'bias' | 'cast';
  /** The pre-reduction tensor is an output too (written inside the reduction loops). */
  preOutput?: boolean;
}

/** The reduction's outputs; the first one gets the `post` epilogue. */
const REDUCE: Record<ReductionKind, (t: TensorView, axes: number[], keepdim: boolean) => TensorView[]> = {
  sum: (t, a, k) => [sum(t, a, k)],
  max: (t, a, k) => [max(t, a, k)],
  min: (t, a, k) => [min(t, a, k)],
  prod: (t, a, k) => [prod(t, a, k)],
  var_mean: (t, a, k) => {
    const r = varMean(t, a, 1, k);
    return [r.var, r.mean];
  },
  welford: (t, a, k) => {
    if (k) {
      // welford has no keepdim: a keepdim welford case is a var_mean with population variance
      const r = varMean(t, a, 0, true);
      return [r.var, r.mean];
    }
    const w = welford(t, a);
    return [w.avg, w.varSum, cast(w.n, 'Int')];
  },
};

/** Whether a kind reduces with a WelfordOp. */
export function isWelfordKind(op: ReductionKind): boolean {
  return op === 'var_mean' || op === 'welford';
}

export function buildReduction(name: string, spec: ReductionSpec): ReductionCase {
  const fusion = new Fusion();
  const { shape, axes, dtype } = spec;
  const keepdim = spec.keepdim ?? false;
  const x = makeTensor(fusion, { shape: shape.map(() => -1), dtype });
  fusion.addInput(x);
  const sizes: number[][] = [shape];
  let t: TensorView = x;
  switch (spec.pre ?? 'none') {
    case 'none':
      break;
    case 'scale':
      t = mul(t, 2);
      break;
    case 'add': {
      const y = makeTensor(fusion, { shape: shape.map(() => -1), dtype });
      fusion.addInput(y);
      sizes.push(shape);
      t = add(t, y);
      break;
    }
    case 'exp':
      t = unaryOp('exp', unaryOp('neg', unaryOp('abs', t)));
      break;
    case 'bias': {
      // a bias over the innermost dim, broadcast along the others
      const b = makeTensor(fusion, { shape: [-1], dtype });
      fusion.addInput(b);
      sizes.push([shape[shape.length - 1] ?? 1]);
      t = binaryOp('sub', t, broadcast(b, shape.map((_, d) => d !== shape.length - 1)));
      break;
    }
  }
  if (spec.preOutput === true && t !== x) fusion.addOutput(t);
  const [first, ...others] = REDUCE[spec.op](t, axes, keepdim);
  let r = first as TensorView;
  const norm = axes.map((a) => (a < 0 ? a + shape.length : a));
  const kept = shape.filter((_, d) => !norm.includes(d));
  switch (spec.post ?? 'none') {
    case 'none':
      break;
    case 'scale':
      r = mul(r, 3);
      break;
    case 'bias': {
      if (keepdim || kept.length === 0) {
        r = mul(r, 0.5);
        break;
      }
      const b = makeTensor(fusion, { shape: kept.map(() => -1), dtype: r.dtype });
      fusion.addInput(b);
      sizes.push(kept);
      r = add(r, b);
      break;
    }
    case 'cast':
      r = cast(r, dtype === 'Double' ? 'Float' : 'Double');
      break;
  }
  fusion.addOutput(r);
  for (const o of others) fusion.addOutput(o);
  const reductionSize = norm.reduce((acc, d) => acc * (shape[d] ?? 1), 1);
  const info = makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s })));
  return { name, fusion, sizes, info, op: spec.op, reductionSize };
}

/** Named fixtures: at least one per reduction shape, dtype and size edge case. */
export function reductionFixtures(): ReductionCase[] {
  const out: ReductionCase[] = [];
  const add1 = (name: string, spec: ReductionSpec): void => {
    out.push(buildReduction(name, spec));
  };
  for (const dtype of ['Float', 'Half', 'BFloat16', 'Double'] as const) {
    add1(`inner_sum_${dtype}`, { op: 'sum', dtype, shape: [128, 4096], axes: [1] });
    add1(`outer_sum_${dtype}`, { op: 'sum', dtype, shape: [4096, 128], axes: [0] });
    add1(`inner_max_odd_${dtype}`, { op: 'max', dtype, shape: [37, 1001], axes: [1] });
    add1(`outer_min_odd_${dtype}`, { op: 'min', dtype, shape: [999, 37], axes: [0] });
  }
  add1('full_sum_2d', { op: 'sum', dtype: 'Float', shape: [33, 17], axes: [0, 1] });
  add1('full_sum_1d_large', { op: 'sum', dtype: 'Float', shape: [1 << 20], axes: [0] });
  add1('multi_axis_0_2', { op: 'sum', dtype: 'Float', shape: [5, 6, 7], axes: [0, 2] });
  add1('multi_axis_1_2_keepdim', { op: 'max', dtype: 'Half', shape: [8, 30, 50], axes: [1, 2], keepdim: true });
  add1('multi_axis_0_1_outer', { op: 'sum', dtype: 'BFloat16', shape: [16, 32, 64], axes: [0, 1] });
  add1('keepdim_inner', { op: 'sum', dtype: 'Float', shape: [64, 100], axes: [1], keepdim: true });
  add1('keepdim_outer', { op: 'min', dtype: 'Float', shape: [100, 64], axes: [0], keepdim: true });
  add1('prod_small', { op: 'prod', dtype: 'Float', shape: [10, 9], axes: [1] });
  add1('size_one_reduced', { op: 'sum', dtype: 'Float', shape: [7, 1], axes: [1] });
  add1('size_one_kept', { op: 'sum', dtype: 'Float', shape: [1, 513], axes: [1] });
  add1('size_one_all', { op: 'max', dtype: 'Float', shape: [1, 1], axes: [0, 1] });
  add1('size_zero_reduced', { op: 'sum', dtype: 'Float', shape: [5, 0], axes: [1] });
  add1('size_zero_keepdim', { op: 'sum', dtype: 'Float', shape: [4, 0, 3], axes: [1, 2], keepdim: true });
  add1('size_zero_kept', { op: 'max', dtype: 'Float', shape: [0, 5], axes: [1] });
  add1('pre_add_post_scale', { op: 'sum', dtype: 'Float', shape: [300, 700], axes: [1], pre: 'add', post: 'scale' });
  add1('pre_exp_post_bias', { op: 'sum', dtype: 'Half', shape: [257, 129], axes: [0], pre: 'exp', post: 'bias' });
  add1('pre_bias_post_cast', { op: 'max', dtype: 'BFloat16', shape: [64, 1024], axes: [1], pre: 'bias', post: 'cast' });
  add1('pre_output_inner', { op: 'sum', dtype: 'Float', shape: [30, 400], axes: [1], pre: 'add', preOutput: true });
  add1('pre_output_outer_half', { op: 'max', dtype: 'Half', shape: [300, 41], axes: [0], pre: 'exp', preOutput: true, post: 'scale' });
  // few outputs, long reductions: split over blockIdx.y too (grid reduction)
  add1('grid_inner', { op: 'sum', dtype: 'Float', shape: [4, 50000], axes: [1], post: 'scale' });
  add1('grid_inner_odd_half', { op: 'max', dtype: 'Half', shape: [3, 49999], axes: [1] });
  add1('grid_outer', { op: 'sum', dtype: 'Float', shape: [50000, 4], axes: [0], pre: 'add', post: 'bias' });
  add1('grid_outer_bf16_keepdim', { op: 'min', dtype: 'BFloat16', shape: [40000, 3], axes: [0], keepdim: true });
  add1('grid_full', { op: 'sum', dtype: 'Float', shape: [150001], axes: [0] });
  add1('grid_full_2d_pre_output', { op: 'sum', dtype: 'Double', shape: [300, 500], axes: [0, 1], pre: 'scale', preOutput: true });
  add1('inner_vectorized_half', { op: 'sum', dtype: 'Half', shape: [1024, 8192], axes: [1], pre: 'scale' });
  add1('sum_int32', { op: 'sum', dtype: 'Int32', shape: [33, 65], axes: [1] });
  add1('max_int64_outer', { op: 'max', dtype: 'Int', shape: [65, 33], axes: [0] });
  add1('min_bool', { op: 'min', dtype: 'Bool', shape: [9, 40], axes: [1] });
  // Welford (var_mean / welford): the same schedules with the Welford merge
  for (const dtype of ['Float', 'Half', 'BFloat16', 'Double'] as const) {
    add1(`var_mean_inner_${dtype}`, { op: 'var_mean', dtype, shape: [128, 4096], axes: [1] });
    add1(`var_mean_outer_odd_${dtype}`, { op: 'var_mean', dtype, shape: [999, 37], axes: [0] });
  }
  add1('welford_inner_odd', { op: 'welford', dtype: 'Float', shape: [37, 1001], axes: [1] });
  add1('welford_outer_half', { op: 'welford', dtype: 'Half', shape: [300, 41], axes: [0] });
  add1('var_mean_multi_axis_0_1', { op: 'var_mean', dtype: 'Float', shape: [16, 32, 64], axes: [0, 1] });
  add1('var_mean_multi_axis_0_2', { op: 'var_mean', dtype: 'BFloat16', shape: [5, 6, 7], axes: [0, 2] });
  add1('var_mean_keepdim_inner', { op: 'var_mean', dtype: 'Half', shape: [64, 100], axes: [1], keepdim: true });
  add1('var_mean_keepdim_outer', { op: 'var_mean', dtype: 'Float', shape: [100, 64], axes: [0], keepdim: true });
  add1('var_mean_full_2d', { op: 'var_mean', dtype: 'Float', shape: [33, 17], axes: [0, 1] });
  add1('var_mean_size_one_reduced', { op: 'var_mean', dtype: 'Float', shape: [7, 1], axes: [1] });
  add1('var_mean_size_one_all', { op: 'welford', dtype: 'Float', shape: [1, 1], axes: [0, 1] });
  add1('var_mean_size_zero_reduced', { op: 'var_mean', dtype: 'Float', shape: [5, 0], axes: [1] });
  add1('welford_size_zero_reduced', { op: 'welford', dtype: 'Float', shape: [4, 0, 3], axes: [1, 2] });
  add1('var_mean_size_zero_kept', { op: 'var_mean', dtype: 'Float', shape: [0, 5], axes: [1] });
  add1('var_mean_pre_exp_post_bias', { op: 'var_mean', dtype: 'Half', shape: [257, 129], axes: [0], pre: 'exp', post: 'bias' });
  add1('var_mean_pre_output', { op: 'var_mean', dtype: 'Float', shape: [30, 400], axes: [1], pre: 'add', preOutput: true });
  add1('grid_var_mean_inner', { op: 'var_mean', dtype: 'Float', shape: [4, 50000], axes: [1] });
  add1('grid_welford_inner_odd_half', { op: 'welford', dtype: 'Half', shape: [3, 49999], axes: [1] });
  add1('grid_var_mean_outer', { op: 'var_mean', dtype: 'BFloat16', shape: [50000, 4], axes: [0], keepdim: true });
  add1('grid_var_mean_full', { op: 'var_mean', dtype: 'Float', shape: [150001], axes: [0] });
  // large: a row too long for registers, and var_mean(x[16, 512, 4096], dims=[0, 1])
  add1('var_mean_inner_row_65536', { op: 'var_mean', dtype: 'Float', shape: [64, 65536], axes: [1] });
  add1('var_mean_16x512x4096_dims_0_1', { op: 'var_mean', dtype: 'Float', shape: [16, 512, 4096], axes: [0, 1] });
  return out;
}


function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)] as T;
}

/** A random size: mostly moderate, sometimes 1, odd, 0 or large. */
function randomSize(rand: () => number): number {
  const r = rand();
  if (r < 0.1) return 1;
  if (r < 0.13) return 0;
  if (r < 0.3) return 1 + 2 * Math.floor(rand() * 60);
  if (r < 0.4) return pick(rand, [1024, 2048, 4096, 5000]);
  return 2 + Math.floor(rand() * 300);
}

/** A random single-reduction fusion spec (sizes capped so that one case stays < 2^22 elements). */
export function randomReductionSpec(rand: () => number): ReductionSpec {
  const rank = 1 + Math.floor(rand() * 3);
  const shape = Array.from({ length: rank }, () => randomSize(rand));
  while (shape.reduce((a, b) => a * b, 1) > 1 << 22) {
    const d = shape.indexOf(Math.max(...shape));
    shape[d] = Math.max(1, Math.floor((shape[d] as number) / 4));
  }
  const axes = shape.map((_, d) => d).filter(() => rand() < 0.5);
  if (axes.length === 0) axes.push(Math.floor(rand() * rank));
  const op = pick(rand, ['sum', 'sum', 'max', 'min', 'prod', 'var_mean', 'welford'] as const);
  return {
    op,
    dtype: pick(rand, ['Float', 'Float', 'Half', 'BFloat16', 'Double'] as const),
    shape,
    axes,
    keepdim: rand() < 0.3,
    pre: pick(rand, ['none', 'scale', 'add', 'exp', 'bias'] as const),
    post: pick(rand, ['none', 'scale', 'bias', 'cast'] as const),
    preOutput: rand() < 0.2,
  };
}
