// Binary pointwise ops with PyTorch's type promotion (see type-promotion.ts). Comparisons and
// logical ops give Bool; `truediv` turns integral results into Float; `div` on integral types is
// C++ truncating division as in nvFuser (use `truediv` for torch.div semantics).
//
// Exact semantics (the reference evaluator implements these):
//   div(a, b)       ints: trunc(a / b) (C++ `/`); floats: a / b.
//   truediv(a, b)   a / b in the promoted floating dtype (Python `/`, torch.div).
//   floordiv(a, b)  floor(a / b) (Python `//`, torch.floor_divide).
//   fmod(a, b)      a - trunc(a / b) * b: sign of the dividend (C fmod, torch.fmod).
//   remainder(a, b) a - floor(a / b) * b: sign of the divisor (Python `%`, torch.remainder).
//   mod(a, b)       C++ `%` on ints (sign of the dividend; nvFuser's index math).
//   ceilDiv(a, b)   ceil(a / b) on ints, (a + b - 1) / b for positive operands.
//   pow(a, b)       a ** b; ints: exact integer power (b >= 0).
//   minimum/maximum NaN-propagating as torch.minimum/maximum.
//   bitwise_*_shift a << b, a >> b (arithmetic); logical_right_shift: >> on the unsigned bits.
//   atan2, hypot, nextafter, copysign compute in the floating dtype (Float for int operands).

import { complexTypeOf, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { BinaryOp } from '../ir/expr.js';
import { isPredicateBinaryOp, type BinaryOpType } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { describe, fusionOf, promotionOperand, toVal, type Operand, type TensorOrScalar } from './operand.js';
import { broadcastZeroDimOperands, pointwiseOutput } from './pointwise.js';
import { categoryOf, resultType, trueDivideType } from './type-promotion.js';

const INTEGRAL_ONLY: ReadonlySet<BinaryOpType> = new Set<BinaryOpType>([
  'bitwise_and', 'bitwise_or', 'bitwise_xor', 'bitwise_left_shift', 'bitwise_right_shift',
  'logical_right_shift', 'gcd',
]);

const FLOAT_MATH: ReadonlySet<BinaryOpType> = new Set<BinaryOpType>(['atan2', 'hypot', 'nextafter', 'copysign']);

export function binaryResultType(op: BinaryOpType, a: TensorOrScalar, b: TensorOrScalar): DataType {
  const operands = [promotionOperand(a), promotionOperand(b)];
  if (isPredicateBinaryOp(op)) return 'Bool';
  if (op === 'truediv') return trueDivideType(operands);
  if (op === 'complex') return complexTypeOf(resultType(operands));
  const t = resultType(operands);
  if (FLOAT_MATH.has(op)) return categoryOf(t) === 2 ? t : 'Float';
  return t;
}

export function binaryOp(op: BinaryOpType, a: TensorView, b: TensorOrScalar, outDtype?: DataType): TensorView;
export function binaryOp(op: BinaryOpType, a: TensorOrScalar, b: TensorView, outDtype?: DataType): TensorView;
export function binaryOp(op: BinaryOpType, a: Scalar, b: Scalar, outDtype?: DataType): Scalar;
export function binaryOp(op: BinaryOpType, a: TensorOrScalar, b: TensorOrScalar, outDtype?: DataType): TensorOrScalar;
export function binaryOp(op: BinaryOpType, a0: TensorOrScalar, b0: TensorOrScalar, outDtype?: DataType): TensorOrScalar {
  const fusion = a0.fusion;
  if (b0.fusion !== fusion) throw new FusionIrError(`${op}: operands belong to different fusions`);
  // Promotion sees the operands as given (a zero-dim tensor is its own promotion tier).
  const dtypeOut = outDtype ?? binaryResultType(op, a0, b0);
  const [a, b] = broadcastZeroDimOperands([a0, b0] as const);
  if (INTEGRAL_ONLY.has(op) && (categoryOf(a.dtype) === 2 || categoryOf(b.dtype) === 2)) {
    throw new FusionIrError(`${op}: needs integral or bool operands, got ${describe(a)} and ${describe(b)}`);
  }
  const dtype = dtypeOut;
  const tv = pointwiseOutput(op, fusion, [a, b], dtype);
  const out: TensorOrScalar = tv ?? fusion.newSymbolicScalar(dtype);
  new BinaryOp(fusion, op, out, a, b);
  return out;
}

function make(op: BinaryOpType) {
  function f(a: TensorView, b: Operand): TensorView;
  function f(a: Operand, b: TensorView): TensorView;
  function f(a: Scalar | number | boolean | bigint, b: Scalar | number | boolean | bigint): Scalar;
  function f(a: Operand, b: Operand): TensorOrScalar;
  function f(a: Operand, b: Operand): TensorOrScalar {
    const fusion = fusionOf(op, [a, b]);
    return binaryOp(op, toVal(fusion, a), toVal(fusion, b));
  }
  return f;
}

export const add = make('add');
export const sub = make('sub');
export const mul = make('mul');
export const div = make('div');
export const truediv = make('truediv');
export const fmod = make('fmod');
export const remainder = make('remainder');
export const pow = make('pow');
export const atan2 = make('atan2');
export const minimum = make('minimum');
export const maximum = make('maximum');
export const eq = make('eq');
export const ne = make('ne');
export const lt = make('lt');
export const le = make('le');
export const gt = make('gt');
export const ge = make('ge');
export const logicalAnd = make('logical_and');
export const logicalOr = make('logical_or');
export const logicalXor = make('logical_xor');
export const bitwiseAnd = make('bitwise_and');
export const bitwiseOr = make('bitwise_or');
export const bitwiseXor = make('bitwise_xor');
export const bitwiseLeftShift = make('bitwise_left_shift');
export const bitwiseRightShift = make('bitwise_right_shift');
export const logicalRightShift = make('logical_right_shift');
export const ceilDiv = make('ceilDiv');
export const mod = make('mod');
export const nextafter = make('nextafter');
export const gcd = make('gcd');
export const hypot = make('hypot');
export const copysign = make('copysign');
export const floordiv = make('floordiv');
