// The reference evaluator's matrix products (MatmulOp, LinearOp, ScaledMmaOp, GroupedMmaOp):
// every product accumulates in float64 and is rounded to the output dtype once, at the store
// (a GEMM accumulating in float32 differs from it by the accumulation error only). Shapes are
// checked on the actual sizes with PyTorch's messages (ops/matmul-shapes.ts), so a symbolic
// mismatch is an EvaluationError, never NaN or a truncated product.
//
// Invariant: the values depend only on the operands' logical values, never on their layouts.

import { EvaluationError } from '../ir/errors.js';
import type { GroupedMmaOp, LinearOp, MatmulOp, ScaledMmaOp } from '../ir/matmul-exprs.js';
import type { TensorView } from '../ir/tensor-view.js';
import { linearOutputSizes, MatmulShapeError, matmulDtypeCheck, matmulOutputSizes } from '../ops/matmul-shapes.js';
import type { EvalContext } from './evaluator.js';
import { HostTensor } from './host-tensor.js';
import { evalGroupedMm, evalScaledMm } from './scaled-grouped-mm.js';

/** Dense float64 values in row-major order with their sizes. */
export interface DenseValues {
  readonly sizes: readonly number[];
  readonly values: Float64Array;
}

const prod = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** Row-major strides of `sizes`, 0 where a dim of size 1 broadcasts against `target`. */
function broadcastStridesTo(sizes: readonly number[], target: readonly number[]): number[] {
  const strides = new Array<number>(target.length).fill(0);
  let s = 1;
  for (let i = sizes.length - 1; i >= 0; i -= 1) {
    const d = target.length - sizes.length + i;
    strides[d] = (sizes[i] as number) === 1 && (target[d] as number) !== 1 ? 0 : s;
    s *= sizes[i] as number;
  }
  return strides;
}

/**
 * torch.matmul in float64 on dense operands whose sizes matmulOutputSizes accepted: 1-D
 * operands become [1, K] / [K, 1] matrices, batch dims broadcast, and the added dims are
 * dropped from the result.
 */
export function matmulFloat64(a: DenseValues, b: DenseValues): DenseValues {
  const outSizes = matmulOutputSizes(a.sizes, b.sizes);
  const am = a.sizes.length === 1 ? [1, a.sizes[0] as number] : [...a.sizes];
  const bm = b.sizes.length === 1 ? [b.sizes[0] as number, 1] : [...b.sizes];
  const m = am[am.length - 2] as number;
  const k = am[am.length - 1] as number;
  const n = bm[bm.length - 1] as number;
  const aBatch = am.slice(0, -2);
  const bBatch = bm.slice(0, -2);
  const rank = Math.max(aBatch.length, bBatch.length);
  const batch: number[] = [];
  for (let i = 0; i < rank; i += 1) {
    const da = aBatch[aBatch.length - rank + i] ?? 1;
    const db = bBatch[bBatch.length - rank + i] ?? 1;
    batch.push(da === 1 ? db : da);
  }
  const aStrides = broadcastStridesTo(aBatch, batch);
  const bStrides = broadcastStridesTo(bBatch, batch);
  const out = new Float64Array(prod(batch) * m * n);
  const index = new Array<number>(rank).fill(0);
  for (let bi = 0; bi < prod(batch); bi += 1) {
    let aBase = 0;
    let bBase = 0;
    for (let d = 0; d < rank; d += 1) {
      aBase += (index[d] as number) * (aStrides[d] as number);
      bBase += (index[d] as number) * (bStrides[d] as number);
    }
    aBase *= m * k;
    bBase *= k * n;
    const oBase = bi * m * n;
    // i-k-j order (rows of b stream contiguously); each element still sums its K products in
    // ascending k from 0, so the result is the same as a dot product per element.
    for (let i = 0; i < m; i += 1) {
      const oRow = oBase + i * n;
      for (let kk = 0; kk < k; kk += 1) {
        const aik = a.values[aBase + i * k + kk] as number;
        const bRow = bBase + kk * n;
        for (let j = 0; j < n; j += 1) out[oRow + j] = (out[oRow + j] as number) + aik * (b.values[bRow + j] as number);
      }
    }
    for (let d = rank - 1; d >= 0; d -= 1) {
      index[d] = (index[d] as number) + 1;
      if ((index[d] as number) < (batch[d] as number)) break;
      index[d] = 0;
    }
  }
  return { sizes: outSizes, values: out };
}

