// `fd.ops` entries for pointwise math: unary, binary and ternary ops over tensors and scalars,
// plus cast and gelu. Names follow nvFuser (camelCase here, snake_case in python); operands may
// be tensors, scalars or JS constants (which become `defineScalar` records, as nvFuser's newer
// frontend does with python numbers).

import * as ir from '@tsfuser/fusion-ir';
import type { DataType, Scalar, TensorView } from '@tsfuser/fusion-ir';
import type { ScalarHandle, TensorHandle } from './handles.js';
import { op, snakeCase, type OpArgs, type OpSpec, type ParamSpec, type TypedOpSpec } from './op-spec.js';

/** An operand of a pointwise op: a tensor, a scalar, or a JS constant. */
export type Operand = TensorHandle | ScalarHandle | number | boolean;

/** A tensor when any operand is a tensor, else a scalar. */
export type PointwiseResult<A extends readonly unknown[]> = [Extract<A[number], TensorHandle>] extends [never]
  ? ScalarHandle
  : TensorHandle;

export type UnaryFn = <A extends Operand>(x: A) => PointwiseResult<[A]>;
export type BinaryFn = <A extends Operand, B extends Operand>(a: A, b: B) => PointwiseResult<[A, B]>;
export type TernaryFn = <A extends Operand, B extends Operand, C extends Operand>(
  a: A,
  b: B,
  c: C,
) => PointwiseResult<[A, B, C]>;

type AnyUnary = (x: TensorView | Scalar) => TensorView | Scalar;
type AnyBinary = (a: TensorView | Scalar, b: TensorView | Scalar) => TensorView | Scalar;

const operand = (name: string, python = name): ParamSpec => ({ name, python, kind: 'operand' });

export const UNARY_NAMES = [
  'abs', 'acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'ceil', 'cos', 'cosh', 'exp', 'exp2', 'expm1',
  'erf', 'erfc', 'erfinv', 'erfcx', 'erfcinv', 'floor', 'frac', 'lgamma', 'digamma', 'log', 'log10', 'log1p', 'log2',
  'neg', 'reciprocal', 'relu', 'round', 'rsqrt', 'sigmoid', 'signbit', 'sign', 'sin', 'sinh', 'sqrt', 'tan',
  'tanh', 'trunc', 'isfinite', 'isinf', 'isnan', 'isneginf', 'isposinf', 'isreal', 'logicalNot', 'bitwiseNot',
  'silu',
  'real', 'imag',
] as const;

export const BINARY_NAMES = [
  'add', 'sub', 'mul', 'div', 'truediv', 'fmod', 'remainder', 'pow', 'atan2', 'minimum', 'maximum', 'eq', 'ne',
  'lt', 'le', 'gt', 'ge', 'logicalAnd', 'logicalOr', 'logicalXor', 'bitwiseAnd', 'bitwiseOr', 'bitwiseXor',
  'bitwiseLeftShift', 'bitwiseRightShift', 'logicalRightShift', 'ceilDiv', 'mod', 'nextafter', 'gcd', 'hypot',
  'copysign', 'floordiv',
  'complex',
] as const;

export type UnaryName = (typeof UNARY_NAMES)[number];
export type BinaryName = (typeof BINARY_NAMES)[number];

function unarySpec(name: UnaryName): TypedOpSpec<UnaryFn> {
  const fn = ir[name] as AnyUnary;
  return op<UnaryFn>({
    name,
    python: snakeCase(name),
    params: [operand('arg')],
    output: 'pointwise',
    apply: (_f, a) => [fn(a.operand(0))],
  });
}

function binarySpec(name: BinaryName): TypedOpSpec<BinaryFn> {
  const fn = ir[name] as AnyBinary;
  return op<BinaryFn>({
    name,
    python: snakeCase(name),
    params: [operand('arg1'), operand('arg2')],
    output: 'pointwise',
    apply: (_f, a) => [fn(a.operand(0), a.operand(1))],
  });
}

