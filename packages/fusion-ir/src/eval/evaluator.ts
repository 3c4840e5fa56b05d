// The reference evaluator: runs a Fusion on host tensors, op by op, following logical domains
// only — schedules (splits, merges, parallel types, inlining) never change its results. It is
// the oracle every GPU and scheduler test compares against.
//
// Each op computes in float64 (floats) or exact int64 (ints) and rounds its result to its output
// dtype, as the generated kernel does when it stores a value of that type.

import { isComplexType, type DataType } from '../ir/data-type.js';
import { EvaluationError } from '../ir/errors.js';
import type { Expr } from '../ir/expr.js';
import { describeVal, type Fusion } from '../ir/fusion.js';
import { isPredicateBinaryOp, isPredicateUnaryOp } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { Val } from '../ir/val.js';
import { resultType } from '../ops/type-promotion.js';
import { evalDataMovement } from './data-movement.js';
import { HostTensor, type ElementValue } from './host-tensor.js';
import {
  applyBinary,
  applyTernary,
  applyUnary,
  floatBinaryKernel,
  floatTernaryKernel,
  floatUnaryKernel,
  nextafterFloat32,
} from './pointwise-math.js';
import { evalReduction, evalWelford } from './reduction.js';
import { evalRng } from './random.js';
import { evalIndexing } from './indexing.js';
import { evalArgsort, evalScan, evalTopK } from './scan-sort.js';
import { evalMatmulExpr } from './matmul.js';
import { evalSdpaBwd, evalSdpaFwd } from './attention.js';
import { withDimOrder } from './layout.js';
import { broadcastStrides, forEachElement, gatherFloat64, readerFor, type Reader, type StridedOperand } from './strided.js';
import { castTo, computeKindOf, convert, storeFloat64, toComplex, toFloat, type ComputeKind } from './values.js';
import { Complex } from '../ir/complex-value.js';
import { contiguousStrides, writeStorage } from './host-tensor.js';

export type EvalValue = HostTensor | ElementValue;

/** Values of a fusion's vals during one evaluation, with the binding of symbolic scalars. */
export class EvalContext {
  private readonly values = new Map<Val, EvalValue>();
  /** rFactor partial tensors evaluated as pass-throughs: which dims of their value are reduced later. */
  private readonly passThrough = new Map<TensorView, readonly boolean[]>();
  /** For each bound input extent, the input that bound it (for mismatch messages). */
  readonly extentSource = new Map<Scalar, string>();

  constructor(readonly fusion: Fusion) {}

  bind(v: Val, value: EvalValue): void {
    this.values.set(v, value);
  }

  /** Binds an rFactor partial tensor to its input's value (over the root domain); see reduction.ts. */
  bindPassThrough(tv: TensorView, value: HostTensor, reducedFlags: readonly boolean[]): void {
    this.values.set(tv, value);
    this.passThrough.set(tv, reducedFlags);
  }

  passThroughFlags(tv: TensorView): readonly boolean[] | null {
    return this.passThrough.get(tv) ?? null;
  }

  has(v: Val): boolean {
    return this.values.has(v);
  }

  /** Drops an intermediate tensor no later expr reads (see releasePlan), so the GC can take it. */
  release(tv: TensorView): void {
    if (!this.passThrough.has(tv)) this.values.delete(tv);
  }

  tensor(tv: TensorView): HostTensor {
    const v = this.values.get(tv);
    if (!(v instanceof HostTensor)) throw new EvaluationError(`T${tv.name} has not been computed`);
    return v;
  }

  /** The value of a scalar: constant, bound input/extent, or computed from its definition. */
  scalar(s: Scalar): ElementValue {
    if (s.value !== null) return s.value;
    const bound = this.values.get(s);
    if (bound !== undefined) {
      if (bound instanceof HostTensor) throw new EvaluationError(`${describeVal(s)} is bound to a tensor`);
      return bound;
    }
    const def = s.definition;
    if (def === null) throw new EvaluationError(`scalar ${s.symbolicName()} has no value: is it a fusion input that was not given?`);
    evalExpr(this, def);
    const computed = this.values.get(s);
    if (computed === undefined || computed instanceof HostTensor) {
      throw new EvaluationError(`scalar ${s.symbolicName()} could not be computed`);
    }
    return computed;
  }

  /** Extent of a scalar as a JS number (extents are small enough to be exact). */
  extent(s: Scalar): number {
    return Number(this.scalar(s));
  }

