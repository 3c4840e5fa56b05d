// The reference evaluator's scans and sorts (ScanOp, ArgsortOp, TopKOp), row by row along the
// op's dim. Scans accumulate in float64 (floats) or exact int64 (ints, wrapped to the dtype) and
// round every prefix to the output dtype, as PyTorch's CPU cumsum/cumprod do for Float (whose
// accumulator is double); cummax/cummin propagate NaN from its first occurrence on, as
// torch.cummax does. Sorts order NaN above every number (PyTorch's order) and are stable: equal
// keys keep input order, in both directions. topk returns the first k of that order (sorted,
// ties by lower index).
//
// Invariant: the output values depend only on the input values, never on layouts.

import { EvaluationError } from '../ir/errors.js';
import type { ArgsortOp, ScanOp, TopKOp } from '../ir/expr.js';
import type { ScanOpType } from '../ir/op-types.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { EvalContext } from './evaluator.js';
import { HostTensor, writeStorage, type ElementValue } from './host-tensor.js';
import { castTo, computeKindOf, toFloat, toInt } from './values.js';

/** Rows along `dim` of a tensor of `sizes`: row r, element i is at outer*(n*inner) + i*inner + j. */
interface RowLayout {
  outer: number;
  n: number;
  inner: number;
}

function rowLayout(sizes: readonly number[], dim: number): RowLayout {
  const prod = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);
  return { outer: prod(sizes.slice(0, dim)), n: sizes[dim] ?? 1, inner: prod(sizes.slice(dim + 1)) };
}

/** Calls fn(base) for every row, where element i of the row has linear index base + i*inner. */
function forEachRow(l: RowLayout, fn: (base: number) => void): void {
  for (let o = 0; o < l.outer; o += 1) {
    for (let j = 0; j < l.inner; j += 1) fn(o * l.n * l.inner + j);
  }
}

function floatScan(op: ScanOpType): (a: number, b: number) => number {
  switch (op) {
    case 'add':
      return (a, b) => a + b;
    case 'mul':
      return (a, b) => a * b;
    case 'max':
      return (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : a > b ? a : b);
    case 'min':
      return (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : a < b ? a : b);
    default: {
      const unreachable: never = op;
      throw new Error(`unknown scan op ${String(unreachable)}`);
    }
  }
}

function intScan(op: ScanOpType): (a: bigint, b: bigint) => bigint {
  switch (op) {
    case 'add':
      return (a, b) => BigInt.asIntN(64, a + b);
    case 'mul':
      return (a, b) => BigInt.asIntN(64, a * b);
    case 'max':
      return (a, b) => (a > b ? a : b);
    case 'min':
      return (a, b) => (a < b ? a : b);
    default: {
      const unreachable: never = op;
      throw new Error(`unknown scan op ${String(unreachable)}`);
    }
  }
}

export function evalScan(ctx: EvalContext, expr: ScanOp): void {
  const input = expr.in() as TensorView;
  const out = expr.out() as TensorView;
  const x = ctx.tensor(input);
  const sizes = ctx.sizesOf(out);
  const result = HostTensor.empty(out.dtype, sizes);
  const l = rowLayout(sizes, expr.dim);
  const init = ctx.scalar(expr.init);
  const kind = computeKindOf(out.dtype);
  if (kind === 'float') {
    const f = floatScan(expr.opType);
    const start = toFloat(init);
    forEachRow(l, (base) => {
      let acc = start;
      for (let i = 0; i < l.n; i += 1) {
        const p = base + i * l.inner;
        acc = f(acc, x.getNumber(p));
        writeStorage(out.dtype, result.data, p, acc);
      }
    });
  } else {
    // Int and Bool: exact, each prefix wrapped (or made 0/1) to the dtype as the kernel's store does.
    const f = intScan(expr.opType);
    const start = toInt(init);
    forEachRow(l, (base) => {
      let acc = start;
      for (let i = 0; i < l.n; i += 1) {
        const p = base + i * l.inner;
        acc = toInt(castTo(f(acc, toInt(x.get(p))), out.dtype));
        writeStorage(out.dtype, result.data, p, castTo(acc, out.dtype));
      }
    });
  }
  ctx.bind(out, result);
}

/** PyTorch's sort order: a < b with NaN above everything (floats), exact for ints. */
function lessThan(a: ElementValue, b: ElementValue): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return false;
    if (Number.isNaN(b)) return true;
    return a < b;
  }
  return toInt(a) < toInt(b);
}

/** The positions 0..n-1 of `keys` in sorted order, stable (ties by lower position). */
export function sortedPositions(keys: readonly ElementValue[], descending: boolean): number[] {
  const order = keys.map((_, i) => i);
  order.sort((i, j) => {
    const a = keys[i] as ElementValue;
    const b = keys[j] as ElementValue;
    const before = descending ? lessThan(b, a) : lessThan(a, b);
    const after = descending ? lessThan(a, b) : lessThan(b, a);
    return before ? -1 : after ? 1 : i - j;
  });
  return order;
}

function rowKeys(x: HostTensor, l: RowLayout, base: number): ElementValue[] {
  const keys: ElementValue[] = new Array<ElementValue>(l.n);
  for (let i = 0; i < l.n; i += 1) {
    const v = x.get(base + i * l.inner);
    keys[i] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
  }
  return keys;
}

export function evalArgsort(ctx: EvalContext, expr: ArgsortOp): void {
  const input = expr.in() as TensorView;
  const out = expr.out() as TensorView;
  const x = ctx.tensor(input);
  const sizes = ctx.sizesOf(out);
  const result = HostTensor.empty(out.dtype, sizes);
  const l = rowLayout(sizes, expr.dim);
  forEachRow(l, (base) => {
    const order = sortedPositions(rowKeys(x, l, base), expr.descending);
    order.forEach((pos, i) => writeStorage(out.dtype, result.data, base + i * l.inner, BigInt(pos)));
  });
  ctx.bind(out, result);
}

export function evalTopK(ctx: EvalContext, expr: TopKOp): void {
  const input = expr.in() as TensorView;
  const values = expr.outValues();
  const indices = expr.outIndices();
  const x = ctx.tensor(input);
  const inSizes = ctx.sizesOf(input);
  const kValue = ctx.scalar(expr.k());
  const k = typeof kValue === 'boolean' ? Number(kValue) : Number(kValue);
  const n = inSizes[expr.dim] ?? 1;
  if (!Number.isInteger(k) || k < 0 || k > n) {
    throw new EvaluationError(`topk producing T${values.name}: k = ${String(kValue)} is out of range for dim ${expr.dim} of size ${n} (T${input.name})`);
  }
  const outSizes = inSizes.map((s, d) => (d === expr.dim ? k : s));
  const vOut = HostTensor.empty(values.dtype, outSizes);
  const iOut = HostTensor.empty(indices.dtype, outSizes);
  const lin = rowLayout(inSizes, expr.dim);
  const lout = rowLayout(outSizes, expr.dim);
  for (let o = 0; o < lin.outer; o += 1) {
    for (let j = 0; j < lin.inner; j += 1) {
      const base = o * lin.n * lin.inner + j;
      const outBase = o * lout.n * lout.inner + j;
      const keys = rowKeys(x, lin, base);
      const order = sortedPositions(keys, expr.largest).slice(0, k);
      order.forEach((pos, i) => {
        writeStorage(values.dtype, vOut.data, outBase + i * lout.inner, x.get(base + pos * lin.inner));
        writeStorage(indices.dtype, iOut.data, outBase + i * lout.inner, BigInt(pos));
      });
    }
  }
  ctx.bind(values, vOut);
  ctx.bind(indices, iOut);
}
