// Scalar semantics of every unary, binary and ternary op code, matching PyTorch (and the CUDA
// helpers codegen emits): NaN-propagating minimum/maximum/clamp, C++ truncating `div` on
// integers, floor division `floordiv`, `remainder` with the divisor's sign, `fmod` with the
// dividend's sign, integer division by zero an error (torch raises ZeroDivisionError).

import { EvaluationError } from '../ir/errors.js';
import type { BinaryOpType, TernaryOpType, UnaryOpType } from '../ir/op-types.js';
import type { ElementValue } from './host-tensor.js';
import { digamma, erf, erfc, erfcx, erfinv, lgamma } from './special-functions.js';
import { toBool, toFloat, toInt, type ComputeKind } from './values.js';

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  // Math.round rounds .5 up; nearbyint rounds ties to even.
  if (Math.abs(x % 1) === 0.5) return 2 * Math.round(x / 2);
  return r === 0 && x < 0 ? -0 : r;
}

export function applyUnary(op: UnaryOpType, v: ElementValue, kind: ComputeKind): ElementValue {
  if (kind === 'int' || kind === 'bool') {
    const i = toInt(v);
    switch (op) {
      case 'abs':
        return kind === 'bool' ? toBool(v) : i < 0n ? -i : i;
      case 'neg':
        return -i;
      case 'relu':
        return kind === 'bool' ? toBool(v) : i > 0n ? i : 0n;
      case 'ceil':
      case 'floor':
      case 'round':
      case 'trunc':
        return kind === 'bool' ? toBool(v) : i;
      case 'frac':
        return 0n;
      case 'sign':
        return i > 0n ? 1n : i < 0n ? -1n : 0n;
      case 'bitwise_not':
        return kind === 'bool' ? !toBool(v) : ~i;
      case 'logical_not':
        return !toBool(v);
      case 'isfinite':
      case 'isreal':
        return true;
      case 'isinf':
      case 'isnan':
      case 'isneginf':
      case 'isposinf':
        return false;
      case 'signbit':
        return i < 0n;
      case 'cast':
        return v;
      default:
        return applyUnaryFloat(op, toFloat(v));
    }
  }
  return applyUnaryFloat(op, toFloat(v));
}

function applyUnaryFloat(op: UnaryOpType, x: number): ElementValue {
  switch (op) {
    case 'abs':
      return Math.abs(x);
    case 'acos':
      return Math.acos(x);
    case 'acosh':
      return Math.acosh(x);
    case 'asin':
      return Math.asin(x);
    case 'asinh':
      return Math.asinh(x);
    case 'atan':
      return Math.atan(x);
    case 'atanh':
      return Math.atanh(x);
    case 'ceil':
      return Math.ceil(x);
    case 'cos':
      return Math.cos(x);
    case 'cosh':
      return Math.cosh(x);
    case 'exp':
      return Math.exp(x);
    case 'exp2':
      return 2 ** x;
    case 'expm1':
      return Math.expm1(x);
    case 'erf':
      return erf(x);
    case 'erfc':
      return erfc(x);
    case 'erfinv':
      return erfinv(x);
    case 'erfcx':
      return erfcx(x);
    case 'floor':
      return Math.floor(x);
    case 'frac':
      return x - Math.trunc(x);
    case 'lgamma':
      return lgamma(x);
    case 'digamma':
      return digamma(x);
    case 'log':
      return Math.log(x);
    case 'log10':
      return Math.log10(x);
    case 'log1p':
      return Math.log1p(x);
    case 'log2':
      return Math.log2(x);
    case 'neg':
      return -x;
    case 'reciprocal':
      return 1 / x;
    case 'relu':
      return Number.isNaN(x) ? x : x > 0 ? x : 0;
    case 'round':
      return roundHalfEven(x);
    case 'rsqrt':
      return 1 / Math.sqrt(x);
    case 'sigmoid':
      return sigmoid(x);
    case 'signbit':
      return x < 0 || Object.is(x, -0) || (Number.isNaN(x) && false);
    case 'sign':
      return Number.isNaN(x) ? x : x > 0 ? 1 : x < 0 ? -1 : 0;
    case 'sin':
      return Math.sin(x);
    case 'sinh':
      return Math.sinh(x);
    case 'sqrt':
      return Math.sqrt(x);
    case 'tan':
      return Math.tan(x);
    case 'tanh':
      return Math.tanh(x);
    case 'trunc':
      return Math.trunc(x);
    case 'isfinite':
      return Number.isFinite(x);
    case 'isinf':
      return x === Infinity || x === -Infinity;
    case 'isnan':
      return Number.isNaN(x);
    case 'isneginf':
      return x === -Infinity;
    case 'isposinf':
      return x === Infinity;
    case 'isreal':
      return true;
    case 'logical_not':
      return !toBool(x);
    case 'bitwise_not':
      throw new EvaluationError('bitwise_not of a floating-point value');
    case 'silu':
      return x * sigmoid(x);
    case 'gelu':
      return 0.5 * x * (1 + erf(x / Math.SQRT2));
    case 'gelu_tanh': {
      const k = Math.sqrt(2 / Math.PI);
      return 0.5 * x * (1 + Math.tanh(k * (x + 0.044715 * x * x * x)));
    }
    case 'cast':
      return x;
    default: {
      const unreachable: never = op;
      throw new Error(`unknown unary op ${String(unreachable)}`);
    }
  }
}