  /** Logical sizes of a tensor as consumers see them (no reduction dims; expanded broadcasts expanded). */
  sizesOf(tv: TensorView): number[] {
    // Extents computed from scalar inputs may be anything: a tensor is never made with a negative
    // or fractional size (an expand to -1 rows would otherwise be a silently wrong view).
    return tv.domain.logicalNoReductions().map((id, d) => {
      const size = this.extent(id.logicalExtent());
      if (!Number.isSafeInteger(size) || size < 0) throw new EvaluationError(`T${tv.name}: dim ${d} has size ${size}; sizes must be integers ≥ 0`);
      return size;
    });
  }
}

/**
 * Evaluates `fusion` on `inputs` (HostTensors for tensor inputs, JS values for scalar inputs, in
 * `fusion.inputs` order) and returns one value per output.
 */
export function evaluate(fusion: Fusion, inputs: readonly EvalValue[]): EvalValue[] {
  const ctx = new EvalContext(fusion);
  bindInputs(ctx, inputs);
  const inputStorage = new Set(inputs.filter((v): v is HostTensor => v instanceof HostTensor).map((t) => t.data));
  const exprs = fusion.exprs();
  const release = releasePlan(fusion, exprs);
  exprs.forEach((expr, i) => {
    if (!expr.outputs.every((o) => ctx.has(o))) evalExpr(ctx, expr);
    for (const tv of release.get(i) ?? []) ctx.release(tv);
  });
  return fusion.outputs.map((out) => {
    if (out.kind === 'tensorView') {
      if (ctx.passThroughFlags(out) !== null) {
        throw new EvaluationError(`output T${out.name} is the partial result of an rFactor, which has no value of its own`);
      }
      const t = ctx.tensor(out);
      const order = allocationDimOrder(out);
      if (order !== null) return withDimOrder(t, order);
      // A view of an input (permute, slice, expand, squeeze … of it) is returned as an alias of
      // the input's storage, as nvFuser returns such outputs as views of the input.
      if (inputStorage.has(t.data)) return t;
      return t.isDense() ? t : t.contiguous();
    }
    if (out.kind === 'scalar') return ctx.scalar(out);
    throw new EvaluationError(`output ${describeVal(out)} is not a tensor or scalar`);
  });
}

/**
 * For each expr index, the intermediate tensors it is the last reader of. A long chain (a
 * 20,000-op TorchScript group) otherwise keeps every intermediate alive until the end: hundreds
 * of MB and most of the run spent in the GC. Fusion inputs and outputs are never released, nor a
 * tensor read by an expr outside `exprs` (a scalar's definition, evaluated lazily).
 */
function releasePlan(fusion: Fusion, exprs: readonly Expr[]): Map<number, TensorView[]> {
  const index = new Map<Expr, number>(exprs.map((e, i) => [e, i]));
  const keep = new Set<Val>([...fusion.inputs, ...fusion.outputs]);
  const plan = new Map<number, TensorView[]>();
  const seen = new Set<Val>();
  for (const expr of exprs) {
    for (const v of expr.inputs) {
      if (v.kind !== 'tensorView' || keep.has(v) || seen.has(v)) continue;
      seen.add(v);
      let last = -1;
      for (const use of v.uses) {
        const i = index.get(use);
        if (i === undefined) {
          last = -1;
          break;
        }
        last = Math.max(last, i);
      }
      if (last < 0) continue;
      const list = plan.get(last) ?? [];
      list.push(v as TensorView);
      plan.set(last, list);
    }
  }
  return plan;
}

/** Logical dims in allocation order when `tv` has an allocation domain that permutes them, else null. */
function allocationDimOrder(tv: TensorView): number[] | null {
  const allocation = tv.domain.allocation?.filter((id) => !id.isReduction());
  if (allocation === undefined) return null;
  const logical = tv.domain.logicalNoReductions();
  const order = allocation.map((id) => logical.indexOf(id));
  if (order.length !== logical.length || order.some((d) => d < 0)) return null;
  return order.every((d, k) => d === k) ? null : order;
}

function bindInputs(ctx: EvalContext, inputs: readonly EvalValue[]): void {
  const fusion = ctx.fusion;
  if (inputs.length !== fusion.inputs.length) {
    throw new EvaluationError(`fusion has ${fusion.inputs.length} inputs but ${inputs.length} were given`);
  }
  fusion.inputs.forEach((v, i) => {
    const value = inputs[i] as EvalValue;
    if (v.kind === 'tensorView') {
      if (!(value instanceof HostTensor)) throw new EvaluationError(`input ${i} (T${v.name}) must be a tensor, got ${typeof value}`);
      bindTensorInput(ctx, v, value, i);
    } else if (v.kind === 'scalar') {
      if (value instanceof HostTensor) throw new EvaluationError(`input ${i} (${v.symbolicName()}) must be a scalar, got a tensor`);
      ctx.bind(v, castTo(value, v.dtype));
    } else {
      throw new EvaluationError(`input ${i} is an IterDomain`);
    }
  });
}

