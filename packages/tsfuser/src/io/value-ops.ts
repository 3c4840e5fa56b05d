// The values of the InputSpec ops that compute new data rather than view or copy it: a
// comparison with a scalar (`torch.rand(4) > 0.3`), arithmetic with a scalar (`x * 0.1 + 1`)
// and torch.topk's values or indices. Each takes
// the host tensor built so far and the layout tensor-views.ts planned for the result, and fills
// that layout. Invariant: the result has exactly the planned layout (dtype, sizes, strides), so
// what the CLI checked against the definition before allocating is what execute receives.

import { HostTensor, allocateStorage, castTo, Complex, isComplexType, type ElementValue } from '@tsfuser/fusion-ir';
import type { TensorViewOp } from './input-spec.js';
import type { StridedLayout } from './tensor-views.js';

function emptyOf(layout: StridedLayout): HostTensor {
  return new HostTensor(layout.dtype, [...layout.sizes], [...layout.strides], allocateStorage(layout.dtype, layout.storageElements));
}

function asNumber(v: ElementValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v.re;
}

/** Compares `a` with `b` (both already in the compute dtype); bigints compare exactly. */
function compareValues(op: TensorViewOp & { kind: 'compare' }, a: ElementValue, b: ElementValue): boolean {
  if (a instanceof Complex || b instanceof Complex) {
    const za = a instanceof Complex ? a : new Complex(asNumber(a), 0);
    const zb = b instanceof Complex ? b : new Complex(asNumber(b), 0);
    const equal = za.re === zb.re && za.im === zb.im;
    return op.op === '==' ? equal : !equal;
  }
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    switch (op.op) {
      case '<':
        return a < b;
      case '<=':
        return a <= b;
      case '>':
        return a > b;
      case '>=':
        return a >= b;
      case '==':
        return a === b;
      case '!=':
        return a !== b;
      default: {
        const never: never = op.op;
        throw new Error(`unknown comparison ${String(never)}`);
      }
    }
  }
  const x = asNumber(a);
  const y = asNumber(b);
  switch (op.op) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
    case '==':
      return x === y;
    case '!=':
      return x !== y;
    default: {
      const never: never = op.op;
      throw new Error(`unknown comparison ${String(never)}`);
    }
  }
}

/** `src <op> scalar` elementwise, both promoted to the op's compute dtype as PyTorch does. */
export function compareWithScalar(src: HostTensor, op: TensorViewOp & { kind: 'compare' }, layout: StridedLayout): HostTensor {
  const out = emptyOf(layout);
  const scalar = castTo(op.scalar, op.computeDtype);
  for (let i = 0; i < src.numel; i += 1) out.setFlat(i, compareValues(op, castTo(src.get(i), op.computeDtype), scalar));
  return out;
}

/** One element of `a <op> b` (both in the compute dtype): exact bigint arithmetic for integers. */
function arithValue(op: TensorViewOp & { kind: 'arith' }, a: ElementValue, b: ElementValue): ElementValue {
  const [l, r] = op.scalarOnLeft ? [b, a] : [a, b];
  if (typeof l === 'bigint' && typeof r === 'bigint') {
    switch (op.op) {
      case '+':
        return l + r;
      case '-':
        return l - r;
      case '*':
        return l * r;
      case '/':
        throw new RangeError('integer true division is computed in Float (the inputs line promotes it)');
      default: {
        const never: never = op.op;
        throw new Error(`unknown arithmetic ${String(never)}`);
      }
    }
  }
  const x = asNumber(l);
  const y = asNumber(r);
  switch (op.op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    default: {
      const never: never = op.op;
      throw new Error(`unknown arithmetic ${String(never)}`);
    }
  }
}

/**
 * The scalar operand as ATen's kernels use it (measured against PyTorch's CPU kernels, the
 * oracle of the inputs tests): for Float, Double and integer results the scalar in the result
 * dtype; for Half / BFloat16 results (computed in Float) `+` / `-` take the scalar rounded to the
 * result dtype first, `*` takes it in Float, and `/` multiplies by its Float reciprocal.
 */
