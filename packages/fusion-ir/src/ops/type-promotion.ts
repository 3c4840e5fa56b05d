// Type promotion as PyTorch's `torch.result_type` (ATen's ResultTypeState), documented at
// https://pytorch.org/docs/stable/tensor_attributes.html#type-promotion-doc:
//   categories bool < integral < floating. Operands fall in three priority tiers: dimensioned
//   tensors, zero-dim tensors, and scalars (Python numbers). A lower tier only matters when its
//   category is higher than every higher tier's: then the result is promote(higher, lower).
//   Within a tier, dtypes promote pairwise (wider wins; Half with BFloat16 gives Float).
//   A floating scalar counts as the default dtype (Float), an integral scalar as Int (int64), a
//   bool scalar as Bool — so a scalar never widens a tensor of its own category.
// UInt64 promotes with floating types (the float wins) but with no other integral or Bool dtype
// (PyTorch: "Promotion for uint16, uint32, uint64 types is not supported"); an integral Python
// scalar keeps it UInt64 (its value wraps modulo 2^64, −1 → 2^64 − 1).
// Float8 types promote with nothing but themselves (PyTorch's promote_types raises "Promotion for
// Float8 Types is not supported"): mixing an fp8 tensor with another dtype's tensor is an error
// naming both, while a Python-number scalar keeps the fp8 dtype (same category, lower tier).
// Fusion Scalars behave like Python scalars (nvFuser's convention). When every operand is a
// scalar the result is a scalar and keeps the scalars' own promoted dtype (Double for floating
// scalars, as Python arithmetic on floats is double precision, and as nvFuser does).

import { isFloat8Type, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';

//   Complex is a fourth category above floating: complex with a real dtype gives the complex type
//   of matching precision (Double → ComplexDouble, everything else → ComplexFloat), and a complex
//   Python scalar counts as ComplexFloat (torch's default complex dtype). torch gives complex32 for
//   a Half tensor with a complex scalar; nvFuser has no ComplexHalf, so that is ComplexFloat here.

export type Category = 0 | 1 | 2 | 3; // bool, integral, floating, complex

export function categoryOf(dtype: DataType): Category {
  switch (dtype) {
    case 'Bool':
      return 0;
    case 'Int32':
    case 'Int':
    case 'Index':
    case 'UInt64':
      return 1;
    case 'Half':
    case 'BFloat16':
    case 'Float':
    case 'Double':
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
      return 2;
    case 'ComplexFloat':
    case 'ComplexDouble':
      return 3;
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

export interface PromotionOperand {
  dtype: DataType;
  isTensor: boolean;
  /** A tensor of rank 0 (its own tier between dimensioned tensors and scalars). */
  isZeroDim?: boolean;
}

/** Promotes two dtypes of the same kind of operand (both tensors, or both scalars). */
export function promoteTypes(a: DataType, b: DataType): DataType {
  if (a === b) return a;
  if (isFloat8Type(a) || isFloat8Type(b)) {
    throw new FusionIrError(`type promotion of ${a} with ${b} is not supported (as in PyTorch, Float8 types promote with nothing else): cast one operand explicitly`);
  }
  const ca = categoryOf(a);
  const cb = categoryOf(b);
  if (ca === 3 || cb === 3) {
    const wide = a === 'ComplexDouble' || b === 'ComplexDouble' || a === 'Double' || b === 'Double';
    return wide ? 'ComplexDouble' : 'ComplexFloat';
  }
  if ((a === 'UInt64' || b === 'UInt64') && ca !== 2 && cb !== 2) {
    throw new FusionIrError(`type promotion of ${a} with ${b} is not supported (as in PyTorch, UInt64 promotes only with floating types): cast one operand explicitly`);
  }
  if (ca !== cb) return normalizeInt(ca > cb ? a : b);
  if (ca === 2) {
    if ((a === 'Half' && b === 'BFloat16') || (a === 'BFloat16' && b === 'Half')) return 'Float';
    return floatRank(a) >= floatRank(b) ? a : b;
  }
  if (ca === 1) {
    // Index behaves as Int (64-bit) before lowering.
    return intRank(a) >= intRank(b) ? normalizeInt(a) : normalizeInt(b);
  }
  return 'Bool';
}

function floatRank(d: DataType): number {
  return d === 'Double' ? 3 : d === 'Float' ? 2 : 1;
}

function intRank(d: DataType): number {
  return d === 'Int32' ? 1 : 2;
}

function normalizeInt(d: DataType): DataType {
  return d === 'Index' ? 'Int' : d;
}

/** torch.result_type over tensors, zero-dim tensors and scalars. */
export function resultType(operands: readonly PromotionOperand[]): DataType {
  if (operands.length === 0) throw new Error('resultType needs at least one operand');
  let dimResult: DataType | null = null;
  let zeroResult: DataType | null = null;
  let scalarResult: DataType | null = null;
  let scalarOwn: DataType | null = null;
  const promote = (acc: DataType | null, d: DataType): DataType => (acc === null ? normalizeInt(d) : promoteTypes(acc, d));
  for (const op of operands) {
    if (!op.isTensor) {
      scalarResult = promote(scalarResult, wrappedNumberType(op.dtype));
      // Index stays Index in pure index arithmetic (extents, split factors).
      scalarOwn = scalarOwn === null ? op.dtype : promoteTypes(scalarOwn, op.dtype);
    } else if (op.isZeroDim === true) {
      zeroResult = promote(zeroResult, op.dtype);
    } else {
      dimResult = promote(dimResult, op.dtype);
    }
  }
  if (dimResult === null && zeroResult === null) return scalarOwn as DataType;
  const combined = combineCategories(dimResult, combineCategories(zeroResult, scalarResult));
  // Non-null: at least one tensor tier is non-null here.
  return combined ?? 'Float';
}

/** The dtype a Python number stands for in promotion: the default dtype for floats. */
function wrappedNumberType(d: DataType): DataType {
  if (categoryOf(d) === 3) return 'ComplexFloat';
  if (categoryOf(d) === 2) return 'Float';
  if (categoryOf(d) === 1) return 'Int';
  return 'Bool';
}

/** ATen's combine_categories: `lower` matters only when its category is higher than `higher`'s. */
function combineCategories(higher: DataType | null, lower: DataType | null): DataType | null {
  if (higher === null) return lower;
  if (lower === null) return higher;
  if (categoryOf(lower) > categoryOf(higher)) return promoteTypes(higher, lower);
  return higher;
}

/** True division: integral and bool results become the default float dtype. */
export function trueDivideType(operands: readonly PromotionOperand[]): DataType {
  const t = resultType(operands);
  return categoryOf(t) >= 2 ? t : 'Float';
}

/** Float-only unary math (exp, sin, erf …): integral and bool inputs compute in Float. */
export function floatOpType(dtype: DataType): DataType {
  return categoryOf(dtype) >= 2 ? dtype : 'Float';
}
