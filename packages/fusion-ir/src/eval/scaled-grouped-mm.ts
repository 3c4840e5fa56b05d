// The reference values of scaled_mm and grouped_mm: float64 products of the decoded operands,
// rounded once to the output dtype. scaled_mm multiplies by the two per-tensor scales before the
// product (as (a·sa)(b·sb) = sa·sb·ab, exact in float64 up to rounding), then adds the bias.
// grouped_mm checks the offsets on their values (non-decreasing, within the cut dim: PyTorch
// reads out of bounds there) and writes 0 to rows / columns no group covers (PyTorch leaves
// them uninitialized).
//
// Invariant: each output element is one float64 dot product, rounded once.

import { EvaluationError } from '../ir/errors.js';
import type { GroupedMmaOp, ScaledMmaOp } from '../ir/matmul-exprs.js';
import type { EvalContext } from './evaluator.js';
import { bindProduct, denseOf, type DenseValues } from './matmul.js';

export function evalScaledMm(ctx: EvalContext, expr: ScaledMmaOp): void {
  const where = `scaled_mm producing T${expr.out().name}`;
  const a = denseOf(ctx, expr.matrix1());
  const b = denseOf(ctx, expr.matrix2());
  const [m, k] = a.sizes as [number, number];
  const [k2, n] = b.sizes as [number, number];
  if (k !== k2) throw new EvaluationError(`${where}: mat_a and mat_b shapes cannot be multiplied (${m}x${k} and ${k2}x${n})`);
  const s1 = denseOf(ctx, expr.scale1()).values[0] as number;
  const s2 = denseOf(ctx, expr.scale2()).values[0] as number;
  const biasTv = expr.bias();
  const bias = biasTv === null ? null : denseOf(ctx, biasTv);
  if (bias !== null && bias.values.length !== n) throw new EvaluationError(`${where}: bias has ${bias.values.length} elements, expected N = ${n}`);
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i += 1) {
    for (let j = 0; j < n; j += 1) {
      let acc = 0;
      for (let kk = 0; kk < k; kk += 1) acc += (a.values[i * k + kk] as number) * s1 * ((b.values[kk * n + j] as number) * s2);
      out[i * n + j] = acc + (bias === null ? 0 : (bias.values[j] as number));
    }
  }
  bindProduct(ctx, expr.out(), where, { sizes: [m, n], values: out });
}

/** out[oBase + i·ldo + j] = Σ_k a[aBase + i·lda + k] · b[bBase + k·ldb + j], for i < m, j < n, k in [k0, k1). */
interface Block {
  m: number;
  n: number;
  k0: number;
  k1: number;
  aBase: number;
  lda: number;
  bBase: number;
  ldb: number;
  oBase: number;
  ldo: number;
}

function gemmBlock(a: Float64Array, b: Float64Array, out: Float64Array, p: Block): void {
  for (let i = 0; i < p.m; i += 1) {
    for (let j = 0; j < p.n; j += 1) {
      let acc = 0;
      for (let kk = p.k0; kk < p.k1; kk += 1) acc += (a[p.aBase + i * p.lda + kk] as number) * (b[p.bBase + kk * p.ldb + j] as number);
      out[p.oBase + i * p.ldo + j] = acc;
    }
  }
}

/** Group g's [start, end) along a dim of `extent`, checked. */
function groupBounds(where: string, offs: readonly number[], extent: number, what: string): [number, number][] {
  let prev = 0;
  return offs.map((end, g) => {
    if (!Number.isInteger(end) || end < prev || end > extent) {
      throw new EvaluationError(`${where}: offsets[${g}] = ${end} must be non-decreasing and at most ${extent} (the ${what} dim that the offsets cut)`);
    }
    const r: [number, number] = [prev, end];
    prev = end;
    return r;
  });
}

export function evalGroupedMm(ctx: EvalContext, expr: GroupedMmaOp): void {
  const where = `grouped_mm producing T${expr.out().name}`;
  const a = denseOf(ctx, expr.matrix1());
  const b = denseOf(ctx, expr.matrix2());
  const offsTv = expr.offsets();
  const offs = offsTv === null ? null : Array.from(denseOf(ctx, offsTv).values);
  const ra = a.sizes.length;
  const rb = b.sizes.length;
  const kA = a.sizes[ra - 1] as number;
  const kB = b.sizes[rb - 2] as number;
  if (kA !== kB) throw new EvaluationError(`${where}: contraction dimension of mat_a and mat_b must match`);
  const r = ((): DenseValues => {
    if (ra === 3 && rb === 3) {
      const [g, m] = a.sizes as [number, number];
      const n = b.sizes[2] as number;
      if (b.sizes[0] !== g) throw new EvaluationError(`${where}: matrix batch sizes have to match`);
      const out = new Float64Array(g * m * n);
      for (let gi = 0; gi < g; gi += 1) gemmBlock(a.values, b.values, out, { m, n, k0: 0, k1: kA, aBase: gi * m * kA, lda: kA, bBase: gi * kA * n, ldb: n, oBase: gi * m * n, ldo: n });
      return { sizes: [g, m, n], values: out };
    }
    if (offs === null) throw new EvaluationError(`${where}: offsets are required when an operand is 2-D`);
    if (ra === 2 && rb === 3) {
      const m = a.sizes[0] as number;
      const [g, , n] = b.sizes as [number, number, number];
      if (offs.length !== g) throw new EvaluationError(`${where}: matrix batch sizes have to match`);
      const out = new Float64Array(m * n);
      groupBounds(where, offs, m, 'M').forEach(([s, e], gi) => gemmBlock(a.values, b.values, out, { m: e - s, n, k0: 0, k1: kA, aBase: s * kA, lda: kA, bBase: gi * kA * n, ldb: n, oBase: s * n, ldo: n }));
      return { sizes: [m, n], values: out };
    }
    if (ra === 3 && rb === 2) {
      const [g, m] = a.sizes as [number, number];
      const n = b.sizes[1] as number;
      if (offs.length !== g) throw new EvaluationError(`${where}: matrix batch sizes have to match`);
      const out = new Float64Array(m * n);
      groupBounds(where, offs, n, 'N').forEach(([s, e], gi) => gemmBlock(a.values, b.values, out, { m, n: e - s, k0: 0, k1: kA, aBase: gi * m * kA, lda: kA, bBase: s, ldb: n, oBase: s, ldo: n }));
      return { sizes: [m, n], values: out };
    }
    const m = a.sizes[0] as number;
    const n = b.sizes[1] as number;
    const g = offs.length;
    const out = new Float64Array(g * m * n);
    groupBounds(where, offs, kA, 'K').forEach(([s, e], gi) => gemmBlock(a.values, b.values, out, { m, n, k0: s, k1: e, aBase: 0, lda: kA, bBase: 0, ldb: n, oBase: gi * m * n, ldo: n }));
    return { sizes: [g, m, n], values: out };
  })();
  bindProduct(ctx, expr.out(), where, r);
}