function bindTensorInput(ctx: EvalContext, tv: TensorView, t: HostTensor, index: number): void {
  const where = `input ${index} (T${tv.name})`;
  if (t.dtype !== tv.dtype && !(isIndexLike(t.dtype) && isIndexLike(tv.dtype))) {
    throw new EvaluationError(`${where}: expected dtype ${tv.dtype}, got ${t.dtype}`);
  }
  checkStorage(t, where);
  const ids = tv.domain.logicalNoReductions();
  if (ids.length !== t.rank) {
    throw new EvaluationError(`${where}: expected rank ${ids.length}, got rank ${t.rank} (sizes [${t.sizes.join(', ')}])`);
  }
  ids.forEach((id, d) => {
    const size = t.sizes[d] as number;
    if (id.isBroadcast() && id.expandedExtent === null) {
      if (size !== 1) throw new EvaluationError(`${where}: dim ${d} is a broadcast dim and must have size 1, got ${size}`);
      return;
    }
    const extent = id.logicalExtent();
    if (extent.value !== null) {
      if (Number(extent.value) !== size) {
        throw new EvaluationError(`${where}: dim ${d} must have size ${String(extent.value)}, got ${size}`);
      }
      return;
    }
    if (ctx.has(extent)) {
      const bound = ctx.extent(extent);
      if (bound !== size) {
        const source = ctx.extentSource.get(extent) ?? 'another input';
        throw new EvaluationError(
          `${where}: dim ${d} has size ${size} but its extent ${extent.symbolicName()} is ${bound} from ${source}`,
        );
      }
      return;
    }
    ctx.bind(extent, BigInt(size));
    ctx.extentSource.set(extent, `${where} dim ${d}`);
  });
  ctx.bind(tv, t);
}

/** Every element of `t` must lie inside its storage (non-negative strides and offset). */
function checkStorage(t: HostTensor, where: string): void {
  if (t.offset < 0 || t.strides.some((s) => s < 0 || !Number.isInteger(s)) || t.sizes.some((s) => s < 0 || !Number.isInteger(s))) {
    throw new EvaluationError(`${where}: sizes [${t.sizes.join(', ')}], strides [${t.strides.join(', ')}] and offset ${t.offset} must be non-negative integers`);
  }
  if (t.numel === 0) return;
  const last = t.sizes.reduce((acc, s, d) => acc + (s - 1) * (t.strides[d] as number), t.offset);
  if (last >= t.data.length) {
    throw new EvaluationError(`${where}: the last element is at storage position ${last} but the storage holds ${t.data.length} elements`);
  }
}

function isIndexLike(d: DataType): boolean {
  return d === 'Int' || d === 'Index';
}