function nanMax(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return a > b ? a : b === a && Object.is(a, 0) ? a : Math.max(a, b);
}

function nanMin(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return Math.min(a, b);
}

export function applyBinary(op: BinaryOpType, a: ElementValue, b: ElementValue, kind: ComputeKind, where: string): ElementValue {
  switch (op) {
    case 'eq':
    case 'ne':
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge':
      return compare(op, a, b, kind);
    case 'logical_and':
      return toBool(a) && toBool(b);
    case 'logical_or':
      return toBool(a) || toBool(b);
    case 'logical_xor':
      return toBool(a) !== toBool(b);
    default:
      break;
  }
  if (kind === 'float') return applyBinaryFloat(op, toFloat(a), toFloat(b), where);
  return applyBinaryInt(op, toInt(a), toInt(b), kind, where);
}

function compare(op: 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge', a: ElementValue, b: ElementValue, kind: ComputeKind): boolean {
  if (kind === 'float') {
    const x = toFloat(a);
    const y = toFloat(b);
    switch (op) {
      case 'eq':
        return x === y;
      case 'ne':
        return x !== y;
      case 'lt':
        return x < y;
      case 'le':
        return x <= y;
      case 'gt':
        return x > y;
      case 'ge':
        return x >= y;
    }
  }
  const x = toInt(a);
  const y = toInt(b);
  switch (op) {
    case 'eq':
      return x === y;
    case 'ne':
      return x !== y;
    case 'lt':
      return x < y;
    case 'le':
      return x <= y;
    case 'gt':
      return x > y;
    case 'ge':
      return x >= y;
  }
}

function applyBinaryFloat(op: BinaryOpType, x: number, y: number, where: string): number {
  switch (op) {
    case 'add':
      return x + y;
    case 'sub':
      return x - y;
    case 'mul':
      return x * y;
    case 'div':
    case 'truediv':
      return x / y;
    case 'floordiv':
      return Math.floor(x / y);
    case 'fmod':
      return x % y;
    case 'remainder': {
      const r = x % y;
      return r !== 0 && r < 0 !== y < 0 ? r + y : r;
    }
    case 'mod':
      return x % y;
    case 'pow':
      return x ** y === x ** y ? Math.pow(x, y) : NaN;
    case 'atan2':
      return Math.atan2(x, y);
    case 'minimum':
      return nanMin(x, y);
    case 'maximum':
      return nanMax(x, y);
    case 'ceilDiv':
      return Math.ceil(x / y);
    case 'nextafter':
      return nextafter(x, y);
    case 'hypot':
      return Math.hypot(x, y);
    case 'copysign':
      return Math.sign(y) < 0 || Object.is(y, -0) ? -Math.abs(x) : Math.abs(x);
    case 'bitwise_and':
    case 'bitwise_or':
    case 'bitwise_xor':
    case 'bitwise_left_shift':
    case 'bitwise_right_shift':
    case 'logical_right_shift':
    case 'gcd':
      throw new EvaluationError(`${where}: ${op} of floating-point values`);
    default:
      throw new EvaluationError(`${where}: ${op} is not a float binary op`);
  }
}