function ternarySpec(name: string, paramNames: readonly [string, string, string], fn: (a: OpArgs) => TensorView | Scalar): OpSpec {
  return {
    name,
    python: snakeCase(name),
    params: paramNames.map((p) => operand(p, snakeCase(p))),
    output: 'pointwise',
    apply: (_f, a) => [fn(a)],
  };
}

export const unaryOps = Object.fromEntries(UNARY_NAMES.map((n) => [n, unarySpec(n)])) as {
  [K in UnaryName]: TypedOpSpec<UnaryFn>;
};

export const binaryOps = Object.fromEntries(BINARY_NAMES.map((n) => [n, binarySpec(n)])) as {
  [K in BinaryName]: TypedOpSpec<BinaryFn>;
};

function tensorOf(a: OpArgs, i: number): TensorView {
  return a.tensor(i);
}

export const otherPointwiseOps = {
  where: op<TernaryFn>(ternarySpec('where', ['pred', 'arg1', 'arg2'], (a) => ir.where(a.operand(0), a.operand(1), a.operand(2)))),
  lerp: op<TernaryFn>(ternarySpec('lerp', ['start', 'end', 'weight'], (a) => ir.lerp(a.operand(0), a.operand(1), a.operand(2)))),
  clamp: op<(arg: TensorHandle, min: Operand, max: Operand) => TensorHandle>(
    ternarySpec('clamp', ['arg', 'min', 'max'], (a) => ir.clamp(tensorOf(a, 0), a.operand(1), a.operand(2))),
  ),
  threshold: op<(arg: TensorHandle, threshold: Operand, value: Operand) => TensorHandle>(
    ternarySpec('threshold', ['arg', 'threshold', 'value'], (a) => ir.threshold(tensorOf(a, 0), a.operand(1), a.operand(2))),
  ),
  addcmul: op<(arg: TensorHandle, tensor1: Operand, tensor2: Operand, value?: Operand) => TensorHandle>({
    name: 'addcmul',
    python: 'addcmul',
    params: [operand('arg'), operand('tensor1'), operand('tensor2'), { name: 'value', python: 'value', kind: 'operand', default: 1 }],
    output: 'tensor',
    apply: (_f, a) => [ir.addcmul(a.tensor(0), a.operand(1), a.operand(2), a.operand(3))],
  }),
  addcdiv: op<(arg: TensorHandle, tensor1: Operand, tensor2: Operand, value?: Operand) => TensorHandle>({
    name: 'addcdiv',
    python: 'addcdiv',
    params: [operand('arg'), operand('tensor1'), operand('tensor2'), { name: 'value', python: 'value', kind: 'operand', default: 1 }],
    output: 'tensor',
    apply: (_f, a) => [ir.addcdiv(a.tensor(0), a.operand(1), a.operand(2), a.operand(3))],
  }),
  cast: op<<A extends TensorHandle | ScalarHandle>(arg: A, dtype: DataType) => A extends TensorHandle ? TensorHandle : ScalarHandle>({
    name: 'cast',
    python: 'cast',
    params: [operand('arg'), { name: 'dtype', python: 'dtype', kind: 'dtype' }],
    output: 'pointwise',
    apply: (_f, a) => {
      const dtype = a.dtype(1);
      if (dtype === undefined) throw new ir.FusionIrError('cast: dtype must not be Null');
      return [ir.cast(a.operand(0), dtype)];
    },
  }),
  gelu: op<(arg: TensorHandle, approximate?: 'none' | 'tanh') => TensorHandle>({
    name: 'gelu',
    python: 'gelu',
    params: [operand('arg'), { name: 'approximate', python: 'approximate', kind: 'string', default: 'none', choices: ['none', 'tanh'] }],
    output: 'tensor',
    apply: (_f, a) => [ir.gelu(a.tensor(0), a.string(1) === 'tanh' ? 'tanh' : 'none')],
  }),
};