function scalarOperandOf(op: TensorViewOp & { kind: 'arith' }): { scalar: ElementValue; applied: TensorViewOp & { kind: 'arith' } } {
  const reduced = op.dtype === 'Half' || op.dtype === 'BFloat16';
  if (!reduced) return { scalar: castTo(op.scalar, op.computeDtype), applied: op };
  switch (op.op) {
    case '+':
    case '-':
      return { scalar: castTo(castTo(op.scalar, op.dtype), op.computeDtype), applied: op };
    case '*':
      return { scalar: castTo(op.scalar, op.computeDtype), applied: op };
    case '/':
      return { scalar: castTo(1 / asNumber(castTo(op.scalar, op.computeDtype)), op.computeDtype), applied: { ...op, op: '*' } };
    default: {
      const never: never = op.op;
      throw new Error(`unknown arithmetic ${String(never)}`);
    }
  }
}

/**
 * `src <op> scalar` (or `scalar <op> src`) elementwise as PyTorch computes it: both sides in the
 * compute dtype (Float for Half / BFloat16; the scalar as scalarOperandOf says), the exact result
 * rounded to the compute dtype (one IEEE operation: a double result of two floats rounds to the
 * float result exactly), then stored as the result dtype.
 */
export function arithWithScalar(src: HostTensor, op: TensorViewOp & { kind: 'arith' }, layout: StridedLayout): HostTensor {
  if (isComplexType(src.dtype)) throw new RangeError('complex arithmetic is not evaluated in an inputs list');
  const out = emptyOf(layout);
  const { scalar, applied } = scalarOperandOf(op);
  for (let i = 0; i < src.numel; i += 1) {
    const v = castTo(arithValue(applied, castTo(src.get(i), op.computeDtype), scalar), op.computeDtype);
    out.setFlat(i, castTo(v, op.dtype));
  }
  return out;
}

/** NaN counts as larger than every number, as in PyTorch's topk and sort. */
function topkOrder(largest: boolean): (a: number, b: number) => number {
  return (a, b) => {
    if (Number.isNaN(a) || Number.isNaN(b)) {
      if (Number.isNaN(a) && Number.isNaN(b)) return 0;
      const aFirst = Number.isNaN(a) === largest;
      return aFirst ? -1 : 1;
    }
    return largest ? b - a : a - b;
  };
}

/**
 * torch.topk along `op.dim`: the k largest (or smallest) of each row, sorted, as values or Int
 * indices into the row. Ties keep the lower index first (a stable sort).
 */
export function topkValues(src: HostTensor, op: TensorViewOp & { kind: 'topk' }, layout: StridedLayout): HostTensor {
  if (isComplexType(src.dtype)) throw new RangeError('topk is not implemented for complex tensors');
  const out = emptyOf(layout);
  const rank = src.sizes.length;
  if (rank === 0) {
    if (op.k === 1) out.setFlat(0, op.output === 'indices' ? 0n : src.get(0));
    return out;
  }
  const dim = op.dim < 0 ? op.dim + rank : op.dim;
  const n = src.sizes[dim] as number;
  const inner = src.sizes.slice(dim + 1).reduce((a, b) => a * b, 1);
  const outer = src.sizes.slice(0, dim).reduce((a, b) => a * b, 1);
  const order = topkOrder(op.largest);
  for (let o = 0; o < outer; o += 1) {
    for (let j = 0; j < inner; j += 1) {
      const row = [...Array(n).keys()].map((i) => ({ i, v: src.get((o * n + i) * inner + j) }));
      row.sort((a, b) => order(asNumber(a.v), asNumber(b.v)) || a.i - b.i);
      for (let r = 0; r < op.k; r += 1) {
        const picked = row[r] as { i: number; v: ElementValue };
        out.setFlat((o * op.k + r) * inner + j, op.output === 'indices' ? BigInt(picked.i) : picked.v);
      }
    }
  }
  return out;
}
