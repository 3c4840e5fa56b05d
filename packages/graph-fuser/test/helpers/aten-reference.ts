// A straightforward interpreter of TorchScript graphs with eager PyTorch semantics, written for
// the differential tests of parseJitIR: each aten op computes in float64 over plain arrays and
// rounds its result to its dtype (ref-tensor.ts), composites (softmax, layer/batch norm) compute
// in float64 and round once. It shares no code with parseJitIR or fusion-ir's ops. Training
// batch norm updates its running-stat inputs in place, as aten does (reported in `updated`).
// This file: values, argument access and the math; aten-reference-ops.ts: the ops.
import type { Graph, Node, Value } from '@tsfuser/jit-ir';
import type { DataType } from '@tsfuser/fusion-ir';
import { isFloating, isRef, reductionGroups, roundTo, type Operand, type PromotionOperand, type RefTensor } from './ref-tensor.js';
import { erf } from './ref-math.js';

export type RefScalar = { kind: 'int' | 'float' | 'bool'; value: number };
export type RefValue =
  | RefTensor
  | RefScalar
  | { kind: 'str'; value: string }
  | { kind: 'none' }
  | { kind: 'list'; items: RefValue[] }
  | { kind: 'other' };

export const DTYPE_CODES: Record<number, DataType> = { 11: 'Bool', 3: 'Int32', 4: 'Int', 5: 'Half', 6: 'Float', 7: 'Double', 15: 'BFloat16' };

export const refScalar = (kind: RefScalar['kind'], value: number): RefScalar => ({ kind, value });

export function isScalar(v: RefValue): v is RefScalar {
  return !isRef(v) && (v.kind === 'int' || v.kind === 'float' || v.kind === 'bool');
}

export class Interp {
  private readonly env = new Map<Value, RefValue>();
  readonly updated = new Map<number, RefTensor>();

  constructor(private readonly graph: Graph) {}

  set(v: Value, r: RefValue): void {
    this.env.set(v, r);
  }

  get(v: Value): RefValue {
    const r = this.env.get(v);
    if (r === undefined) throw new Error(`reference: %${v.debugName()} undefined`);
    return r;
  }

  arg(n: Node, i: number): RefValue {
    return this.get(n.input(i));
  }

  tensor(n: Node, i: number): RefTensor {
    const v = this.arg(n, i);
    if (!isRef(v)) throw new Error(`reference: ${n.kind} input ${i} is not a tensor`);
    return v;
  }

  optTensor(n: Node, i: number): RefTensor | null {
    const v = this.arg(n, i);
    return isRef(v) ? v : null;
  }

  num(n: Node, i: number): number {
    const v = this.arg(n, i);
    if (!isScalar(v)) throw new Error(`reference: ${n.kind} input ${i} is not a number`);
    return v.value;
  }

  ints(n: Node, i: number): number[] {
    const v = this.arg(n, i);
    if (!isRef(v) && v.kind === 'none') return [];
    if (isScalar(v)) return [v.value];
    if (isRef(v) || v.kind !== 'list') throw new Error(`reference: ${n.kind} input ${i} is not an int list`);
    return v.items.map((x) => (isScalar(x) ? x.value : NaN));
  }

  str(n: Node, i: number): string | null {
    const v = this.n(n, i);
    return !isRef(v) && v.kind === 'str' ? v.value : null;
  }

  private n(n: Node, i: number): RefValue {
    return i < n.inputs.length ? this.arg(n, i) : { kind: 'none' };
  }

  isNone(n: Node, i: number): boolean {
    const v = this.n(n, i);
    return !isRef(v) && v.kind === 'none';
  }

  /** Operand for map(): tensors stay, numbers become JS numbers. */
  operand(n: Node, i: number): Operand {
    const v = this.arg(n, i);
    return isRef(v) ? v : this.num(n, i);
  }

  promo(n: Node, i: number): PromotionOperand {
    const v = this.arg(n, i);
    if (isRef(v)) return v;
    if (isScalar(v)) return v.kind;
    throw new Error(`reference: ${n.kind} input ${i} is not a tensor or number`);
  }

  markUpdated(input: Value, t: RefTensor): void {
    const idx = this.graph.inputs.indexOf(input.node.kind === 'prim::profile' ? input.node.input() : input);
    if (idx >= 0) this.updated.set(idx, t);
  }
}

export const floatOf = (d: DataType): DataType => (isFloating(d) ? d : 'Float');
export const accOf = (d: DataType): DataType => (d === 'Half' || d === 'BFloat16' ? 'Float' : d);
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