/** Evaluates one expression, binding its outputs. */
export function evalExpr(ctx: EvalContext, expr: Expr): void {
  if (NO_COMPLEX_EXPRS.has(expr.kind)) checkNoComplexValues(expr);
  switch (expr.kind) {
    case 'UnaryOp': {
      const input = expr.in() as TensorView | Scalar;
      const out = expr.out() as TensorView | Scalar;
      // Casts compute in the input's kind so that float → int conversions saturate (see values.ts).
      // Complex operands compute as complex whatever the output (abs, real, imag give reals).
      const computeType = isPredicateUnaryOp(expr.op) || expr.op === 'cast' || isComplexType(input.dtype) ? input.dtype : out.dtype;
      const kind = computeKindOf(computeType);
      const op = expr.op;
      const where = `${op} producing ${describeVal(out)}`;
      pointwise(ctx, where, [input], out, kind, {
        generic: ([x]) => (op === 'cast' ? (x as ElementValue) : applyUnary(op, x as ElementValue, kind)),
        float: () => {
          const k = floatUnaryKernel(op);
          return (xs, r) => {
            const a = xs[0] as Float64Array;
            for (let i = 0; i < r.length; i += 1) r[i] = k(a[i] as number);
          };
        },
      });
      return;
    }
    case 'BinaryOp': {
      const [a, b] = expr.inputs as [TensorView | Scalar, TensorView | Scalar];
      const out = expr.out() as TensorView | Scalar;
      const computeType = isPredicateBinaryOp(expr.op) ? resultType([operandInfo(a), operandInfo(b)]) : out.dtype;
      const kind = computeKindOf(computeType);
      const bits = computeType === 'Int32' ? 32 : 64;
      const op = expr.op;
      const where = `${op} producing ${describeVal(out)}`;
      // nextafter of Float steps one float32 ulp (nextafterf), not one double ulp.
      const float32Step = op === 'nextafter' && computeType === 'Float';
      pointwise(ctx, where, [a, b], out, kind, {
        generic: ([x, y]) => (float32Step ? nextafterFloat32(Number(x), Number(y)) : applyBinary(op, x as ElementValue, y as ElementValue, kind, where, bits)),
        float: () => {
          const k = float32Step ? nextafterFloat32 : floatBinaryKernel(op, where);
          return (xs, r) => {
            const p = xs[0] as Float64Array;
            const q = xs[1] as Float64Array;
            for (let i = 0; i < r.length; i += 1) r[i] = k(p[i] as number, q[i] as number);
          };
        },
      });
      return;
    }
    case 'TernaryOp': {
      const ins = expr.inputs as (TensorView | Scalar)[];
      const out = expr.out() as TensorView | Scalar;
      const kind = computeKindOf(out.dtype);
      const op = expr.op;
      const where = `${op} producing ${describeVal(out)}`;
      pointwise(ctx, where, ins, out, kind, {
        generic: ([x, y, z]) => applyTernary(op, x as ElementValue, y as ElementValue, z as ElementValue, kind),
        float: () => {
          const k = floatTernaryKernel(op);
          return (xs, r) => {
            const p = xs[0] as Float64Array;
            const q = xs[1] as Float64Array;
            const t = xs[2] as Float64Array;
            for (let i = 0; i < r.length; i += 1) r[i] = k(p[i] as number, q[i] as number, t[i] as number);
          };
        },
      });
      return;
    }
    case 'ReductionOp':
      evalReduction(ctx, expr);
      return;
    case 'WelfordOp':
      evalWelford(ctx, expr);
      return;
    case 'BroadcastOp':
    case 'SqueezeOp':
    case 'ExpandOp':
    case 'ViewOp':
    case 'LoadStoreOp':
    case 'SliceOp':
    case 'PadOp':
    case 'CatOp':
    case 'FullOp':
    case 'IotaOp':
      evalDataMovement(ctx, expr);
      return;
    case 'RNGOp':
      evalRng(ctx, expr);
      return;
    case 'SelectOp':
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'ScatterOp':
    case 'IndexPutAccumulateOp':
    case 'EmbeddingFwdOp':
      evalIndexing(ctx, expr);
      return;
    case 'ScanOp':
      evalScan(ctx, expr);
      return;
    case 'ArgsortOp':
      evalArgsort(ctx, expr);
      return;
    case 'TopKOp':
      evalTopK(ctx, expr);
      return;
    case 'MatmulOp':
    case 'LinearOp':
    case 'ScaledMmaOp':
    case 'GroupedMmaOp':
      evalMatmulExpr(ctx, expr);
      return;
    case 'SdpaFwdOp':
      evalSdpaFwd(ctx, expr);
      return;
    case 'SdpaBwdOp':
      evalSdpaBwd(ctx, expr);
      return;
    case 'Split':
    case 'Merge':
      return; // loop-domain transforms compute nothing
    default: {
      const unreachable: never = expr;
      throw new Error(`unknown expr ${String(unreachable)}`);
    }
  }
}

/** Exprs the evaluator does not compute on complex values (their definitions refuse complex too). */
const NO_COMPLEX_EXPRS: ReadonlySet<Expr['kind']> = new Set<Expr['kind']>([
  'WelfordOp', 'RNGOp', 'IndexSelectOp', 'GatherOp', 'ScatterOp', 'IndexPutAccumulateOp', 'EmbeddingFwdOp',
  'ScanOp', 'ArgsortOp', 'TopKOp', 'MatmulOp', 'LinearOp', 'ScaledMmaOp', 'GroupedMmaOp', 'SdpaFwdOp', 'SdpaBwdOp',
]);

function checkNoComplexValues(expr: Expr): void {
  const v = [...expr.inputs, ...expr.outputs].find((x) => x.kind !== 'iterDomain' && isComplexType(x.dtype));
  if (v !== undefined && v.kind !== 'iterDomain') {
    throw new EvaluationError(`${expr.kind}: not supported for complex dtype ${v.dtype} (${describeVal(v)})`);
  }
}

function operandInfo(v: TensorView | Scalar): { dtype: DataType; isTensor: boolean } {
  return { dtype: v.dtype, isTensor: v.kind === 'tensorView' };
}