function applyBinaryInt(op: BinaryOpType, x: bigint, y: bigint, kind: ComputeKind, where: string): ElementValue {
  const checkZero = (): void => {
    if (y === 0n) throw new EvaluationError(`${where}: integer ${op} by zero (ZeroDivisionError in PyTorch)`);
  };
  switch (op) {
    case 'add':
      return x + y;
    case 'sub':
      return x - y;
    case 'mul':
      return x * y;
    case 'div':
    case 'mod':
      checkZero();
      return op === 'div' ? x / y : x % y;
    case 'truediv':
      return Number(x) / Number(y);
    case 'floordiv': {
      checkZero();
      const q = x / y;
      return (x % y !== 0n) && ((x < 0n) !== (y < 0n)) ? q - 1n : q;
    }
    case 'fmod':
      checkZero();
      return x % y;
    case 'remainder': {
      checkZero();
      const r = x % y;
      return r !== 0n && (r < 0n) !== (y < 0n) ? r + y : r;
    }
    case 'ceilDiv':
      checkZero();
      return (x + y - 1n) / y;
    case 'pow':
      if (y < 0n) {
        if (x === 1n) return 1n;
        if (x === -1n) return y % 2n === 0n ? 1n : -1n;
        throw new EvaluationError(`${where}: integers to negative integer powers are not allowed`);
      }
      return BigInt.asIntN(64, x ** y);
    case 'minimum':
      return x < y ? x : y;
    case 'maximum':
      return x > y ? x : y;
    case 'bitwise_and':
      return kind === 'bool' ? (x & y) !== 0n : x & y;
    case 'bitwise_or':
      return kind === 'bool' ? (x | y) !== 0n : x | y;
    case 'bitwise_xor':
      return kind === 'bool' ? (x ^ y) !== 0n : x ^ y;
    case 'bitwise_left_shift':
      return y < 0n || y >= 64n ? 0n : x << y;
    case 'bitwise_right_shift':
      return y < 0n || y >= 64n ? (x < 0n ? -1n : 0n) : x >> y;
    case 'logical_right_shift':
      return y < 0n || y >= 64n ? 0n : BigInt.asUintN(64, x) >> y;
    case 'gcd': {
      let p = x < 0n ? -x : x;
      let q = y < 0n ? -y : y;
      while (q !== 0n) [p, q] = [q, p % q];
      return p;
    }
    case 'atan2':
    case 'hypot':
    case 'nextafter':
    case 'copysign':
      return applyBinaryFloat(op, Number(x), Number(y), where);
    default:
      throw new EvaluationError(`${where}: ${op} is not an integer binary op`);
  }
}

function nextafter(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  if (x === 0) return y > 0 ? Number.MIN_VALUE : -Number.MIN_VALUE;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  let bits = buf.getBigInt64(0);
  bits += (y > x) === (x > 0) ? 1n : -1n;
  buf.setBigInt64(0, bits);
  return buf.getFloat64(0);
}

export function applyTernary(op: TernaryOpType, a: ElementValue, b: ElementValue, c: ElementValue, kind: ComputeKind): ElementValue {
  switch (op) {
    case 'where':
      return toBool(a) ? b : c;
    case 'clamp': {
      if (kind === 'float') {
        const x = toFloat(a);
        if (Number.isNaN(x)) return x;
        return nanMin(nanMax(x, toFloat(b)), toFloat(c));
      }
      const x = toInt(a);
      const lo = toInt(b);
      const hi = toInt(c);
      const m = x > lo ? x : lo;
      return m < hi ? m : hi;
    }
    case 'lerp': {
      const s = toFloat(a);
      const e = toFloat(b);
      const w = toFloat(c);
      // PyTorch's lerp switches formulas at |w| = 0.5 for accuracy at the ends.
      return Math.abs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w);
    }
    case 'threshold': {
      if (kind === 'float') {
        const x = toFloat(a);
        return x <= toFloat(b) ? toFloat(c) : x;
      }
      const x = toInt(a);
      return x <= toInt(b) ? toInt(c) : x;
    }
    default: {
      const unreachable: never = op;
      throw new Error(`unknown ternary op ${String(unreachable)}`);
    }
  }
}