export function geluValue(x: number, tanhApprox: boolean): number {
  if (tanhApprox) return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)));
  return 0.5 * x * (1 + erf(x / Math.SQRT2));
}

export function geluGrad(x: number, tanhApprox: boolean): number {
  if (tanhApprox) {
    const u = SQRT_2_OVER_PI * (x + 0.044715 * x ** 3);
    const t = Math.tanh(u);
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x);
  }
  return 0.5 * (1 + erf(x / Math.SQRT2)) + (x * Math.exp(-0.5 * x * x)) / Math.sqrt(2 * Math.PI);
}

export const UNARY_FLOAT: Record<string, (x: number) => number> = {
  exp: Math.exp, log: Math.log, sqrt: Math.sqrt, rsqrt: (x) => 1 / Math.sqrt(x), sigmoid, tanh: Math.tanh,
  reciprocal: (x) => 1 / x, erf, sin: Math.sin, cos: Math.cos, tan: Math.tan, log1p: Math.log1p, expm1: Math.expm1,
  log2: Math.log2, log10: Math.log10, silu: (x) => x * sigmoid(x), asin: Math.asin, acos: Math.acos, atan: Math.atan,
  sinh: Math.sinh, cosh: Math.cosh, exp2: (x) => 2 ** x, erfc: (x) => 1 - erf(x),
};
/** Round half to even (torch.round). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
export const UNARY_BOOL: Record<string, (x: number) => boolean> = {
  isnan: Number.isNaN, isinf: (x) => x === Infinity || x === -Infinity, isfinite: Number.isFinite, logical_not: (x) => x === 0,
};
export const LOGICAL: Record<string, (a: boolean, b: boolean) => boolean> = {
  logical_and: (a, b) => a && b, logical_or: (a, b) => a || b, logical_xor: (a, b) => a !== b,
};
export const BITWISE: Record<string, (a: number, b: number) => number> = {
  bitwise_and: (a, b) => a & b, bitwise_or: (a, b) => a | b, bitwise_xor: (a, b) => a ^ b,
};
export const UNARY_KEEP: Record<string, (x: number) => number> = {
  neg: (x) => -x, abs: Math.abs, relu: (x) => (Number.isNaN(x) ? x : Math.max(x, 0)), ceil: Math.ceil, floor: Math.floor, trunc: Math.trunc,
  round: (x) => roundHalfEven(x), sign: (x) => (Number.isNaN(x) ? x : Math.sign(x)), frac: (x) => x - Math.trunc(x),
};
export const COMPARE: Record<string, (a: number, b: number) => boolean> = {
  eq: (a, b) => a === b, ne: (a, b) => a !== b, lt: (a, b) => a < b, le: (a, b) => a <= b, gt: (a, b) => a > b, ge: (a, b) => a >= b,
};

export function nanMax(a: number, b: number): number {
  return Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b);
}
export function nanMin(a: number, b: number): number {
  return Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b);
}

export function variance(values: number[], correction: number): number {
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - correction);
}

export function softmaxRef(x: RefTensor, dim: number, dtype: DataType, log: boolean): RefTensor {
  const rank = x.shape.length;
  const d = dim < 0 ? dim + rank : dim;
  const { groups } = reductionGroups(x, [d]);
  const data = new Float64Array(x.data.length);
  for (const g of groups) {
    const m = g.reduce((acc, i) => Math.max(acc, x.data[i] as number), -Infinity);
    const s = g.reduce((acc, i) => acc + Math.exp((x.data[i] as number) - m), 0);
    for (const i of g) {
      const v = (x.data[i] as number) - m;
      data[i] = roundTo(dtype, log ? v - Math.log(s) : Math.exp(v) / s);
    }
  }
  return { dtype, shape: x.shape, data };
}

/** Normalizes groups of x: (x - mean) * invstd, per group; returns stats per group too. */
export function normalizeGroups(x: RefTensor, groups: number[][], eps: number, means?: number[], vars?: number[]) {
  const out = new Float64Array(x.data.length);
  const mean: number[] = [];
  const invstd: number[] = [];
  groups.forEach((g, k) => {
    const values = g.map((i) => x.data[i] as number);
    const m = means?.[k] ?? values.reduce((a, b) => a + b, 0) / values.length;
    const v = vars?.[k] ?? variance(values, 0);
    const r = 1 / Math.sqrt(v + eps);
    mean.push(m);
    invstd.push(r);
    for (const i of g) out[i] = ((x.data[i] as number) - m) * r;
  });
  return { out, mean, invstd };
}

