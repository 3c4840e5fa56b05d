// Complex arithmetic of the reference evaluator: the unary, binary and ternary ops PyTorch (and
// nvFuser) define on complex values, computed on float64 (re, im) pairs; the caller rounds the
// result to the output dtype (ComplexFloat parts to float32).
//
// Formulas follow what PyTorch's CPU kernels compute (c10::complex / std::complex, C99 Annex G
// for special values): mul is the plain (ac - bd, ad + bc); div scales both operands by
// max(|c|, |d|) before dividing (ATen's vectorized complex division); exp, sqrt and tanh
// keep C99's results for real inputs, infinities and zeros. Ops PyTorch refuses on complex never
// reach here (ops/complex-support.ts rejects them when the fusion is defined).

import { Complex } from '../ir/complex-value.js';
import { EvaluationError } from '../ir/errors.js';
import type { BinaryOpType, UnaryOpType } from '../ir/op-types.js';
import type { ElementValue } from './host-tensor.js';
import { toComplex } from './values.js';

export function complexAdd(a: Complex, b: Complex): Complex {
  return new Complex(a.re + b.re, a.im + b.im);
}

export function complexMul(a: Complex, b: Complex): Complex {
  return new Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

/** x · 2^n without overflowing the power of two on the way. */
function scalbn(x: number, n: number): number {
  const h = Math.trunc(n / 2);
  return x * 2 ** h * 2 ** (n - h);
}

/** ⌊log2 |x|⌋ for finite non-zero x, -inf for 0, +inf for ±inf and NaN for NaN (C's logb). */
function logb(x: number): number {
  const a = Math.abs(x);
  if (a === 0) return -Infinity;
  if (!Number.isFinite(a)) return a;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  else if (2 ** (e + 1) <= a) e += 1;
  return e;
}

/** C's copysign(isinf(x) ? 1 : 0, x). */
function unitOrZero(x: number): number {
  const m = Math.abs(x) === Infinity ? 1 : 0;
  return x < 0 || Object.is(x, -0) ? -m : m;
}

/**
 * a / b as C99 Annex G's division (libgcc's __divdc3 algorithm): scaled by a power of two, then
 * infinite and zero cases recovered from NaN results, with PyTorch's sign for a zero divisor.
 */
export function complexDiv(x: Complex, y: Complex): Complex {
  let { re: a, im: b } = x;
  let { re: c, im: d } = y;
  const logbw = logb(Math.max(Math.abs(c), Math.abs(d)));
  let ilogbw = 0;
  if (Number.isFinite(logbw)) {
    ilogbw = logbw;
    c = scalbn(c, -ilogbw);
    d = scalbn(d, -ilogbw);
  }
  const denom = c * c + d * d;
  let re = scalbn((a * c + b * d) / denom, -ilogbw);
  let im = scalbn((b * c - a * d) / denom, -ilogbw);
  if (re !== re && im !== im) {
    if (denom === 0 && (a === a || b === b)) {
      // libgcc takes the sign of c here; PyTorch's kernels give +inf·a for a divisor ±0 ± 0i.
      re = Infinity * a;
      im = Infinity * b;
    } else if ((Math.abs(a) === Infinity || Math.abs(b) === Infinity) && Number.isFinite(c) && Number.isFinite(d)) {
      a = unitOrZero(a);
      b = unitOrZero(b);
      re = Infinity * (a * c + b * d);
      im = Infinity * (b * c - a * d);
    } else if (logbw === Infinity && Number.isFinite(a) && Number.isFinite(b)) {
      c = unitOrZero(c);
      d = unitOrZero(d);
      re = 0 * (a * c + b * d);
      im = 0 * (b * c - a * d);
    }
  }
  return new Complex(re, im);
}

function cexp(z: Complex): Complex {
  const { re: x, im: y } = z;
  if (y === 0) return new Complex(Math.exp(x), y); // real input stays real (exact zero imaginary part)
  if (x === -Infinity && !Number.isFinite(y)) return new Complex(0, 0);
  if (x === Infinity && !Number.isFinite(y)) return new Complex(Infinity, NaN);
  const e = Math.exp(x);
  return new Complex(e * Math.cos(y), e * Math.sin(y));
}

function clog(z: Complex): Complex {
  return new Complex(Math.log(Math.hypot(z.re, z.im)), Math.atan2(z.im, z.re));
}

function csqrt(z: Complex): Complex {
  const { re: x, im: y } = z;
  if (y === Infinity || y === -Infinity) return new Complex(Infinity, y);
  if (x !== x) return new Complex(NaN, NaN);
  if (x === Infinity) return new Complex(Infinity, y !== y ? y : y >= 0 && !Object.is(y, -0) ? 0 : -0);
  if (x === -Infinity) return new Complex(y !== y ? NaN : 0, y !== y ? Infinity : y < 0 || Object.is(y, -0) ? -Infinity : Infinity);
  if (y !== y) return new Complex(NaN, NaN);
  if (x === 0 && y === 0) return new Complex(0, y);
  const t = Math.sqrt((Math.abs(x) + Math.hypot(x, y)) / 2);
  if (x >= 0) return new Complex(t, y / (2 * t));
  return new Complex(Math.abs(y) / (2 * t), y < 0 || Object.is(y, -0) ? -t : t);
}

function csin(z: Complex): Complex {
  if (z.im === 0) return new Complex(Math.sin(z.re), Number.isFinite(z.re) ? z.im * Math.cos(z.re) : z.im);
  if (z.re === 0) return new Complex(z.re, Math.sinh(z.im));
  return new Complex(Math.sin(z.re) * Math.cosh(z.im), Math.cos(z.re) * Math.sinh(z.im));
}

function ccos(z: Complex): Complex {
  if (z.im === 0) return new Complex(Math.cos(z.re), Number.isFinite(z.re) ? -z.im * Math.sin(z.re) : z.im);
  if (z.re === 0) return new Complex(Math.cosh(z.im), -z.re * Math.sign(z.im));
  return new Complex(Math.cos(z.re) * Math.cosh(z.im), -Math.sin(z.re) * Math.sinh(z.im));
}

/** tanh by Kahan's formula, with the large-|re| limit taken directly (no overflow). */
function ctanh(z: Complex): Complex {
  const { re: x, im: y } = z;
  if (y === 0) return new Complex(Math.tanh(x), y);
  if (x === 0) return new Complex(x, Math.tan(y));
  if (Math.abs(x) > 22) {
    const s = Math.sin(y);
    const c = Math.cos(y);
    return new Complex(x > 0 ? 1 : -1, 4 * s * c * Math.exp(-2 * Math.abs(x)));
  }
  const t = Math.tan(y);
  const beta = 1 + t * t;
  const s = Math.sinh(x);
  const rho = Math.sqrt(1 + s * s);
  const denom = 1 + beta * s * s;
  return new Complex((beta * rho * s) / denom, t / denom);
}

function isComplexNan(z: Complex): boolean {
  return z.re !== z.re || z.im !== z.im;
}

function isComplexInf(z: Complex): boolean {
  return Math.abs(z.re) === Infinity || Math.abs(z.im) === Infinity;
}

/** op(x) for a complex operand; abs, real, imag give real numbers, predicates booleans. */
export function applyComplexUnary(op: UnaryOpType, v: ElementValue, where: string): ElementValue {
  const z = toComplex(v);
  switch (op) {
    case 'abs':
      return Math.hypot(z.re, z.im);
    case 'real':
      return z.re;
    case 'imag':
      return z.im;
    case 'neg':
      return new Complex(-z.re, -z.im);
    case 'reciprocal':
      return complexDiv(new Complex(1, 0), z);
    case 'exp':
      return cexp(z);
    case 'log':
      return clog(z);
    case 'sqrt':
      return csqrt(z);
    case 'rsqrt':
      // torch.rsqrt on complex: the reciprocal of the principal square root.
      return complexDiv(new Complex(1, 0), csqrt(z));
    case 'sin':
      return csin(z);
    case 'cos':
      return ccos(z);
    case 'tanh':
      return ctanh(z);
    case 'cast':
      return z;
    case 'isfinite':
      return Number.isFinite(z.re) && Number.isFinite(z.im);
    case 'isnan':
      return isComplexNan(z);
    case 'isinf':
      return isComplexInf(z);
    case 'isreal':
      return z.im === 0;
    default:
      throw new EvaluationError(`${where}: ${op} is not defined on complex values`);
  }
}

/** op(a, b) with both operands complex (the op `complex` reads the real parts of its operands). */
export function applyComplexBinary(op: BinaryOpType, x: ElementValue, y: ElementValue, where: string): ElementValue {
  const a = toComplex(x);
  const b = toComplex(y);
  switch (op) {
    case 'add':
      return complexAdd(a, b);
    case 'sub':
      return new Complex(a.re - b.re, a.im - b.im);
    case 'mul':
      return complexMul(a, b);
    case 'div':
    case 'truediv':
      return complexDiv(a, b);
    case 'eq':
      return a.re === b.re && a.im === b.im;
    case 'ne':
      return a.re !== b.re || a.im !== b.im;
    case 'complex':
      return new Complex(a.re, b.re);
    default:
      throw new EvaluationError(`${where}: ${op} is not defined on complex values`);
  }
}
