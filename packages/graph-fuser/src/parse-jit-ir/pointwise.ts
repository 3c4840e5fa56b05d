// Lowerings of pointwise aten ops: unary math, binary arithmetic with `alpha`, division with
// rounding modes, comparisons and logical ops, where/clamp/threshold and friends. Operands are
// broadcast and promoted by operands.ts; result dtypes follow torch.result_type (fusion-ir's
// ops implement it), so an aten op and its lowering agree on dtype.

import {
  abs, acos, acosh, add, asin, asinh, atan, atan2, bitwiseAnd, bitwiseNot, bitwiseOr, bitwiseXor, ceil, clamp, cos, cosh,
  digamma, eq, erf, erfc, erfinv, exp, exp2, expm1, floor, floordiv, fmod, frac, ge, gt, isfinite, isinf, isnan, le,
  lerp, lgamma, log, log10, log1p, log2, logicalAnd, logicalNot, logicalOr, logicalXor, lt, maximum, minimum, mul, ne,
  neg, pow, reciprocal, relu, remainder, round, rsqrt, sigmoid, sign, sin, sinh, sqrt, sub, tan, tanh, trunc, truediv,
  where, div, set, categoryOf, toVal, cast, threshold, atanh, isneginf, isposinf, isreal, bitwiseLeftShift, bitwiseRightShift,
  type Operand, type Scalar, type TensorView,
} from '@tsfuser/fusion-ir';
import type { NodeArgs } from './args.js';
import type { JitOpEntry, OpTableSection } from './op-entry.js';
import { isOne, isTensor, out, prepareOperands } from './operands.js';
import type { JitVal } from './values.js';

type TensorOrScalar = TensorView | Scalar;

/** Reads the named operands, prepares them and applies `fn`. */
function lowerPointwise(args: NodeArgs, names: readonly string[], fn: (...xs: Operand[]) => TensorOrScalar): JitVal[] {
  const operands = prepareOperands(names.map((n) => args.operand(n)));
  return out(fn(...operands));
}

function asTensor(args: NodeArgs, o: Operand): TensorView {
  return isTensor(o) ? o : args.fail('expected a tensor operand');
}

// ---- unary ------------------------------------------------------------------------------

const UNARY: Readonly<Record<string, (x: TensorView) => TensorView>> = {
  abs, acos, acosh, asin, asinh, atan, ceil, cos, cosh, digamma, erf, erfc, erfinv, exp, exp2, expm1, floor, frac,
  lgamma, log, log10, log1p, log2, neg, reciprocal, relu, round, rsqrt, sigmoid, sign, sin, sinh, sqrt, tan, tanh,
  trunc, isnan, isinf, isfinite, logical_not: logicalNot, bitwise_not: bitwiseNot, atanh, isneginf, isposinf, isreal,
};

function unaryEntries(): Record<string, JitOpEntry> {
  const table: Record<string, JitOpEntry> = {};
  for (const [name, fn] of Object.entries(UNARY)) {
    table[`aten::${name}`] = {
      schemas: [`aten::${name}(Tensor self) -> Tensor`],
      lower: (args) => out(fn(args.tensor('self'))),
    };
  }
  return table;
}

// ---- binary -----------------------------------------------------------------------------

/** Tensor-Tensor and Tensor-Scalar overloads of `aten::<name>(self, other)`. */
function binarySchemas(name: string): string[] {
  return [`aten::${name}.Tensor(Tensor self, Tensor other) -> Tensor`, `aten::${name}.Scalar(Tensor self, Scalar other) -> Tensor`];
}

function binary(name: string, fn: (a: Operand, b: Operand) => TensorOrScalar, schemas = binarySchemas(name)): JitOpEntry {
  return { schemas, lower: (args) => lowerPointwise(args, ['self', 'other'], fn) };
}

const BINARY: Readonly<Record<string, (a: Operand, b: Operand) => TensorOrScalar>> = {
  eq, ne, lt, le, gt, ge, fmod, remainder, logical_and: logicalAnd, logical_or: logicalOr, logical_xor: logicalXor,
  bitwise_and: bitwiseAnd, bitwise_or: bitwiseOr, bitwise_xor: bitwiseXor,
  // Python's operators on tensors: `a & b`, `a | b`, `a ^ b`, `a << b`, `a >> b` (arithmetic for
  // signed ints, as torch's bitwise_right_shift).
  __and__: bitwiseAnd, __or__: bitwiseOr, __xor__: bitwiseXor, __lshift__: bitwiseLeftShift, __rshift__: bitwiseRightShift,
  bitwise_left_shift: bitwiseLeftShift, bitwise_right_shift: bitwiseRightShift,
};

