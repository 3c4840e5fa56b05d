// C++ expressions for each op kind, given operand texts already converted to the compute
// type. Semantics follow fusion-ir's reference evaluator (eval/pointwise-math.ts) op by op;
// the helpers (`nvf_*`) live in runtime/math.ts.

import type { BinaryOpType, TernaryOpType, UnaryOpType } from '@tsfuser/fusion-ir';
import type { ComputeKind } from './types.js';

export function unaryExpression(op: UnaryOpType, x: string, kind: ComputeKind, ctype: string): string {
  if (kind === 'complex') return complexUnaryExpression(op, x);
  if (kind !== 'float') {
    switch (op) {
      case 'abs':
        return kind === 'bool' ? x : `nvf_abs_int(${x})`;
      case 'neg':
        return `(-${x})`;
      case 'relu':
        return kind === 'bool' ? x : `(${x} > 0 ? ${x} : ${ctype}(0))`;
      case 'ceil':
      case 'floor':
      case 'round':
      case 'trunc':
      case 'cast':
        return x;
      case 'frac':
        return `${ctype}(0)`;
      case 'sign':
        return ctype === 'unsigned long long' ? `nvf_sign_int(${x})` : `nvf_sign_int(static_cast<long long>(${x}))`;
      case 'bitwise_not':
        return kind === 'bool' ? `(!${x})` : `(~${x})`;
      case 'logical_not':
        return `(!${x})`;
      case 'isfinite':
      case 'isreal':
        return 'true';
      case 'isinf':
      case 'isnan':
      case 'isneginf':
      case 'isposinf':
        return 'false';
      case 'signbit':
        return `(${x} < 0)`;
      default:
        return unaryExpression(op, `static_cast<double>(${x})`, 'float', 'double');
    }
  }
  switch (op) {
    case 'cast':
      return x;
    case 'logical_not':
      return `(!static_cast<bool>(${x}))`;
    case 'isreal':
      return 'true';
    case 'bitwise_not':
      return `(~static_cast<long long>(${x}))`;
    default:
      return `nvf_${op}(${x})`;
  }
}

const INFIX: Partial<Record<BinaryOpType, string>> = {
  add: '+', sub: '-', mul: '*', eq: '==', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=',
  bitwise_and: '&', bitwise_or: '|', bitwise_xor: '^',
};

export function binaryExpression(op: BinaryOpType, a: string, b: string, kind: ComputeKind): string {
  if (kind === 'complex') return complexBinaryExpression(op, a, b);
  if (op === 'logical_and') return `(static_cast<bool>(${a}) && static_cast<bool>(${b}))`;
  if (op === 'logical_or') return `(static_cast<bool>(${a}) || static_cast<bool>(${b}))`;
  if (op === 'logical_xor') return `(static_cast<bool>(${a}) != static_cast<bool>(${b}))`;
  const infix = INFIX[op];
  if (infix !== undefined) return `(${a} ${infix} ${b})`;
  if (kind === 'float') {
    switch (op) {
      case 'div':
      case 'truediv':
        return `(${a} / ${b})`;
      case 'mod':
        return `nvf_fmod(${a}, ${b})`;
      case 'minimum':
        return `nvf_fmin(${a}, ${b})`;
      case 'maximum':
        return `nvf_fmax(${a}, ${b})`;
      case 'ceilDiv':
        return `nvf_ceildiv(${a}, ${b})`;
      default:
        return `nvf_${op}(${a}, ${b})`;
    }
  }
  switch (op) {
    case 'div':
      return `(${a} / ${b})`;
    case 'mod':
    case 'fmod':
      return `(${a} % ${b})`;
    case 'truediv':
      return `(static_cast<double>(${a}) / static_cast<double>(${b}))`;
    case 'floordiv':
      return `nvf_floordiv_int(${a}, ${b})`;
    case 'remainder':
      return `nvf_remainder_int(${a}, ${b})`;
    case 'ceilDiv':
      return `nvf_ceildiv_int(${a}, ${b})`;
    case 'pow':
      return `nvf_pow_int(${a}, ${b})`;
    case 'minimum':
      return `(${a} < ${b} ? ${a} : ${b})`;
    case 'maximum':
      return `(${a} > ${b} ? ${a} : ${b})`;
    case 'bitwise_left_shift':
      return `nvf_shl(${a}, ${b})`;
    case 'bitwise_right_shift':
      return `nvf_shr(${a}, ${b})`;
    case 'logical_right_shift':
      return `nvf_lshr(${a}, ${b})`;
    case 'gcd':
      return `nvf_gcd(${a}, ${b})`;
    case 'atan2':
    case 'hypot':
    case 'nextafter':
    case 'copysign':
      return `nvf_${op}(static_cast<double>(${a}), static_cast<double>(${b}))`;
    default:
      throw new Error(`binary op ${op} has no integer form`);
  }
}

export function ternaryExpression(op: TernaryOpType, a: string, b: string, c: string, kind: ComputeKind): string {
  switch (op) {
    case 'where':
      return `(static_cast<bool>(${a}) ? ${b} : ${c})`;
    case 'clamp':
      return kind === 'float' ? `nvf_clamp(${a}, ${b}, ${c})` : `nvf_clamp_int(${a}, ${b}, ${c})`;
    case 'lerp':
      return `nvf_lerp(${a}, ${b}, ${c})`;
    case 'threshold':
      return `(${a} <= ${b} ? ${c} : ${a})`;
    default: {
      const unreachable: never = op;
      throw new Error(`unknown ternary op ${String(unreachable)}`);
    }
  }
}

/** Complex operands (the runtime's nvf_cfloat / nvf_cdouble): the ops of fusion-ir's complex support. */
function complexUnaryExpression(op: UnaryOpType, x: string): string {
  switch (op) {
    case 'cast':
      return x;
    case 'abs':
    case 'real':
    case 'imag':
    case 'neg':
    case 'reciprocal':
    case 'exp':
    case 'log':
    case 'sqrt':
    case 'sin':
    case 'cos':
    case 'tanh':
    case 'isfinite':
    case 'isinf':
    case 'isnan':
    case 'isreal':
      return `nvf_${op}(${x})`;
    case 'rsqrt':
      return `nvf_reciprocal(nvf_sqrt(${x}))`;
    default:
      throw new Error(`unary op ${op} has no complex form`);
  }
}

function complexBinaryExpression(op: BinaryOpType, a: string, b: string): string {
  switch (op) {
    case 'add':
      return `(${a} + ${b})`;
    case 'sub':
      return `(${a} - ${b})`;
    case 'mul':
      return `(${a} * ${b})`;
    case 'div':
    case 'truediv':
      return `(${a} / ${b})`;
    case 'eq':
      return `(${a} == ${b})`;
    case 'ne':
      return `(${a} != ${b})`;
    default:
      throw new Error(`binary op ${op} has no complex form`);
  }
}
