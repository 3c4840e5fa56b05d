// Scalar semantics of every unary, binary and ternary op code, matching PyTorch (and the CUDA
// helpers codegen emits): NaN-propagating minimum/maximum/clamp, C++ truncating `div` on
// integers, floor division `floordiv`, `remainder` with the divisor's sign, `fmod` with the
// dividend's sign, integer division by zero an error (torch raises ZeroDivisionError).

import { EvaluationError } from '../ir/errors.js';
import type { BinaryOpType, TernaryOpType, UnaryOpType } from '../ir/op-types.js';
import type { ElementValue } from './host-tensor.js';
import { digamma, erf, erfc, erfcx, erfinv, lgamma } from './special-functions.js';
import { erfcinv } from './erfcinv.js';
import { applyComplexBinary, applyComplexUnary } from './complex-math.js';
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
  if (kind === 'complex') return applyComplexUnary(op, v, op);
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
  if (op === 'bitwise_not') throw new EvaluationError('bitwise_not of a floating-point value');
  return floatUnaryKernel(op)(x);
}

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/** float64 → float64 kernels of the unary ops; predicates return 1/0. Missing: bitwise_not. */
const FLOAT_UNARY: Readonly<Record<Exclude<UnaryOpType, 'bitwise_not'>, (x: number) => number>> = {
  abs: Math.abs,
  acos: Math.acos,
  acosh: Math.acosh,
  asin: Math.asin,
  asinh: Math.asinh,
  atan: Math.atan,
  atanh: Math.atanh,
  ceil: Math.ceil,
  cos: Math.cos,
  cosh: Math.cosh,
  exp: Math.exp,
  exp2: (x) => 2 ** x,
  expm1: Math.expm1,
  erf,
  erfc,
  erfinv,
  erfcx,
  erfcinv,
  floor: Math.floor,
  frac: (x) => x - Math.trunc(x),
  lgamma,
  digamma,
  log: Math.log,
  log10: Math.log10,
  log1p: Math.log1p,
  log2: Math.log2,
  neg: (x) => -x,
  reciprocal: (x) => 1 / x,
  relu: (x) => (x > 0 || x !== x ? x : 0),
  round: roundHalfEven,
  rsqrt: (x) => 1 / Math.sqrt(x),
  sigmoid,
  signbit: (x) => (x < 0 || Object.is(x, -0) ? 1 : 0),
  sign: (x) => (x > 0 ? 1 : x < 0 ? -1 : x === 0 ? 0 : x),
  sin: Math.sin,
  sinh: Math.sinh,
  sqrt: Math.sqrt,
  tan: Math.tan,
  tanh: Math.tanh,
  trunc: Math.trunc,
  isfinite: (x) => (Number.isFinite(x) ? 1 : 0),
  isinf: (x) => (x === Infinity || x === -Infinity ? 1 : 0),
  isnan: (x) => (x !== x ? 1 : 0),
  isneginf: (x) => (x === -Infinity ? 1 : 0),
  isposinf: (x) => (x === Infinity ? 1 : 0),
  isreal: () => 1,
  logical_not: (x) => (x === 0 ? 1 : 0), // NaN is truthy in C++
  silu: (x) => x * sigmoid(x),
  gelu: (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
  gelu_tanh: (x) => 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))),
  cast: (x) => x,
  real: (x) => x,
  imag: (x) => (x !== x ? x : 0),
};

/** The float64 kernel of a unary op (predicates give 1/0). */
export function floatUnaryKernel(op: UnaryOpType): (x: number) => number {
  if (op === 'bitwise_not') throw new EvaluationError('bitwise_not of a floating-point value');
  return FLOAT_UNARY[op];
}

function nanMax(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return a > b ? a : b === a && Object.is(a, 0) ? a : Math.max(a, b);
}

function nanMin(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return Math.min(a, b);
}

/**
 * One binary op on one pair of values of compute kind `kind`; `bits` is the width of the integer
 * type the op computes in (32 for Int32, else 64), which logical shifts and pow need.
 */
export function applyBinary(op: BinaryOpType, a: ElementValue, b: ElementValue, kind: ComputeKind, where: string, bits: 32 | 64 = 64): ElementValue {
  if (kind === 'complex') return applyComplexBinary(op, a, b, where);
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
  return applyBinaryInt(op, toInt(a), toInt(b), kind, where, bits);
}

type ComparisonOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';

function compare(op: ComparisonOp, a: ElementValue, b: ElementValue, kind: ComputeKind): boolean {
  // Floats compare as IEEE doubles (NaN unordered), integers exactly as bigints.
  return kind === 'float' ? compareOrdered(op, toFloat(a), toFloat(b)) : compareOrdered(op, toInt(a), toInt(b));
}

function compareOrdered<T extends number | bigint>(op: ComparisonOp, x: T, y: T): boolean {
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
  return floatBinaryKernel(op, where)(x, y);
}

/** C's pow: pow(1, y) = 1 and pow(x, ±0) = 1 even for NaN, pow(−1, ±inf) = 1 (JS gives NaN). */
function cPow(x: number, y: number): number {
  if (x === 1 || y === 0) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return Math.pow(x, y);
}

