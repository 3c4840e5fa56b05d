// The reference evaluator: runs a Fusion on host tensors, op by op, following logical domains
// only — schedules (splits, merges, parallel types, inlining) never change its results. It is
// the oracle every GPU and scheduler test compares against.
//
// Each op computes in float64 (floats) or exact int64 (ints) and rounds its result to its output
// dtype, as the generated kernel does when it stores a value of that type.

import type { DataType } from '../ir/data-type.js';
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
import { applyBinary, applyTernary, applyUnary } from './pointwise-math.js';
import { evalReduction, evalWelford } from './reduction.js';
import { broadcastStrides, forEachElement, readerFor } from './strided.js';
import { castTo, computeKindOf, type ComputeKind } from './values.js';
import { writeStorage } from './host-tensor.js';

export type EvalValue = HostTensor | ElementValue;

/** Values of a fusion's vals during one evaluation, with the binding of symbolic scalars. */
export class EvalContext {
  private readonly values = new Map<Val, EvalValue>();

  constructor(readonly fusion: Fusion) {}

  bind(v: Val, value: EvalValue): void {
    this.values.set(v, value);
  }

  has(v: Val): boolean {
    return this.values.has(v);
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
    return tv.domain.logicalNoReductions().map((id) => this.extent(id.logicalExtent()));
  }
}

/**
 * Evaluates `fusion` on `inputs` (HostTensors for tensor inputs, JS values for scalar inputs, in
 * `fusion.inputs` order) and returns one value per output.
 */
export function evaluate(fusion: Fusion, inputs: readonly EvalValue[]): EvalValue[] {
  const ctx = new EvalContext(fusion);
  bindInputs(ctx, inputs);
  for (const expr of fusion.exprs()) {
    if (expr.outputs.every((o) => ctx.has(o))) continue;
    evalExpr(ctx, expr);
  }
  return fusion.outputs.map((out) => {
    if (out.kind === 'tensorView') {
      const t = ctx.tensor(out);
      return t.isContiguous() && t.offset === 0 && t.data.length === t.numel ? t : t.contiguous();
    }
    if (out.kind === 'scalar') return ctx.scalar(out);
    throw new EvaluationError(`output ${describeVal(out)} is not a tensor or scalar`);
  });
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
        throw new EvaluationError(
          `${where}: dim ${d} has size ${size} but ${extent.symbolicName()} is already ${bound} from another input`,
        );
      }
      return;
    }
    ctx.bind(extent, BigInt(size));
  });
  ctx.bind(tv, t);
}

function isIndexLike(d: DataType): boolean {
  return d === 'Int' || d === 'Index';
}

/** Evaluates one expression, binding its outputs. */
export function evalExpr(ctx: EvalContext, expr: Expr): void {
  switch (expr.kind) {
    case 'UnaryOp': {
      const input = expr.in() as TensorView | Scalar;
      const out = expr.out() as TensorView | Scalar;
      const kind = computeKindOf(isPredicateUnaryOp(expr.op) ? input.dtype : out.dtype);
      const cast = expr.op === 'cast';
      pointwise(ctx, [input], out, kind, ([x]) =>
        cast ? (x as ElementValue) : applyUnary(expr.op, x as ElementValue, kind));
      return;
    }
    case 'BinaryOp': {
      const [a, b] = expr.inputs as [TensorView | Scalar, TensorView | Scalar];
      const out = expr.out() as TensorView | Scalar;
      const kind = isPredicateBinaryOp(expr.op)
        ? computeKindOf(resultType([operandInfo(a), operandInfo(b)]))
        : computeKindOf(out.dtype);
      const where = `${expr.op} producing ${describeVal(out)}`;
      pointwise(ctx, [a, b], out, kind, ([x, y]) => applyBinary(expr.op, x as ElementValue, y as ElementValue, kind, where));
      return;
    }
    case 'TernaryOp': {
      const ins = expr.inputs as TensorView[];
      const out = expr.out() as TensorView | Scalar;
      const kind = computeKindOf(out.dtype);
      pointwise(ctx, ins, out, kind, ([x, y, z]) =>
        applyTernary(expr.op, x as ElementValue, y as ElementValue, z as ElementValue, kind));
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
    case 'Split':
    case 'Merge':
      return; // loop-domain transforms compute nothing
    default: {
      const unreachable: never = expr;
      throw new Error(`unknown expr ${String(unreachable)}`);
    }
  }
}

function operandInfo(v: TensorView | Scalar): { dtype: DataType; isTensor: boolean } {
  return { dtype: v.dtype, isTensor: v.kind === 'tensorView' };
}

/** Applies `fn` elementwise; operands are converted to the compute kind, the result cast to the output dtype. */
function pointwise(
  ctx: EvalContext,
  inputs: readonly (TensorView | Scalar)[],
  out: TensorView | Scalar,
  kind: ComputeKind,
  fn: (xs: ElementValue[]) => ElementValue,
): void {
  if (out.kind === 'scalar') {
    const xs = inputs.map((v) => convertOperand(ctx.scalar(v as Scalar), kind));
    ctx.bind(out, castTo(fn(xs), out.dtype));
    return;
  }
  const sizes = ctx.sizesOf(out);
  const result = HostTensor.empty(out.dtype, sizes);
  const tensorOperands: { strides: number[]; offset: number }[] = [];
  const readers: ((pos: number) => ElementValue)[] = [];
  const scalarValues: (ElementValue | null)[] = [];
  for (const v of inputs) {
    if (v.kind === 'tensorView') {
      const t = ctx.tensor(v);
      tensorOperands.push({ strides: broadcastStrides(t, sizes), offset: t.offset });
      readers.push(readerFor(t));
      scalarValues.push(null);
    } else {
      scalarValues.push(convertOperand(ctx.scalar(v), kind));
    }
  }
  const xs = new Array<ElementValue>(inputs.length);
  const dtype = out.dtype;
  forEachElement(sizes, tensorOperands, (linear, offsets) => {
    let k = 0;
    for (let i = 0; i < inputs.length; i += 1) {
      const s = scalarValues[i];
      if (s === null || s === undefined) {
        xs[i] = convertOperand((readers[k] as (p: number) => ElementValue)(offsets[k] as number), kind);
        k += 1;
      } else {
        xs[i] = s;
      }
    }
    writeStorage(dtype, result.data, linear, castTo(fn(xs), dtype));
  });
  ctx.bind(out, result);
}

function convertOperand(v: ElementValue, kind: ComputeKind): ElementValue {
  if (kind === 'float') return typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
  if (kind === 'int') return typeof v === 'bigint' ? v : typeof v === 'boolean' ? (v ? 1n : 0n) : Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
  return typeof v === 'boolean' ? v : typeof v === 'bigint' ? v !== 0n : v !== 0;
}
