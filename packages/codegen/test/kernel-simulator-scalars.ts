// The kernel simulator's scalar arithmetic (kernel-simulator.ts): rounding a value to a store's
// dtype, the kernel's scalar literals, the binary / unary / reduction operators as the CUDA runtime
// library computes them (in double: not bit-exact to CUDA), and the runtime library's
// welfordCombine of (avg, M2, N) states. Invariant: pure functions of their arguments.
import { castTo, type DataType } from '@tsfuser/fusion-ir';

export function round(v: number, d: DataType): number {
  if (d === 'Bool') return v !== 0 && !Number.isNaN(v) ? 1 : 0;
  if (d === 'Int' || d === 'Index') return Math.trunc(v); // exact while |v| < 2^53
  // The two most common stores, without castTo's dispatch (what castTo computes for a number).
  if (d === 'Float') return Math.fround(v);
  if (d === 'Double') return v;
  const r = castTo(v, d);
  return typeof r === 'number' ? r : Number(r);
}

export function parseScalar(text: string): number {
  const t = text.replace(/U?LL/g, '').replace(/[()\s]/g, '');
  if (t === 'true') return 1;
  if (t === 'false') return 0;
  if (t === '-2147483647-1') return -2147483648;
  if (t === '-9223372036854775807-1') return -9223372036854775808;
  if (t === 'NVF_INFINITY') return Infinity;
  if (t === '-NVF_INFINITY') return -Infinity;
  if (t === 'NVF_NAN') return NaN;
  const v = Number(t);
  if (Number.isNaN(v)) throw new Error(`simulator: cannot parse scalar ${text}`);
  return v;
}

/** parseScalar memoised for one simulation (a kernel's literals are parsed once each). */
export class Literals {
  private readonly parsed = new Map<string, number>();

  get(text: string): number {
    let v = this.parsed.get(text);
    if (v === undefined) {
      v = parseScalar(text);
      this.parsed.set(text, v);
    }
    return v;
  }
}

function nanMax(a: number, b: number): number {
  return Number.isNaN(a) || Number.isNaN(b) ? NaN : a > b ? a : b;
}
function nanMin(a: number, b: number): number {
  return Number.isNaN(a) || Number.isNaN(b) ? NaN : a < b ? a : b;
}

export const BINARY: Record<string, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  truediv: (a, b) => a / b,
  div: (a, b) => a / b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  maximum: nanMax,
  minimum: nanMin,
  lt: (a, b) => (a < b ? 1 : 0),
  le: (a, b) => (a <= b ? 1 : 0),
  gt: (a, b) => (a > b ? 1 : 0),
  ge: (a, b) => (a >= b ? 1 : 0),
  ceilDiv: (a, b) => Math.ceil(a / b),
  eq: (a, b) => (a === b ? 1 : 0),
  ne: (a, b) => (a !== b ? 1 : 0),
  fmod: (a, b) => a % b, // C's fmod and JS's % both truncate the quotient
  pow: (a, b) => Math.pow(a, b),
  logical_and: (a, b) => (a !== 0 && b !== 0 ? 1 : 0),
  logical_or: (a, b) => (a !== 0 || b !== 0 ? 1 : 0),
  bitwise_and: (a, b) => Number(BigInt.asIntN(64, BigInt(a) & BigInt(b))),
  bitwise_or: (a, b) => Number(BigInt.asIntN(64, BigInt(a) | BigInt(b))),
};
export const UNARY: Record<string, (a: number) => number> = {
  exp: Math.exp,
  neg: (a) => -a,
  abs: Math.abs,
  cast: (a) => a,
  sqrt: Math.sqrt,
  log: Math.log,
  rsqrt: (a) => 1 / Math.sqrt(a),
  reciprocal: (a) => 1 / a,
  signbit: (a) => (a < 0 || Object.is(a, -0) ? 1 : 0),
};
export const REDUCE: Record<string, (a: number, b: number) => number> = { add: BINARY.add as never, mul: BINARY.mul as never, max: nanMax, min: nanMin };

/** A Welford state (avg, M2, N). */
export type WelfordState = readonly [number, number, number];
export const EMPTY_STATE: WelfordState = [0, 0, 0];

/** The runtime library's welfordCombine: a ⊕ b; a state with N = 0 is the identity. */
export function welfordCombine(a: WelfordState, b: WelfordState): WelfordState {
  const [aAvg, aM2, aN] = a;
  const [bAvg, bM2, bN] = b;
  if (bN === 0) return a;
  if (aN === 0) return b;
  const n = aN + bN;
  const ratio = bN / n;
  const delta = bAvg - aAvg;
  return [aAvg + delta * ratio, aM2 + bM2 + delta * delta * aN * ratio, n];
}