/** Adds `bias` (broadcast, right-aligned) to `x` in place. */
export function addBroadcast(x: DenseValues, bias: DenseValues): void {
  const strides = broadcastStridesTo(bias.sizes, x.sizes);
  const rank = x.sizes.length;
  const index = new Array<number>(rank).fill(0);
  for (let i = 0; i < x.values.length; i += 1) {
    let o = 0;
    for (let d = 0; d < rank; d += 1) o += (index[d] as number) * (strides[d] as number);
    x.values[i] = (x.values[i] as number) + (bias.values[o] as number);
    for (let d = rank - 1; d >= 0; d -= 1) {
      index[d] = (index[d] as number) + 1;
      if ((index[d] as number) < (x.sizes[d] as number)) break;
      index[d] = 0;
    }
  }
}

/** [N, K] → [K, N] (a 1-D operand is returned as is). */
export function transposeMatrix(w: DenseValues): DenseValues {
  if (w.sizes.length !== 2) return w;
  const [n, k] = w.sizes as [number, number];
  const out = new Float64Array(n * k);
  for (let i = 0; i < n; i += 1) for (let j = 0; j < k; j += 1) out[j * n + i] = w.values[i * k + j] as number;
  return { sizes: [k, n], values: out };
}

export function denseOf(ctx: EvalContext, tv: TensorView): DenseValues {
  const t = ctx.tensor(tv);
  return { sizes: [...t.sizes], values: t.toFloat64Array() };
}

/** Runs a PyTorch shape rule on actual sizes, as an EvaluationError naming the expression. */
export function checkedAtEval<T>(where: string, rule: () => T): T {
  try {
    return rule();
  } catch (e) {
    if (e instanceof MatmulShapeError) throw new EvaluationError(`${where}: ${e.message}`);
    throw e;
  }
}

/** Binds `out` to `values` rounded to its dtype, after checking the sizes agree with its domain. */
export function bindProduct(ctx: EvalContext, out: TensorView, where: string, r: DenseValues): void {
  const expected = ctx.sizesOf(out);
  if (expected.length !== r.sizes.length || expected.some((s, d) => s !== r.sizes[d])) {
    throw new EvaluationError(
      `${where}: the product has sizes [${r.sizes.join(', ')}] but T${out.name} was defined with [${expected.join(', ')}] ` +
        '(a symbolic dim of size 1 does not broadcast: define it as a broadcast dim)',
    );
  }
  ctx.bind(out, HostTensor.fromValues(out.dtype, r.sizes, r.values));
}

function evalMatmul(ctx: EvalContext, expr: MatmulOp): void {
  const where = `matmul producing T${expr.out().name}`;
  const a = denseOf(ctx, expr.inA());
  const b = denseOf(ctx, expr.inB());
  checkedAtEval(where, () => matmulDtypeCheck(a.sizes.length, b.sizes.length, expr.inA().dtype, expr.inB().dtype));
  bindProduct(ctx, expr.out(), where, checkedAtEval(where, () => matmulFloat64(a, b)));
}

function evalLinear(ctx: EvalContext, expr: LinearOp): void {
  const where = `linear producing T${expr.out().name}`;
  const x = denseOf(ctx, expr.inA());
  const w = denseOf(ctx, expr.inB());
  const biasTv = expr.bias();
  const bias = biasTv === null ? null : denseOf(ctx, biasTv);
  checkedAtEval(where, () => linearOutputSizes(x.sizes, w.sizes, bias?.sizes ?? null));
  const r = checkedAtEval(where, () => matmulFloat64(x, transposeMatrix(w)));
  if (bias !== null) addBroadcast(r, bias);
  bindProduct(ctx, expr.out(), where, r);
}

export function evalMatmulExpr(ctx: EvalContext, expr: MatmulOp | LinearOp | ScaledMmaOp | GroupedMmaOp): void {
  switch (expr.kind) {
    case 'MatmulOp':
      evalMatmul(ctx, expr);
      return;
    case 'LinearOp':
      evalLinear(ctx, expr);
      return;
    case 'ScaledMmaOp':
      evalScaledMm(ctx, expr);
      return;
    case 'GroupedMmaOp':
      evalGroupedMm(ctx, expr);
      return;
    default: {
      const unreachable: never = expr;
      throw new Error(`unknown matmul expr ${String(unreachable)}`);
    }
  }
}
