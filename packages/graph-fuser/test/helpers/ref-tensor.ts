// A deliberately plain tensor for the test-side aten reference: logical shape + row-major float64
// values + a dtype, with numpy broadcasting, reductions by explicit index groups, rounding to the
// dtype after each aten op (as eager PyTorch stores every result), and torch.result_type. It is
// independent of fusion-ir's ops and evaluator (only the 16-bit float rounding is shared).
import { castTo, roundToBFloat16, roundToHalf, type DataType } from '@tsfuser/fusion-ir';

export interface RefTensor {
  readonly dtype: DataType;
  readonly shape: readonly number[];
  readonly data: Float64Array;
}

export function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

export function roundTo(dtype: DataType, x: number): number {
  switch (dtype) {
    case 'Float':
      return Math.fround(x);
    case 'Half':
      return roundToHalf(x);
    case 'BFloat16':
      return roundToBFloat16(x);
    case 'Double':
      return x;
    case 'Bool':
      return x !== 0 ? 1 : 0;
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
      return castTo(x, dtype) as number;
    case 'Int':
    case 'Int32':
    case 'UInt64':
    case 'Index':
      return Number.isFinite(x) ? Math.trunc(x) : 0;
    case 'ComplexFloat':
    case 'ComplexDouble':
      throw new Error(`roundTo: ${dtype} values are (re, im) pairs, not numbers`);
  }
}

export function makeRef(dtype: DataType, shape: readonly number[], values: ArrayLike<number>): RefTensor {
  const data = new Float64Array(values.length);
  for (let i = 0; i < values.length; i += 1) data[i] = roundTo(dtype, values[i] as number);
  return { dtype, shape: [...shape], data };
}

export function isRef(v: unknown): v is RefTensor {
  return typeof v === 'object' && v !== null && 'data' in v && 'shape' in v;
}

/** Row-major strides of a shape. */
function stridesOf(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * (shape[i + 1] as number);
  return s;
}

export function broadcastShapes(shapes: readonly (readonly number[])[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i += 1) {
      const d = rank - s.length + i;
      const v = s[i] as number;
      if (v === 1) continue;
      if (out[d] !== 1 && out[d] !== v) throw new Error(`reference: shapes [${shapes.map((x) => x.join('x')).join(', ')}] do not broadcast`);
      out[d] = v;
    }
  }
  return out;
}

/** Reads `t` at output position `pos` of a broadcast with output shape `outShape`. */
function reader(t: RefTensor, outShape: readonly number[]): (pos: readonly number[]) => number {
  const st = stridesOf(t.shape);
  const offset = outShape.length - t.shape.length;
  return (pos) => {
    let k = 0;
    for (let i = 0; i < t.shape.length; i += 1) if ((t.shape[i] as number) !== 1) k += (pos[i + offset] as number) * (st[i] as number);
    return t.data[k] as number;
  };
}

function forEachIndex(shape: readonly number[], fn: (pos: number[], linear: number) => void): void {
  const n = numel(shape);
  const pos = new Array<number>(shape.length).fill(0);
  for (let linear = 0; linear < n; linear += 1) {
    fn(pos, linear);
    for (let d = shape.length - 1; d >= 0; d -= 1) {
      pos[d] = (pos[d] as number) + 1;
      if ((pos[d] as number) < (shape[d] as number)) break;
      pos[d] = 0;
    }
  }
}

export type Operand = RefTensor | number;

/** Elementwise op over broadcast operands (numbers are scalars), rounded to `dtype`. */
export function map(operands: readonly Operand[], dtype: DataType, fn: (...xs: number[]) => number): RefTensor {
  const tensors = operands.filter(isRef);
  const shape = broadcastShapes(tensors.map((t) => t.shape));
  const reads = operands.map((o) => (isRef(o) ? reader(o, shape) : () => Number(o)));
  const data = new Float64Array(numel(shape));
  forEachIndex(shape, (pos, linear) => {
    data[linear] = roundTo(dtype, fn(...reads.map((r) => r(pos))));
  });
  return { dtype, shape, data };
}