function binaryEntries(): Record<string, JitOpEntry> {
  const table: Record<string, JitOpEntry> = {};
  for (const [name, fn] of Object.entries(BINARY)) table[`aten::${name}`] = binary(name, fn);
  return table;
}

/** self ± alpha·other (torch.add/sub); alpha 1 adds nothing, as in the legacy parser. */
function lowerAlpha(args: NodeArgs, combine: (a: Operand, b: Operand) => TensorOrScalar, reversed = false): JitVal[] {
  const [self, other, alpha] = prepareOperands([args.operand('self'), args.operand('other'), args.has('alpha') ? args.operand('alpha') : 1]) as [
    Operand,
    Operand,
    Operand,
  ];
  const [a, b] = reversed ? [other, self] : [self, other];
  const scaled = isOne(alpha) ? b : mul(toVal(args.fusion, b), alpha);
  return out(combine(a, scaled));
}

function alphaSchemas(name: string): string[] {
  return [
    `aten::${name}.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`,
    `aten::${name}.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor`,
  ];
}

/** torch.div: true division, or rounded with rounding_mode 'trunc' / 'floor'. */
function lowerDiv(args: NodeArgs): JitVal[] {
  const mode = args.has('rounding_mode') ? args.optionalStr('rounding_mode') : null;
  const [a, b] = prepareOperands([args.operand('self'), args.operand('other')]) as [Operand, Operand];
  switch (mode) {
    case null:
      return out(truediv(a, b));
    case 'trunc': {
      const q = div(a, b);
      return out(categoryOf(q.dtype) === 2 ? trunc(asTensor(args, q)) : q);
    }
    case 'floor':
      return out(floordiv(a, b));
    default:
      return args.fail(`rounding_mode "${mode}" is not one of None, "trunc", "floor"`);
  }
}

/** self + value·tensor1·tensor2 (torch.addcmul); value 1 adds no multiply. */
function addcmulOf(...[t, a, b, value]: Operand[]): TensorOrScalar {
  if (t === undefined || a === undefined || b === undefined || value === undefined) throw new Error('addcmul needs four operands');
  const product = mul(a, b);
  return add(t, isOne(value) ? product : mul(value, product));
}

/**
 * where(condition, self, other). With two number branches torch gives the default dtype of their
 * category (Float for floats), where Fusion IR scalars would promote to Double: cast to match.
 */
function lowerWhere(args: NodeArgs): JitVal[] {
  const [c, a, b] = prepareOperands(['condition', 'self', 'other'].map((n) => args.operand(n))) as [Operand, Operand, Operand];
  const result = where(c, a, b);
  const numbersOnly = !isTensor(a) && !isTensor(b);
  return out(numbersOnly && result.kind === 'tensorView' && result.dtype === 'Double' ? cast(result, 'Float') : result);
}

// ---- clamp family -------------------------------------------------------------------------

/** clamp with optional bounds: both → clamp, one → maximum/minimum (NaN-propagating, like torch). */
function lowerClamp(args: NodeArgs, minName: string | null, maxName: string | null): JitVal[] {
  const lo = minName !== null && !args.isNone(minName) ? args.operand(minName) : null;
  const hi = maxName !== null && !args.isNone(maxName) ? args.operand(maxName) : null;
  const x = args.tensor('self');
  if (lo === null && hi === null) return args.fail('clamp needs at least one of min and max');
  const [xp, lop, hip] = prepareOperands([x, lo ?? 0, hi ?? 0]) as [Operand, Operand, Operand];
  const xt = asTensor(args, xp);
  if (lo !== null && hi !== null) return out(clamp(xt, lop, hip));
  return out(lo !== null ? maximum(xt, lop) : minimum(xt, hip));
}

