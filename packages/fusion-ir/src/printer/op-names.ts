// The spelling nvFuser uses for operations in printed Fusion IR: C++-style infix operators
// (`+`, `==`, `<<`), function names with a `f` suffix for float math (`rsqrtf`, `atan2f`), cast
// functions by (from, to) dtype pair (`(double)`, `__float2half`), and reduction ops named after
// their binary op (`add`, `fmax`). Where tsfuser has an op that nvFuser lacks, its own name is kept.

import { cppTypeName, isFloat8Type, type DataType } from '../ir/data-type.js';
import type { BinaryOpType, ReductionOpType, UnaryOpType } from '../ir/op-types.js';

/** Prefix operators nvFuser prints instead of a call. */
export function inlineUnaryOpString(op: UnaryOpType): string | null {
  switch (op) {
    case 'neg':
      return '-';
    case 'logical_not':
      return '!';
    case 'bitwise_not':
      return '~';
    default:
      return null;
  }
}

/** Infix operators nvFuser prints for a binary op, or null when it prints a call. */
export function inlineBinaryOpText(op: BinaryOpType): string | null {
  switch (op) {
    case 'add':
      return '+';
    case 'sub':
      return '-';
    case 'mul':
      return '*';
    case 'div':
    case 'truediv':
      return '/';
    case 'mod':
      return '%';
    case 'eq':
      return '==';
    case 'ne':
      return '!=';
    case 'lt':
      return '<';
    case 'le':
      return '<=';
    case 'gt':
      return '>';
    case 'ge':
      return '>=';
    case 'logical_and':
      return '&&';
    case 'logical_or':
      return '||';
    case 'bitwise_and':
      return '&';
    case 'bitwise_or':
      return '|';
    case 'bitwise_xor':
      return '^';
    case 'bitwise_left_shift':
      return '<<';
    case 'bitwise_right_shift':
      return '>>';
    default:
      return null;
  }
}

// nvFuser leaves these without the float suffix: they are its own helpers, not libm calls.
const UNARY_NO_FLOAT_SUFFIX: ReadonlySet<UnaryOpType> = new Set<UnaryOpType>([
  'abs', 'cast', 'frac', 'gelu', 'gelu_tanh', 'silu', 'neg', 'bitwise_not', 'logical_not', 'relu',
  'reciprocal', 'sigmoid', 'isfinite', 'isinf', 'isnan', 'isneginf', 'isposinf', 'isreal', 'sign',
  'signbit', 'real', 'imag',
]);

/** Function name of a non-cast unary op: `rsqrtf` for a float result, `nearbyint` for round. */
export function unaryFunctionName(op: UnaryOpType, outDtype: DataType): string {
  const base = op === 'round' ? 'nearbyint' : op === 'real' || op === 'imag' ? `std::${op}` : op;
  return outDtype === 'Float' && !UNARY_NO_FLOAT_SUFFIX.has(op) ? `${base}f` : base;
}

/** Function name of a binary op printed as a call: `pow`, `fmax`, `atan2f`, `ceilDiv`. */
export function binaryFunctionName(op: BinaryOpType, outDtype: DataType): string {
  let base: string;
  switch (op) {
    case 'maximum':
      base = 'fmax';
      break;
    case 'minimum':
      base = 'fmin';
      break;
    case 'bitwise_left_shift':
      base = 'lshift';
      break;
    case 'bitwise_right_shift':
      base = 'rshift';
      break;
    case 'complex':
      base = 'std::complex';
      break;
    default:
      base = op;
  }
  const floatSuffix = op === 'atan2' || op === 'div' || op === 'truediv' || op === 'fmod';
  return outDtype === 'Float' && floatSuffix ? `${base}f` : base;
}

/** The reduction op as nvFuser prints it in `op = …` (the name of its BinaryOpType). */
export function reductionOpName(op: ReductionOpType): string {
  switch (op) {
    case 'add':
      return 'add';
    case 'mul':
      return 'mul';
    case 'max':
      return 'fmax';
    case 'min':
      return 'fmin';
    default: {
      const unreachable: never = op;
      throw new Error(`unknown reduction op ${String(unreachable)}`);
    }
  }
}

function halfOrBf16Name(dtype: 'Half' | 'BFloat16'): string {
  return dtype === 'Half' ? 'half' : 'bfloat';
}

/** Name of an integral/bool/float type inside a half or bfloat conversion (`__half2int32`). */
function conversionSuffix(dtype: DataType): string {
  switch (dtype) {
    case 'Float':
      return 'float';
    case 'Double':
      return 'double';
    case 'Int32':
      return 'int32';
    case 'Int':
      return 'int';
    case 'Index':
      return 'index';
    case 'UInt64':
      return 'uint64';
    case 'Bool':
      return 'bool';
    case 'Half':
      return 'half';
    case 'BFloat16':
      return 'bfloat';
    case 'Float8_e4m3fn':
      return 'e4m3';
    case 'Float8_e5m2':
      return 'e5m2';
    case 'Float8_e8m0fnu':
      return 'e8m0';
    case 'ComplexFloat':
      return 'cfloat';
    case 'ComplexDouble':
      return 'cdouble';
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}

/** The cast function nvFuser prints for a (from, to) pair: `(double)`, `__float2half`, `__half2float`. */
export function castFunctionName(from: DataType, to: DataType): string {
  // fp8 casts as nvFuser names them: `__float2e4m3`, `__e5m22half`, `__e8m02float`.
  if (isFloat8Type(from) || isFloat8Type(to)) return `__${conversionSuffix(from)}2${conversionSuffix(to)}`;
  if (to === 'Half' || to === 'BFloat16') {
    if (from === 'Int32' || from === 'Int' || from === 'Index') return `__int2${halfOrBf16Name(to)}`;
    return `__${conversionSuffix(from)}2${halfOrBf16Name(to)}`;
  }
  if (from === 'Half' || from === 'BFloat16') return `__${halfOrBf16Name(from)}2${conversionSuffix(to)}`;
  if (to === 'Int32') return '(int32_t)';
  return `(${cppTypeName(to)})`;
}