/** Output shape (keepdim) and, per output element, the input elements it reduces. */
export function reductionGroups(t: RefTensor, dims: readonly number[]): { keptShape: number[]; groups: number[][] } {
  const rank = t.shape.length;
  const all = dims.length === 0 ? t.shape.map((_, d) => d) : dims.map((d) => (d < 0 ? d + rank : d));
  const keptShape = t.shape.map((s, d) => (all.includes(d) ? 1 : s));
  const st = stridesOf(keptShape);
  const groups: number[][] = Array.from({ length: numel(keptShape) }, () => []);
  forEachIndex(t.shape, (pos, linear) => {
    let k = 0;
    pos.forEach((p, d) => {
      if (!all.includes(d)) k += p * (st[d] as number);
    });
    (groups[k] as number[]).push(linear);
  });
  return { keptShape, groups };
}

export function reduce(
  t: RefTensor,
  dims: readonly number[],
  keepdim: boolean,
  dtype: DataType,
  fn: (values: number[]) => number,
): RefTensor {
  const rank = t.shape.length;
  const all = dims.length === 0 ? t.shape.map((_, d) => d) : dims.map((d) => (d < 0 ? d + rank : d));
  const { keptShape, groups } = reductionGroups(t, all);
  const data = Float64Array.from(groups, (g) => roundTo(dtype, fn(g.map((i) => t.data[i] as number))));
  const shape = keepdim ? keptShape : t.shape.filter((_, d) => !all.includes(d));
  return { dtype, shape, data };
}

export function reshapeRef(t: RefTensor, shape: readonly number[]): RefTensor {
  const n = numel(t.shape);
  const known = shape.filter((s) => s !== -1).reduce((a, b) => a * b, 1);
  const resolved = shape.map((s) => (s === -1 ? n / known : s));
  if (numel(resolved) !== n) throw new Error(`reference: cannot view [${t.shape.join(', ')}] as [${shape.join(', ')}]`);
  return { dtype: t.dtype, shape: resolved, data: t.data };
}

export function permuteRef(t: RefTensor, perm: readonly number[]): RefTensor {
  const rank = t.shape.length;
  const p = perm.map((d) => (d < 0 ? d + rank : d));
  const shape = p.map((d) => t.shape[d] as number);
  const inStrides = stridesOf(t.shape);
  const data = new Float64Array(numel(shape));
  forEachIndex(shape, (pos, linear) => {
    let k = 0;
    pos.forEach((v, i) => {
      k += v * (inStrides[p[i] as number] as number);
    });
    data[linear] = t.data[k] as number;
  });
  return { dtype: t.dtype, shape, data };
}

export function expandRef(t: RefTensor, shape: readonly number[]): RefTensor {
  const extra = shape.length - t.shape.length;
  const target = shape.map((s, i) => (s === -1 ? (t.shape[i - extra] as number) : s));
  return map([t, { dtype: t.dtype, shape: target, data: new Float64Array(numel(target)) }], t.dtype, (x) => x);
}

// ---- torch.result_type --------------------------------------------------------------------

function category(d: DataType): number {
  return d === 'Bool' ? 0 : d === 'Int' || d === 'Int32' || d === 'Index' ? 1 : 2;
}

function promote(a: DataType, b: DataType): DataType {
  if (a === b) return a;
  if (category(a) !== category(b)) return category(a) > category(b) ? a : b;
  if (category(a) === 1) return a === 'Int' || b === 'Int' ? 'Int' : 'Int32';
  const rank = (d: DataType): number => ({ Half: 1, BFloat16: 1, Float: 2, Double: 3 })[d as 'Half'] ?? 0;
  if (rank(a) === 1 && rank(b) === 1) return 'Float';
  return rank(a) >= rank(b) ? a : b;
}

export type PromotionOperand = RefTensor | 'int' | 'float' | 'bool';

/** torch.result_type: dimensioned tensors, then 0-dim tensors, then Python numbers (by category only). */
export function resultType(operands: readonly PromotionOperand[]): DataType {
  const tiers: (DataType | null)[] = [null, null, null];
  const add = (tier: number, d: DataType): void => {
    const cur = tiers[tier] ?? null;
    tiers[tier] = cur === null ? d : promote(cur, d);
  };
  for (const o of operands) {
    if (o === 'float') add(2, 'Float');
    else if (o === 'int') add(2, 'Int');
    else if (o === 'bool') add(2, 'Bool');
    else add(o.shape.length === 0 ? 1 : 0, o.dtype);
  }
  let result: DataType | null = null;
  for (const t of tiers) {
    if (t === null) continue;
    if (result === null) result = t;
    else if (category(t) > category(result)) result = promote(result, t);
  }
  return result ?? 'Float';
}

export function isFloating(d: DataType): boolean {
  return category(d) === 2;
}
