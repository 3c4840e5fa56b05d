// Type promotion exactly as PyTorch's `torch.result_type`:
//   categories bool < integral < floating; the result takes the highest category present;
//   within the winning category, tensors decide before scalars — a (Python) scalar only sets the
//   dtype when no tensor of its category or higher is present, and then floating scalars give
//   the default dtype (Float), integral scalars Int (int64), bool scalars Bool.
// Among tensors of one category, the wider dtype wins; Half with BFloat16 gives Float.
// Fusion Scalars behave like Python scalars (nvFuser's convention); zero-dim tensors are tensors.

import type { DataType } from '../ir/data-type.js';

export type Category = 0 | 1 | 2; // bool, integral, floating

export function categoryOf(dtype: DataType): Category {
  switch (dtype) {
    case 'Bool':
      return 0;
    case 'Int32':
    case 'Int':
    case 'Index':
      return 1;
    case 'Half':
    case 'BFloat16':
    case 'Float':
    case 'Double':
      return 2;
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

export interface PromotionOperand {
  dtype: DataType;
  isTensor: boolean;
}

/** Promotes two dtypes of the same kind of operand (both tensors, or both scalars). */
export function promoteTypes(a: DataType, b: DataType): DataType {
  if (a === b) return a;
  const ca = categoryOf(a);
  const cb = categoryOf(b);
  if (ca !== cb) return ca > cb ? a : b;
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

/** torch.result_type over tensors and scalars. */
export function resultType(operands: readonly PromotionOperand[]): DataType {
  if (operands.length === 0) throw new Error('resultType needs at least one operand');
  let tensorType: DataType | null = null;
  let scalarType: DataType | null = null;
  for (const op of operands) {
    if (op.isTensor) tensorType = tensorType === null ? op.dtype : promoteTypes(tensorType, op.dtype);
    else scalarType = scalarType === null ? op.dtype : promoteTypes(scalarType, op.dtype);
  }
  if (tensorType === null) return normalizeScalarOnly(scalarType as DataType);
  if (scalarType === null) return tensorType;
  if (categoryOf(scalarType) > categoryOf(tensorType)) {
    // A higher-category scalar lifts the result to that category's default dtype.
    return categoryOf(scalarType) === 2 ? 'Float' : 'Int';
  }
  return tensorType;
}

function normalizeScalarOnly(d: DataType): DataType {
  return d === 'Index' ? 'Int' : d;
}

/** True division: integral and bool results become the default float dtype. */
export function trueDivideType(operands: readonly PromotionOperand[]): DataType {
  const t = resultType(operands);
  return categoryOf(t) === 2 ? t : 'Float';
}

/** Float-only unary math (exp, sin, erf …): integral and bool inputs compute in Float. */
export function floatOpType(dtype: DataType): DataType {
  return categoryOf(dtype) === 2 ? dtype : 'Float';
}
