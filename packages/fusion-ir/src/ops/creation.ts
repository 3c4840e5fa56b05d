// Tensor factories inside a fusion: full / zeros / ones (FullOp), the *Like helpers, iota and
// arange (IotaOp). Sizes are JS integers or integral Scalars; a constant size 1 gives a
// Broadcast ID (as fusion inputs of size 1 do), other sizes Iteration IDs.

import type { DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { FullOp, IotaOp } from '../ir/expr.js';
import type { Fusion } from '../ir/fusion.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { binaryOp } from './binary.js';
import { checkDtype } from './operand.js';
import { extentOp, shape, toExtent, type SizeOperand } from './shape.js';
import { categoryOf } from './type-promotion.js';
import { cast } from './unary.js';

/** A scalar of `dtype` holding `value` (a JS value becomes a constant, a Scalar is cast if needed). */
export function scalarOf(fusion: Fusion, value: Scalar | number | boolean | bigint, dtype: DataType): Scalar {
  if (typeof value === 'object') return value.dtype === dtype ? value : cast(value, dtype);
  if (dtype === 'Bool') return fusion.constant(Boolean(value), dtype);
  if (categoryOf(dtype) === 1) return fusion.constant(typeof value === 'bigint' ? value : Math.trunc(Number(value)), dtype);
  return fusion.constant(Number(value), dtype);
}

/** full(fusion, shape, fillValue, dtype): a tensor of `shape` with every element `fillValue` cast to `dtype`. */
export function full(fusion: Fusion, sizes: readonly SizeOperand[], fillValue: Scalar | number | boolean | bigint, dtype: DataType): TensorView {
  checkDtype('full', dtype);
  const extents = sizes.map((s) => {
    const e = toExtent(fusion, 'full', s);
    const c = e.constNumber();
    if (c !== null && c < 0) throw new FusionIrError(`full: negative size ${c} in [${sizes.join(', ')}]`);
    return e;
  });
  const logical = extents.map((e) => fusion.newIterDomain(e, e.constNumber() === 1 ? 'Broadcast' : 'Iteration'));
  const out = fusion.newTensorFromDomain(logical, dtype);
  new FullOp(fusion, out, scalarOf(fusion, fillValue, dtype), extents);
  return out;
}

/** zeros(fusion, shape, dtype) = full(…, 0, dtype). */
export function zeros(fusion: Fusion, sizes: readonly SizeOperand[], dtype: DataType = 'Float'): TensorView {
  return full(fusion, sizes, 0, dtype);
}

/** ones(fusion, shape, dtype) = full(…, 1, dtype). */
export function ones(fusion: Fusion, sizes: readonly SizeOperand[], dtype: DataType = 'Float'): TensorView {
  return full(fusion, sizes, 1, dtype);
}

/** fullLike(tv, fillValue, dtype = tv.dtype): full with tv's (symbolic) sizes. */
export function fullLike(tv: TensorView, fillValue: Scalar | number | boolean | bigint, dtype: DataType = tv.dtype): TensorView {
  return full(tv.fusion, shape(tv), fillValue, dtype);
}

export function zerosLike(tv: TensorView, dtype: DataType = tv.dtype): TensorView {
  return fullLike(tv, 0, dtype);
}

export function onesLike(tv: TensorView, dtype: DataType = tv.dtype): TensorView {
  return fullLike(tv, 1, dtype);
}

/** iota(fusion, length, start = 0, step = 1, dtype = Int): [start, start+step, …] (length elements). */
export function iota(
  fusion: Fusion,
  length: SizeOperand,
  start: Scalar | number = 0,
  step: Scalar | number = 1,
  dtype: DataType = 'Int',
): TensorView {
  checkDtype('iota', dtype);
  if (dtype === 'Bool') throw new FusionIrError('iota: dtype must be integral or floating, got Bool');
  const n = toExtent(fusion, 'iota', length);
  const c = n.constNumber();
  if (c !== null && c < 0) throw new FusionIrError(`iota: negative length ${c}`);
  const out = fusion.newTensorFromDomain([fusion.newIterDomain(n, 'Iteration')], dtype);
  new IotaOp(fusion, out, n, scalarOf(fusion, start, dtype), scalarOf(fusion, step, dtype), dtype);
  return out;
}

/**
 * arange(fusion, start, end, step = 1, dtype = Int): torch.arange — length ceil((end-start)/step)
 * (0 when negative), as an iota. Integer bounds: the length is an Index expression when symbolic.
 */
export function arange(fusion: Fusion, start: Scalar | number, end: Scalar | number, step: Scalar | number = 1, dtype: DataType = 'Int'): TensorView {
  const vals = [start, end, step];
  const consts = vals.map((v) => (typeof v === 'number' ? v : v.constNumber()));
  if (consts[2] === 0) throw new FusionIrError('arange: step must be non-zero');
  let length: Scalar;
  if (consts.every((c) => c !== null)) {
    const [a, b, s] = consts as [number, number, number];
    length = fusion.index(Math.max(0, Math.ceil((b - a) / s)));
  } else {
    const [a, b, s] = vals.map((v) => (typeof v === 'number' ? fusion.index(v) : v)) as [Scalar, Scalar, Scalar];
    if ([a, b, s].some((v) => categoryOf(v.dtype) !== 1)) {
      throw new FusionIrError('arange: symbolic bounds must be integral');
    }
    length = extentOp('maximum', extentOp('ceilDiv', binaryOp('sub', b, a), s), fusion.index(0));
  }
  return iota(fusion, length, start, step, dtype);
}
