// Transpose fixtures shared by codegen's simulation and nvcc tests, the scheduler-choice tests
// and the GPU suite (packages/tsfuser/gpu/shape-ops-suite.ts --transpose-random N): 2-D
// transposes (x.t()) in f32 and bf16, permute + pointwise ((x + 1).t() · 2), 3-D permutes whose
// innermost dims differ, a permuted (non-contiguous) input read into a contiguous output, a
// stride-ordered output, a mix of a transposed and a plain input, odd sizes (tiles not dividing
// them); and the cases nvFuser leaves to the pointwise scheduler ([B,H,S,D] → [B,S,H,D] keeps
// D innermost, small sizes, small transposed dims). Each names the scheduler the default
// registry should pick. `randomTransposeCase` draws a random one (rank 2–4, a random
// permutation, random sizes, f32 / bf16 / f16, optional pointwise work before and after).
import { add, cast, Fusion, HostTensor, makeTensor, mul, neg, permute, strideOrder, type DataType, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import type { ShapeOpsFixture } from './shape-ops-fixtures.js';
import { randomTensor } from './shape-ops-values.js';

export interface TransposeFixture extends ShapeOpsFixture {
  /** The scheduler the default registry picks for the whole fusion (one segment). */
  scheduler: 'transpose' | 'pointwise';
}

function oneInput(dtype: DataType, rank: number, build: (x: TensorView) => TensorView[], inputStrideOrder?: readonly number[]): Fusion {
  const fusion = new Fusion();
  const x = makeTensor(fusion, { shape: new Array<number>(rank).fill(-1), dtype, ...(inputStrideOrder === undefined ? {} : { strideOrder: [...inputStrideOrder] }) });
  fusion.addInput(x);
  for (const o of build(x)) fusion.addOutput(o);
  return fusion;
}

/**
 * `tv` materialised row-major (torch's .contiguous()): a stride_order output in logical order,
 * which a permute's view does not have, so a kernel writes it.
 */
export function contiguous(tv: TensorView): TensorView {
  const rank = tv.domain.logicalNoReductions().length;
  return strideOrder(tv, [...Array(rank).keys()].map((d) => rank - 1 - d));
}

/** A view of a contiguous tensor of sizes `sizes` permuted by `perm` (torch's x.permute(perm), not made contiguous). */
export function permutedView(t: HostTensor, perm: readonly number[]): HostTensor {
  return new HostTensor(
    t.dtype,
    perm.map((d) => t.sizes[d] as number),
    perm.map((d) => t.strides[d] as number),
    t.data,
    t.offset,
  );
}

/** (x op) in float for reduced-precision dtypes, cast back: nvFuser's promotion of a bf16 pointwise op. */
function scaled(x: TensorView, by: number, plus: number): TensorView {
  const low = x.dtype === 'BFloat16' || x.dtype === 'Half';
  const y = add(mul(low ? cast(x, 'Float') : x, by), plus);
  return low ? cast(y, x.dtype) : y;
}

export function transposeFixtures(): TransposeFixture[] {
  const out: TransposeFixture[] = [];
  const fx = (name: string, fusion: Fusion, inputs: (r: () => number) => EvalValue[], scheduler: 'transpose' | 'pointwise'): void => {
    out.push({ name, fusion, inputs, segments: scheduler, scheduler });
  };
  fx('transpose_2d_f32', oneInput('Float', 2, (x) => [contiguous(permute(x, [1, 0]))]), (r) => [randomTensor('Float', [256, 640], r)], 'transpose');
  fx('transpose_2d_bf16', oneInput('BFloat16', 2, (x) => [contiguous(permute(x, [1, 0]))]), (r) => [randomTensor('BFloat16', [384, 520], r)], 'transpose');
  fx('transpose_2d_odd_f32', oneInput('Float', 2, (x) => [contiguous(permute(x, [1, 0]))]), (r) => [randomTensor('Float', [333, 517], r)], 'transpose');
  fx('add_transpose_mul_f32', oneInput('Float', 2, (x) => [mul(permute(add(x, 1), [1, 0]), 2)]), (r) => [randomTensor('Float', [300, 520], r)], 'transpose');
  fx('add_transpose_mul_bf16', oneInput('BFloat16', 2, (x) => [scaled(permute(scaled(x, 1, 1), [1, 0]), 2, 0)]), (r) => [randomTensor('BFloat16', [257, 640], r)], 'transpose');
  fx('permute_3d_201_f32', oneInput('Float', 3, (x) => [contiguous(permute(x, [2, 0, 1]))]), (r) => [randomTensor('Float', [64, 48, 80], r)], 'transpose');
  fx('permute_4d_0312_bf16', oneInput('BFloat16', 4, (x) => [contiguous(permute(x, [0, 3, 1, 2]))]), (r) => [randomTensor('BFloat16', [2, 40, 36, 64], r)], 'transpose');
  fx('permuted_input_f32', oneInput('Float', 2, (x) => [neg(x)], [0, 1]), (r) => [permutedView(randomTensor('Float', [448, 320], r), [1, 0])], 'transpose');
  fx('stride_order_output_f32', oneInput('Float', 2, (x) => [strideOrder(mul(x, 3), [0, 1])]), (r) => [randomTensor('Float', [320, 480], r)], 'transpose');
  {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [-1, -1], dtype: 'Float' });
    const y = makeTensor(fusion, { shape: [-1, -1], dtype: 'Float' });
    fusion.addInput(x);
    fusion.addInput(y);
    fusion.addOutput(add(permute(x, [1, 0]), y));
    fx('transposed_plus_plain_f32', fusion, (r) => [randomTensor('Float', [260, 600], r), randomTensor('Float', [600, 260], r)], 'transpose');
  }
  {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [-1, -1], dtype: 'Float' });
    fusion.addInput(x);
    const t = permute(mul(x, 2), [1, 0]);
    fusion.addOutput(t);
    fusion.addOutput(add(t, 1));
    fx('transpose_two_outputs_f32', fusion, (r) => [randomTensor('Float', [520, 270], r)], 'transpose');
  }
  // nvFuser's pointwise cases.
  fx('permute_bhsd_to_bshd_bf16', oneInput('BFloat16', 4, (x) => [contiguous(permute(x, [0, 2, 1, 3]))]), (r) => [randomTensor('BFloat16', [2, 8, 80, 128], r)], 'pointwise');
  fx('transpose_small_f32', oneInput('Float', 2, (x) => [contiguous(permute(x, [1, 0]))]), (r) => [randomTensor('Float', [136, 132], r)], 'pointwise');
  fx('transpose_small_inner_dims_f32', oneInput('Float', 3, (x) => [contiguous(permute(x, [0, 2, 1]))]), (r) => [randomTensor('Float', [40000, 2, 3], r)], 'pointwise');
  return out;
}

