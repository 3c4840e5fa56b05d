// Operands of ops: Fusion Vals, or JS constants that become constant Scalars of the operands'
// fusion. JS integers in int64's range become Int (int64) constants, other numbers Double,
// booleans Bool — a JS number cannot tell 2 from 2.0, so write `fusion.constant(2, 'Double')` for
// a double 2. An integral number outside int64 (1e308 is one) is a Double: as an Int it had no
// C literal (`1e+308LL`, which NVRTC refused in embedding_fwd's run-time norm_type selection).

import { isDataType, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { Fusion } from '../ir/fusion.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { PromotionOperand } from './type-promotion.js';

export type Operand = TensorView | Scalar | number | boolean | bigint;
export type TensorOrScalar = TensorView | Scalar;

export function fusionOf(op: string, operands: readonly Operand[]): Fusion {
  for (const o of operands) {
    if (typeof o === 'object') return o.fusion;
  }
  throw new FusionIrError(`${op}: at least one operand must be a TensorView or Scalar of a fusion`);
}

/** int64's range is [-2^63, 2^63); both bounds are exact doubles. */
const INT64_BOUND = 2 ** 63;

export function jsConstantType(value: number | boolean | bigint): DataType {
  if (typeof value === 'boolean') return 'Bool';
  if (typeof value === 'bigint') return 'Int';
  const int64 = Number.isInteger(value) && !Object.is(value, -0) && value >= -INT64_BOUND && value < INT64_BOUND;
  return int64 ? 'Int' : 'Double';
}

export function toVal(fusion: Fusion, o: Operand): TensorOrScalar {
  if (typeof o === 'object') {
    if (o.fusion !== fusion) throw new FusionIrError('operands belong to different fusions');
    return o;
  }
  return fusion.constant(o, jsConstantType(o));
}

export function promotionOperand(v: TensorOrScalar): PromotionOperand {
  return { dtype: v.dtype, isTensor: v.kind === 'tensorView', isZeroDim: v.kind === 'tensorView' && v.rank() === 0 };
}

export function describe(v: TensorOrScalar): string {
  if (v.kind === 'tensorView') {
    const dims = v.domain.logicalNoReductions().map((id) => {
      const c = id.logicalExtent().constNumber();
      return c === null ? id.logicalExtent().symbolicName() : String(c);
    });
    return `T${v.name}[${dims.join(', ')}] (${v.dtype})`;
  }
  return v.value !== null ? `${v.dtype}(${String(v.value)})` : v.symbolicName();
}

export function requireTensor(op: string, o: Operand, argName = 'input'): TensorView {
  if (typeof o === 'object' && o.kind === 'tensorView') return o;
  throw new FusionIrError(`${op}: ${argName} must be a TensorView, got ${typeof o === 'object' ? describe(o) : String(o)}`);
}

/** Checks a dtype given as a string (e.g. from a parsed definition); names the bad value. */
export function checkDtype(op: string, dtype: string): DataType {
  if (!isDataType(dtype)) throw new FusionIrError(`${op}: unknown dtype '${dtype}'`);
  return dtype;
}