interface PointwiseKernels {
  /** One element on operands already converted to the compute kind. */
  generic: (xs: ElementValue[]) => ElementValue;
  /** For compute kind float: a loop over dense float64 operands writing float64 results. */
  float: () => (xs: Float64Array[], result: Float64Array) => void;
}

/**
 * Applies an op elementwise; operands are converted to the compute kind and the result rounded
 * to the output dtype. Float ops gather every operand into a dense float64 array first and run
 * one tight loop; integer and boolean ops go element by element through exact bigint math.
 */
function pointwise(
  ctx: EvalContext,
  where: string,
  inputs: readonly (TensorView | Scalar)[],
  out: TensorView | Scalar,
  kind: ComputeKind,
  kernels: PointwiseKernels,
): void {
  if (out.kind === 'scalar') {
    const xs = inputs.map((v) => convertOperand(v.kind === 'scalar' ? ctx.scalar(v) : scalarTensorValue(ctx, v, where), kind));
    ctx.bind(out, castTo(kernels.generic(xs), out.dtype));
    return;
  }
  const sizes = ctx.sizesOf(out);
  const tensors = inputs.map((v) => (v.kind === 'tensorView' ? ctx.tensor(v) : null));
  tensors.forEach((t, i) => {
    if (t !== null) checkBroadcastable(where, i, t, sizes);
  });
  if (kind === 'float') {
    const numel = sizes.reduce((a, b) => a * b, 1);
    const xs = inputs.map((v, i) => {
      const t = tensors[i];
      if (t !== null && t !== undefined) return gatherFloat64(t, sizes, broadcastStrides(t, sizes));
      return new Float64Array(numel).fill(toFloat(ctx.scalar(v as Scalar)));
    });
    const r = new Float64Array(numel);
    kernels.float()(xs, r);
    ctx.bind(out, new HostTensor(out.dtype, sizes, contiguousStrides(sizes), storeFloat64(out.dtype, r)));
    return;
  }
  const result = HostTensor.empty(out.dtype, sizes);
  const tensorOperands: StridedOperand[] = [];
  const readers: Reader[] = [];
  const scalarValues: (ElementValue | null)[] = [];
  inputs.forEach((v, i) => {
    const t = tensors[i];
    if (t !== null && t !== undefined) {
      tensorOperands.push({ strides: broadcastStrides(t, sizes), offset: t.offset });
      readers.push(readerFor(t));
      scalarValues.push(null);
    } else {
      scalarValues.push(convertOperand(ctx.scalar(v as Scalar), kind));
    }
  });
  const xs = new Array<ElementValue>(inputs.length);
  const dtype = out.dtype;
  forEachElement(sizes, tensorOperands, (linear, offsets) => {
    let k = 0;
    for (let i = 0; i < xs.length; i += 1) {
      const s = scalarValues[i];
      if (s === null || s === undefined) {
        xs[i] = convertOperand((readers[k] as Reader)(offsets[k] as number), kind);
        k += 1;
      } else {
        xs[i] = s;
      }
    }
    writeStorage(dtype, result.data, linear, castTo(kernels.generic(xs), dtype));
  });
  ctx.bind(out, result);
}

/** A pointwise op with a scalar output and a tensor operand: only a rank-0 tensor has one value. */
function scalarTensorValue(ctx: EvalContext, tv: TensorView, where: string): ElementValue {
  const t = ctx.tensor(tv);
  if (t.numel !== 1) throw new EvaluationError(`${where}: tensor operand T${tv.name} of a scalar op has ${t.numel} elements`);
  return t.get(0);
}

/** Operand `t` of an op with output sizes `sizes`: same rank, and each dim equal or 1 (broadcast). */
function checkBroadcastable(where: string, operand: number, t: HostTensor, sizes: readonly number[]): void {
  const bad =
    t.rank !== sizes.length || t.sizes.some((s, d) => s !== sizes[d] && s !== 1);
  if (bad) {
    throw new EvaluationError(
      `${where}: operand ${operand} has sizes [${t.sizes.join(', ')}], which do not broadcast to the output sizes [${sizes.join(', ')}]`,
    );
  }
}

function convertOperand(v: ElementValue, kind: ComputeKind): ElementValue {
  if (kind === 'complex') return toComplex(v);
  if (v instanceof Complex) return convert(v, kind);
  if (kind === 'float') return typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
  if (kind === 'int') return typeof v === 'bigint' ? v : typeof v === 'boolean' ? (v ? 1n : 0n) : Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
  return typeof v === 'boolean' ? v : typeof v === 'bigint' ? v !== 0n : v !== 0;
}