/** All permutations of [0, n) except the identity, in lexicographic order. */
function permutations(n: number): number[][] {
  const all: number[][] = [];
  const rec = (prefix: number[], rest: number[]): void => {
    if (rest.length === 0) {
      all.push(prefix);
      return;
    }
    rest.forEach((d, i) => rec([...prefix, d], [...rest.slice(0, i), ...rest.slice(i + 1)]));
  };
  rec([], [...Array(n).keys()]);
  return all.filter((p) => p.some((d, i) => d !== i));
}

/**
 * A random transpose fusion: rank 2–4, a non-identity permutation that moves the innermost dim,
 * sizes whose product is at least `minElements` (default: one full wave of 32×32 tiles on an
 * H100, 132 SMs; simulations use a smaller device and fewer elements), dtype f32 /
 * bf16 / f16, and optionally pointwise work before and after the permute, or a permuted input
 * view instead of a permute op. The scheduler is not asserted (heuristics may prefer pointwise).
 */
export function randomTransposeCase(r: () => number, id: number, minElements = 140_000): ShapeOpsFixture {
  const rank = 2 + Math.floor(r() * 3);
  const perms = permutations(rank).filter((p) => p[rank - 1] !== rank - 1);
  const perm = perms[Math.floor(r() * perms.length)] as number[];
  const dtypes: DataType[] = ['Float', 'BFloat16', 'Half'];
  const dtype = dtypes[Math.floor(r() * dtypes.length)] as DataType;
  const pick = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const sizes = new Array<number>(rank).fill(0).map(() => (rank === 2 ? pick(33, 300) : rank === 3 ? pick(5, 60) : pick(3, 20)));
  // Grow the two transposed dims until the problem is at least one full wave of tiles.
  const inner = rank - 1;
  const outerInner = perm[rank - 1] as number;
  while (sizes.reduce((a, b) => a * b, 1) < minElements) {
    sizes[inner] = (sizes[inner] as number) + 17;
    sizes[outerInner] = (sizes[outerInner] as number) + 13;
  }
  const style = Math.floor(r() * 3);
  const viewInput = style === 2;
  // The view input's storage holds its dims in `perm` order: dim perm[k] has stride rank rank-1-k.
  const viewOrder = new Array<number>(rank).fill(0);
  perm.forEach((d, k) => {
    viewOrder[d] = rank - 1 - k;
  });
  const fusion = oneInput(
    dtype,
    rank,
    (x) => {
      if (viewInput) return [scaled(x, 0.5, -1)];
      const p = permute(style === 1 ? scaled(x, 1.5, 0.25) : x, perm);
      return [style === 1 ? scaled(p, -2, 0) : contiguous(p)];
    },
    viewInput ? viewOrder : undefined,
  );
  const name = `random_transpose_${id}_${dtype}_[${sizes.join(',')}]_perm[${perm.join(',')}]_${['plain', 'pointwise', 'view'][style] ?? ''}`;
  return {
    name,
    fusion,
    inputs: (rr) => {
      if (!viewInput) return [randomTensor(dtype, sizes, rr)];
      // A permuted view whose logical sizes are `sizes`: the storage is laid out in perm order.
      const inverse = perm.map((_, k) => perm.indexOf(k));
      return [permutedView(randomTensor(dtype, perm.map((d) => sizes[d] as number), rr), inverse)];
    },
    segments: '*',
  };
}
