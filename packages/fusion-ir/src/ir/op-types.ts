// The operation codes of pointwise and reduction expressions, with nvFuser's names (snake_case as
// nvFuser prints them).

export const UNARY_OP_TYPES = [
  'abs', 'acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'ceil', 'cos', 'cosh', 'exp', 'exp2',
  'expm1', 'erf', 'erfc', 'erfinv', 'erfcx', 'erfcinv', 'floor', 'frac', 'lgamma', 'digamma', 'log', 'log10',
  'log1p', 'log2', 'neg', 'reciprocal', 'relu', 'round', 'rsqrt', 'sigmoid', 'signbit', 'sin',
  'sinh', 'sqrt', 'tan', 'tanh', 'trunc', 'isfinite', 'isinf', 'isnan', 'isneginf', 'isposinf',
  'isreal', 'logical_not', 'bitwise_not', 'silu', 'gelu', 'gelu_tanh', 'sign', 'cast',
  'real', 'imag',
] as const;
export type UnaryOpType = (typeof UNARY_OP_TYPES)[number];

export const BINARY_OP_TYPES = [
  'add', 'sub', 'mul', 'div', 'truediv', 'fmod', 'remainder', 'pow', 'atan2', 'minimum', 'maximum',
  'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'logical_and', 'logical_or', 'logical_xor', 'bitwise_and',
  'bitwise_or', 'bitwise_xor', 'bitwise_left_shift', 'bitwise_right_shift', 'logical_right_shift',
  'ceilDiv', 'mod', 'nextafter', 'gcd', 'hypot', 'copysign', 'floordiv',
  'complex',
] as const;
export type BinaryOpType = (typeof BINARY_OP_TYPES)[number];

export const TERNARY_OP_TYPES = ['where', 'clamp', 'lerp', 'threshold'] as const;
export type TernaryOpType = (typeof TERNARY_OP_TYPES)[number];

/**
 * Random number generators (nvFuser's RNGOpType, printed as `rng_uniform` …): uniform on [0, 1),
 * uniform on [low, high), standard normal, normal with a mean and a standard deviation.
 */
export const RNG_OP_TYPES = ['uniform', 'uniform_range', 'normal_standard', 'normal_general'] as const;
export type RngOpType = (typeof RNG_OP_TYPES)[number];

export const REDUCTION_OP_TYPES = ['add', 'mul', 'max', 'min'] as const;
export type ReductionOpType = (typeof REDUCTION_OP_TYPES)[number];

/** The combining op of a ScanOp, printed with nvFuser's BinaryOpType names (`op_type=add`). */
export const SCAN_OP_TYPES = ['add', 'mul', 'max', 'min'] as const;
export type ScanOpType = (typeof SCAN_OP_TYPES)[number];

/** Comparison and logical ops produce Bool regardless of operand types. */
export function isPredicateBinaryOp(op: BinaryOpType): boolean {
  return (
    op === 'eq' || op === 'ne' || op === 'lt' || op === 'le' || op === 'gt' || op === 'ge' ||
    op === 'logical_and' || op === 'logical_or' || op === 'logical_xor'
  );
}

/** Unary ops that produce Bool. */
export function isPredicateUnaryOp(op: UnaryOpType): boolean {
  return (
    op === 'isfinite' || op === 'isinf' || op === 'isnan' || op === 'isneginf' ||
    op === 'isposinf' || op === 'isreal' || op === 'logical_not' || op === 'signbit'
  );
}