const CLAMP_CHECK = (a: { isNone(n: string): boolean; has(n: string): boolean }): string | null =>
  a.has('min') && a.has('max') && a.isNone('min') && a.isNone('max') ? 'clamp with neither min nor max' : null;

// ---- table --------------------------------------------------------------------------------

export const POINTWISE_OPS: OpTableSection = {
  ...unaryEntries(),
  ...binaryEntries(),
  'aten::add': { schemas: alphaSchemas('add'), lower: (args) => lowerAlpha(args, add) },
  'aten::sub': { schemas: alphaSchemas('sub'), lower: (args) => lowerAlpha(args, sub) },
  'aten::rsub': { schemas: alphaSchemas('rsub'), lower: (args) => lowerAlpha(args, sub, true) },
  'aten::mul': binary('mul', mul),
  'aten::div': {
    schemas: [
      ...binarySchemas('div'),
      'aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor',
      'aten::div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor',
    ],
    constants: ['rounding_mode'],
    lower: lowerDiv,
  },
  'aten::true_divide': binary('true_divide', truediv),
  'aten::pow': {
    schemas: [
      'aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor',
      'aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor',
      'aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor',
    ],
    lower: (args) => lowerPointwise(args, ['self', 'exponent'], pow),
  },
  'aten::atan2': binary('atan2', atan2, ['aten::atan2(Tensor self, Tensor other) -> Tensor']),
  'aten::maximum': binary('maximum', maximum, ['aten::maximum(Tensor self, Tensor other) -> Tensor']),
  'aten::minimum': binary('minimum', minimum, ['aten::minimum(Tensor self, Tensor other) -> Tensor']),
  // The binary overloads of torch.max / torch.min (the reducing ones are not this entry's).
  'aten::max': binary('max', maximum, ['aten::max.other(Tensor self, Tensor other) -> Tensor']),
  'aten::min': binary('min', minimum, ['aten::min.other(Tensor self, Tensor other) -> Tensor']),
  // input + bias, or input when bias is None (the JIT's own op, from decomposed linear/conv).
  'prim::add_optional': {
    schemas: ['prim::add_optional(Tensor(a) input, Tensor? bias) -> Tensor(a)'],
    lower: (args) => (args.isNone('bias') ? out(set(args.tensor('input'))) : lowerPointwise(args, ['input', 'bias'], add)),
  },
  'aten::where': {
    schemas: [
      'aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor',
      'aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor',
      'aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor',
      'aten::where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor',
    ],
    lower: lowerWhere,
  },
  'aten::lerp': {
    schemas: [
      'aten::lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor',
      'aten::lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor',
    ],
    lower: (args) => lowerPointwise(args, ['self', 'end', 'weight'], lerp),
  },
  'aten::addcmul': {
    schemas: ['aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor'],
    lower: (args) => lowerPointwise(args, ['self', 'tensor1', 'tensor2', 'value'], addcmulOf),
  },
  'aten::clamp': {
    schemas: [
      'aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor',
      'aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor',
    ],
    check: CLAMP_CHECK,
    lower: (args) => lowerClamp(args, 'min', 'max'),
  },
  'aten::clamp_min': {
    schemas: ['aten::clamp_min(Tensor self, Scalar min) -> Tensor', 'aten::clamp_min.Tensor(Tensor self, Tensor min) -> Tensor'],
    lower: (args) => lowerClamp(args, 'min', null),
  },
  'aten::clamp_max': {
    schemas: ['aten::clamp_max(Tensor self, Scalar max) -> Tensor', 'aten::clamp_max.Tensor(Tensor self, Tensor max) -> Tensor'],
    lower: (args) => lowerClamp(args, null, 'max'),
  },
  'aten::hardtanh': {
    schemas: ['aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor'],
    lower: (args) => lowerClamp(args, 'min_val', 'max_val'),
  },
  'aten::threshold': {
    schemas: ['aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor'],
    lower: (args) => lowerPointwise(args, ['self', 'threshold', 'value'], (x, t, v) => threshold(x as TensorView, t as Operand, v as Operand)),
  },
  'aten::leaky_relu': {
    schemas: ['aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor'],
    lower: (args) =>
      lowerPointwise(args, ['self', 'negative_slope'], (x, s) => where(gt(x as Operand, 0), x as Operand, mul(x as Operand, s as Operand))),
  },
};
