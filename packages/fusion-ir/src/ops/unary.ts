// Unary pointwise ops. Float math on integral/bool inputs computes in Float (as torch does);
// predicates give Bool; rounding, sign and abs keep the input dtype.

import { complexComponentType, isComplexType, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { UnaryOp } from '../ir/expr.js';
import { isPredicateUnaryOp, type UnaryOpType } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { checkDtype, describe, fusionOf, toVal, type Operand, type TensorOrScalar } from './operand.js';
import { pointwiseOutput } from './pointwise.js';
import { categoryOf, floatOpType } from './type-promotion.js';

const KEEPS_DTYPE: ReadonlySet<UnaryOpType> = new Set<UnaryOpType>([
  'abs', 'neg', 'relu', 'ceil', 'floor', 'round', 'trunc', 'sign', 'frac',
]);

export function unaryResultType(op: UnaryOpType, dtype: DataType): DataType {
  if (isPredicateUnaryOp(op)) return 'Bool';
  // |z|, real(z) and imag(z) of a complex z are real numbers of the components' precision.
  if (op === 'abs' || op === 'real' || op === 'imag') {
    if (isComplexType(dtype)) return complexComponentType(dtype);
  }
  if (op === 'bitwise_not') return dtype;
  if (KEEPS_DTYPE.has(op)) return dtype === 'Bool' && op !== 'abs' ? 'Bool' : dtype;
  return floatOpType(dtype);
}

/** Builds `op(x)`; the output is a TensorView for tensor inputs and a Scalar for scalars. */
export function unaryOp(op: UnaryOpType, x: TensorView, outDtype?: DataType): TensorView;
export function unaryOp(op: UnaryOpType, x: Scalar, outDtype?: DataType): Scalar;
export function unaryOp(op: UnaryOpType, x: TensorOrScalar, outDtype?: DataType): TensorOrScalar;
export function unaryOp(op: UnaryOpType, x: TensorOrScalar, outDtype?: DataType): TensorOrScalar {
  const fusion = x.fusion;
  if (op === 'bitwise_not' && categoryOf(x.dtype) === 2) {
    throw new FusionIrError(`bitwise_not: ${describe(x)} is floating point; bitwise ops need integral or bool`);
  }
  if ((op === 'frac' || op === 'erfinv' || op === 'erfcinv' || op === 'lgamma' || op === 'digamma') && x.dtype === 'Bool') {
    throw new FusionIrError(`${op}: not defined for ${describe(x)}`);
  }
  const dtype = outDtype ?? unaryResultType(op, x.dtype);
  const tv = pointwiseOutput(op, fusion, [x], dtype);
  const out: TensorOrScalar = tv ?? fusion.newSymbolicScalar(dtype);
  new UnaryOp(fusion, op, out, x);
  return out;
}

function make(op: UnaryOpType) {
  function f(x: TensorView): TensorView;
  function f(x: Scalar): Scalar;
  function f(x: Operand): TensorOrScalar;
  function f(x: Operand): TensorOrScalar {
    const fusion = fusionOf(op, [x]);
    return unaryOp(op, toVal(fusion, x));
  }
  return f;
}

export const abs = make('abs');
export const acos = make('acos');
export const acosh = make('acosh');
export const asin = make('asin');
export const asinh = make('asinh');
export const atan = make('atan');
export const atanh = make('atanh');
export const ceil = make('ceil');
export const cos = make('cos');
export const cosh = make('cosh');
export const exp = make('exp');
export const exp2 = make('exp2');
export const expm1 = make('expm1');
export const erf = make('erf');
export const erfc = make('erfc');
export const erfinv = make('erfinv');
export const erfcx = make('erfcx');
/** erfcinv(x): the inverse of erfc on [0, 2] (nvFuser's Erfcinv; NaN outside). */
export const erfcinv = make('erfcinv');
export const floor = make('floor');
export const frac = make('frac');
export const lgamma = make('lgamma');
export const digamma = make('digamma');
export const log = make('log');
export const log10 = make('log10');
export const log1p = make('log1p');
export const log2 = make('log2');
export const neg = make('neg');
export const reciprocal = make('reciprocal');
export const relu = make('relu');
export const round = make('round');
export const rsqrt = make('rsqrt');
export const sigmoid = make('sigmoid');
export const signbit = make('signbit');
export const sign = make('sign');
export const sin = make('sin');
export const sinh = make('sinh');
export const sqrt = make('sqrt');
export const tan = make('tan');
export const tanh = make('tanh');
export const trunc = make('trunc');
export const isfinite = make('isfinite');
export const isinf = make('isinf');
export const isnan = make('isnan');
export const isneginf = make('isneginf');
export const isposinf = make('isposinf');
export const isreal = make('isreal');
export const logicalNot = make('logical_not');
export const bitwiseNot = make('bitwise_not');
export const silu = make('silu');

/**
 * gelu(x), as torch.nn.functional.gelu:
 *   'none': x * 0.5 * (1 + erf(x / √2));
 *   'tanh': 0.5 * x * (1 + tanh(√(2/π) * (x + 0.044715 x³))).
 * silu(x) = x * sigmoid(x); sigmoid(x) = 1 / (1 + exp(-x)); relu(x) = max(x, 0);
 * round is round-half-to-even (torch.round); sign gives -1/0/1 in the input dtype.
 */
export function gelu(x: TensorView, approximate?: 'none' | 'tanh'): TensorView;
export function gelu(x: Scalar, approximate?: 'none' | 'tanh'): Scalar;
export function gelu(x: TensorOrScalar, approximate: 'none' | 'tanh' = 'none'): TensorOrScalar {
  return unaryOp(approximate === 'tanh' ? 'gelu_tanh' : 'gelu', x);
}

/** Converts to `dtype`; a cast to the same dtype is still a (copy) expression, as in nvFuser. */
export function cast(x: TensorView, dtype: DataType): TensorView;
export function cast(x: Scalar, dtype: DataType): Scalar;
export function cast(x: TensorOrScalar, dtype: DataType): TensorOrScalar;
export function cast(x: TensorOrScalar, dtype: DataType): TensorOrScalar {
  // Dtypes may come from untyped sources (parsed definitions): check the name at runtime.
  return unaryOp('cast', x, checkDtype('cast', dtype));
}