/** torch's floor_divide for floats: from fmod, so that a == b·q + r holds exactly where it can. */
function floorDivide(a: number, b: number): number {
  if (b === 0) return a / b;
  const mod = a % b;
  let div = (a - mod) / b;
  if (mod !== 0 && b < 0 !== mod < 0) div -= 1;
  if (div === 0) return Math.sign(a / b) < 0 || Object.is(a / b, -0) ? -0 : 0;
  const floorDiv = Math.floor(div);
  return div - floorDiv > 0.5 ? floorDiv + 1 : floorDiv;
}

/** Python/torch remainder: the sign of the divisor. */
function remainderFloat(x: number, y: number): number {
  const r = x % y;
  return r !== 0 && r < 0 !== y < 0 ? r + y : r;
}

type FloatBinary = (x: number, y: number) => number;

const FLOAT_BINARY: Readonly<Partial<Record<BinaryOpType, FloatBinary>>> = {
  add: (x, y) => x + y,
  sub: (x, y) => x - y,
  mul: (x, y) => x * y,
  div: (x, y) => x / y,
  truediv: (x, y) => x / y,
  floordiv: floorDivide,
  fmod: (x, y) => x % y,
  remainder: remainderFloat,
  mod: (x, y) => x % y,
  pow: cPow,
  atan2: Math.atan2,
  minimum: nanMin,
  maximum: nanMax,
  ceilDiv: (x, y) => Math.ceil(x / y),
  nextafter,
  hypot: Math.hypot,
  copysign: (x, y) => (y < 0 || Object.is(y, -0) ? -Math.abs(x) : Math.abs(x)),
  eq: (x, y) => (x === y ? 1 : 0),
  ne: (x, y) => (x !== y ? 1 : 0),
  lt: (x, y) => (x < y ? 1 : 0),
  le: (x, y) => (x <= y ? 1 : 0),
  gt: (x, y) => (x > y ? 1 : 0),
  ge: (x, y) => (x >= y ? 1 : 0),
  logical_and: (x, y) => (x !== 0 && y !== 0 ? 1 : 0),
  logical_or: (x, y) => (x !== 0 || y !== 0 ? 1 : 0),
  logical_xor: (x, y) => ((x !== 0) !== (y !== 0) ? 1 : 0),
};

/** The float64 kernel of a binary op (comparisons and logical ops give 1/0). */
export function floatBinaryKernel(op: BinaryOpType, where: string): FloatBinary {
  const k = FLOAT_BINARY[op];
  if (k === undefined) throw new EvaluationError(`${where}: ${op} of floating-point values`);
  return k;
}

function applyBinaryInt(op: BinaryOpType, x: bigint, y: bigint, kind: ComputeKind, where: string, bits: 32 | 64): ElementValue {
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
      return intPow(x, y, bits);
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
      return y < 0n || y >= BigInt(bits) ? 0n : x << y;
    case 'bitwise_right_shift':
      return y < 0n || y >= BigInt(bits) ? (x < 0n ? -1n : 0n) : x >> y;
    case 'logical_right_shift':
      return y < 0n || y >= BigInt(bits) ? 0n : BigInt.asUintN(bits, x) >> y;
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

/** x^y for y ≥ 0 by squaring, wrapping to `bits` at every step (as the C++ loop does). */
function intPow(x: bigint, y: bigint, bits: 32 | 64): bigint {
  let result = 1n;
  let base = BigInt.asIntN(bits, x);
  let e = y;
  while (e > 0n) {
    if (e & 1n) result = BigInt.asIntN(bits, result * base);
    base = BigInt.asIntN(bits, base * base);
    e >>= 1n;
  }
  return result;
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

/**
 * nextafter in float32 (C's nextafterf, PyTorch's nextafter of Float tensors): the operands
 * rounded to float32 first, the step one float32 ulp. The float64 `nextafter` above would step
 * one double ulp, which rounds back to x when the result is stored as Float.
 */
export function nextafterFloat32(a: number, b: number): number {
  const x = Math.fround(a);
  const y = Math.fround(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  const MIN_SUBNORMAL_F32 = 2 ** -149;
  if (x === 0) return y > 0 ? MIN_SUBNORMAL_F32 : -MIN_SUBNORMAL_F32;
  const buf = new DataView(new ArrayBuffer(4));
  buf.setFloat32(0, x);
  buf.setInt32(0, buf.getInt32(0) + ((y > x) === (x > 0) ? 1 : -1));
  return buf.getFloat32(0);
}

type FloatTernary = (a: number, b: number, c: number) => number;

const FLOAT_TERNARY: Readonly<Record<TernaryOpType, FloatTernary>> = {
  where: (a, b, c) => (a !== 0 ? b : c),
  clamp: (x, lo, hi) => (x !== x ? x : nanMin(nanMax(x, lo), hi)),
  // PyTorch's lerp switches formulas at |w| = 0.5 for accuracy at the ends.
  lerp: (s, e, w) => (Math.abs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w)),
  threshold: (x, t, v) => (x <= t ? v : x),
};

/** The float64 kernel of a ternary op. */
export function floatTernaryKernel(op: TernaryOpType): FloatTernary {
  return FLOAT_TERNARY[op];
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
