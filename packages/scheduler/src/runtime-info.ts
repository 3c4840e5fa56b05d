// RuntimeInfo: what a scheduler knows about one launch — concrete sizes, strides, dtypes and
// pointer alignment of every fusion input, plus the device's properties. Heuristics depend on
// it, so a compiled kernel is keyed by the heuristics it produced.
//
// Also the evaluation of symbolic extents (`i3`, `ceilDiv(i3, 4)`) from those sizes, which the
// heuristics and the launch-parameter computation share.

import { contiguousStrides, EvalContext, FusionIrError, isIntegralType, type DataType, type Fusion, type Scalar, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { SchedulingError } from './errors.js';

export interface SchedulerDevice {
  name: string;
  smCount: number;
  maxThreadsPerBlock: number;
  maxThreadsPerSm: number;
  l2CacheBytes: number;
  warpSize: number;
  computeCapability: readonly [number, number];
  /** Shared memory of one SM and the most one block may opt in to, in bytes (absent: not known). */
  sharedMemPerSm?: number;
  sharedMemPerBlockOptin?: number;
}

/** NVIDIA H100 SXM (80 GB), the default target. */
export const H100_PROPERTIES: SchedulerDevice = {
  name: 'NVIDIA H100 80GB HBM3',
  smCount: 132,
  maxThreadsPerBlock: 1024,
  maxThreadsPerSm: 2048,
  l2CacheBytes: 50 * 1024 * 1024,
  warpSize: 32,
  computeCapability: [9, 0],
  sharedMemPerSm: 233472,
  sharedMemPerBlockOptin: 232448,
};

export interface TensorInputInfo {
  kind: 'tensor';
  dtype: DataType;
  /** Logical sizes (expanded broadcast dims report their expanded size with stride 0). */
  sizes: readonly number[];
  strides: readonly number[];
  /** Largest power of two (≤ 16… any) dividing the data pointer, in bytes. */
  alignment: number;
}

export interface ScalarInputInfo {
  kind: 'scalar';
  dtype: DataType;
  /**
   * The value of an integral scalar input, when known: sizes computed from it (a dynamic
   * reshape's new sizes) are bound to it, so the plan for it is one per value class.
   */
  value?: number;
}

export type InputInfo = TensorInputInfo | ScalarInputInfo;

export interface RuntimeInfo {
  /** One entry per fusion input, in fusion input order. */
  inputs: readonly InputInfo[];
  device: SchedulerDevice;
}

/**
 * What a call's argument is as the schedulers need it, before it is matched to a fusion input:
 * a tensor's layout and data pointer alignment, or a scalar (with its value when it is a number:
 * an integral input may be a size).
 */
export type InputLayout = { kind: 'tensor'; sizes: readonly number[]; strides: readonly number[]; alignment: number } | { kind: 'scalar'; value?: number };

/** An input's description as a layout again (a segment re-describes the fusion inputs it reads). */
export function inputLayoutOf(info: InputInfo): InputLayout {
  if (info.kind === 'tensor') return { kind: 'tensor', sizes: info.sizes, strides: info.strides, alignment: info.alignment };
  return info.value === undefined ? { kind: 'scalar' } : { kind: 'scalar', value: info.value };
}

/** Whether a scalar dtype is integral (its value can be a size: a dynamic reshape's). */
function isIntegralDtype(dtype: DataType): boolean {
  return dtype === 'Int' || dtype === 'Int32' || dtype === 'Index';
}

/**
 * The one RuntimeInfo builder: `fusion`'s inputs described by `layouts` (one per input, in
 * order) on `device`. A tensor input takes its dtype from the fusion (callers have checked the
 * argument's); an integral scalar input keeps its value (sizes may be computed from it); an
 * input whose layout is missing or of the other kind is described as a scalar of its dtype
 * (the extent check reports the mismatch with the input's position).
 */
export function runtimeInfoOf(fusion: Fusion, layouts: readonly (InputLayout | undefined)[], device: SchedulerDevice): RuntimeInfo {
  const inputs = fusion.inputs.map((v, i): InputInfo => {
    const a = layouts[i];
    if (v.kind === 'tensorView' && a !== undefined && a.kind === 'tensor') return { kind: 'tensor', dtype: v.dtype, sizes: a.sizes, strides: a.strides, alignment: a.alignment };
    const dtype = v.kind === 'scalar' ? v.dtype : 'Double';
    return isIntegralDtype(dtype) && a?.kind === 'scalar' && a.value !== undefined ? { kind: 'scalar', dtype, value: a.value } : { kind: 'scalar', dtype };
  });
  return { inputs, device };
}

/**
 * Convenience: RuntimeInfo for the fusion's inputs given their sizes (contiguous, 16-byte
 * aligned unless strides/alignment are given). Scalars take `null`, or `{ value }` (an integral
 * scalar's value is kept: sizes may be computed from it).
 */
export function makeRuntimeInfo(
  fusion: Fusion,
  inputs: readonly ({ sizes: readonly number[]; strides?: readonly number[]; alignment?: number } | { value: number | bigint | boolean } | null)[],
  device: SchedulerDevice = H100_PROPERTIES,
): RuntimeInfo {
  if (inputs.length !== fusion.inputs.length) {
    throw new SchedulingError(`makeRuntimeInfo: ${inputs.length} input descriptions for ${fusion.inputs.length} fusion inputs`);
  }
  const layouts = fusion.inputs.map((v, i): InputLayout => {
    const spec = inputs[i];
    if (v.kind === 'tensorView') {
      if (spec === null || spec === undefined || !('sizes' in spec)) throw new SchedulingError(`makeRuntimeInfo: input ${i} (T${v.name}) is a tensor but was given no sizes`);
      return { kind: 'tensor', sizes: [...spec.sizes], strides: spec.strides ? [...spec.strides] : contiguousStrides(spec.sizes), alignment: spec.alignment ?? 16 };
    }
    if (v.kind === 'scalar') {
      return spec !== null && spec !== undefined && 'value' in spec && typeof spec.value !== 'boolean' ? { kind: 'scalar', value: Number(spec.value) } : { kind: 'scalar' };
    }
    throw new SchedulingError(`makeRuntimeInfo: input ${i} is an IterDomain`);
  });
  return runtimeInfoOf(fusion, layouts, device);
}

/** Symbolic extents bound to concrete sizes (input extents and expanded extents). */
export type ExtentBindings = Map<Scalar, number>;

/**
 * Binds every symbolic extent of the fusion inputs to its runtime size, and integral scalar
 * inputs to their values where the runtime info has them; checks ranks and constants.
 */
export function bindExtents(fusion: Fusion, info: RuntimeInfo): ExtentBindings {
  const bindings: ExtentBindings = new Map();
  if (info.inputs.length !== fusion.inputs.length) {
    throw new SchedulingError(`runtime info describes ${info.inputs.length} inputs but the fusion has ${fusion.inputs.length}`);
  }
  fusion.inputs.forEach((v, i) => {
    const inp = info.inputs[i] as InputInfo;
    // Integral scalar inputs with a known value (dynamic reshape sizes).
    if (v.kind === 'scalar' && inp.kind === 'scalar' && inp.value !== undefined && v.value === null) bindings.set(v, inp.value);
    if (v.kind !== 'tensorView') return;
    if (inp.kind !== 'tensor') throw new SchedulingError(`input ${i} (T${v.name}) is a tensor but runtime info describes a scalar`);
    const logical = v.domain.logicalNoReductions();
    if (logical.length !== inp.sizes.length || inp.strides.length !== inp.sizes.length) {
      throw new SchedulingError(
        `input ${i} (T${v.name}) has rank ${logical.length} but was given sizes [${inp.sizes.join(', ')}] and strides [${inp.strides.join(', ')}]`,
      );
    }
    logical.forEach((id, d) => {
      const size = inp.sizes[d] as number;
      const bind = (s: Scalar): void => {
        const c = s.constNumber();
        if (c !== null) {
          if (c !== size && !(id.isBroadcast() && s === id.extent)) {
            throw new SchedulingError(`input ${i} (T${v.name}) dim ${d} has constant extent ${c} but runtime size ${size}`);
          }
          return;
        }
        const prev = bindings.get(s);
        if (prev !== undefined && prev !== size) {
          throw new SchedulingError(`extent ${s.symbolicName()} is ${prev} elsewhere but input ${i} (T${v.name}) dim ${d} has size ${size}`);
        }
        bindings.set(s, size);
      };
      if (id.isBroadcast()) {
        if (id.expandedExtent !== null) bind(id.expandedExtent);
        else if (size !== 1) throw new SchedulingError(`input ${i} (T${v.name}) dim ${d} is a broadcast but has runtime size ${size}`);
      } else {
        bind(id.extent);
      }
    });
  });
  checkReshapeSizes(fusion, bindings);
  return bindings;
}

/**
 * A reshape's symbolic sizes are known only with the inputs: their product must be the input's
 * element count (PyTorch: "shape '[…]' is invalid for input of size N"). The output's extents are
 * derived from the input's by splits, so a wrong request would otherwise be rounded silently.
 * Sizes not computable from these inputs (a segment's) are left to the fusion they come from.
 */
function checkReshapeSizes(fusion: Fusion, bindings: ExtentBindings): void {
  for (const e of fusion.allExprs()) {
    if (e.kind !== 'ViewOp') continue;
    let asked: number[];
    let inNumel: number;
    try {
      asked = e.newSizes.map((s) => evaluateExtent(s, bindings));
      inNumel = e.originalSizes.reduce((acc, s) => acc * evaluateExtent(s, bindings), 1);
    } catch {
      continue;
    }
    const out = e.outputs[0];
    if (asked.reduce((a, b) => a * b, 1) !== inNumel) {
      throw new SchedulingError(`reshape producing T${out?.name ?? '?'}: shape [${asked.join(', ')}] is invalid for input of size ${inNumel}`);
    }
  }
}

/**
 * Evaluates an integer extent expression: constants, bound symbols, an expression bound as a
 * whole (a segment input's derived extent) by its text, integer arithmetic (ceilDiv, mul, add,
 * min, max, comparisons and where of those) here; any other scalar expression — casts, float
 * math, bitwise ops, as a reshape to sizes computed from scalars (test_reshape_dynamic) or pad
 * widths computed at run time (test_pad_dynamic) build — by the reference evaluator's scalar
 * semantics over the same bindings (scalarByEvaluator).
 */
export function evaluateExtent(s: Scalar, bindings: ExtentBindings): number {
  const c = s.constNumber();
  if (c !== null) return c;
  const b = bindings.get(s);
  if (b !== undefined) return b;
  const def = s.definition;
  if (def !== null) {
    // A segment input's extent may be an expression (a reshape's output sizes) whose leaves are
    // not inputs of the segment; the same expression elsewhere is another Scalar object.
    const text = s.symbolicName();
    for (const [k, v] of bindings) if (k.definition !== null && k.symbolicName() === text) return v;
  }
  if (def !== null && def.kind === 'BinaryOp' && integralOperands(def.inputs)) {
    const a = evaluateExtent(def.lhs() as Scalar, bindings);
    const d = evaluateExtent(def.rhs() as Scalar, bindings);
    switch (def.op) {
      case 'ceilDiv':
        return d === 0 ? 0 : Math.ceil(a / d);
      case 'mul':
        return a * d;
      case 'add':
        return a + d;
      case 'sub':
        return a - d;
      case 'div':
        return Math.trunc(a / d);
      case 'mod':
        return a % d;
      case 'maximum':
        return Math.max(a, d);
      case 'minimum':
        return Math.min(a, d);
      case 'lt':
        return a < d ? 1 : 0;
      case 'le':
        return a <= d ? 1 : 0;
      case 'gt':
        return a > d ? 1 : 0;
      case 'ge':
        return a >= d ? 1 : 0;
      default:
        break;
    }
  }
  // A slice bound's normalization: where(i < 0, i + size, i).
  if (def !== null && def.kind === 'TernaryOp' && def.op === 'where' && integralOperands(def.inputs.slice(1))) {
    const [c, a, b] = def.inputs as [Scalar, Scalar, Scalar];
    return evaluateExtent(c, bindings) !== 0 ? evaluateExtent(a, bindings) : evaluateExtent(b, bindings);
  }
  if (def !== null) return scalarByEvaluator(s, bindings);
  throw new SchedulingError(`cannot evaluate extent ${s.symbolicName()} from the input sizes and integral scalar inputs`);
}

/** Whether every operand is an integral scalar (the integer arithmetic above is exact for them only). */
function integralOperands(vals: readonly Val[]): boolean {
  return vals.every((v) => v.kind === 'scalar' && (isIntegralType(v.dtype) || v.dtype === 'Bool'));
}

/**
 * A scalar expression of bound extents and scalar inputs, evaluated as the reference evaluator
 * evaluates it (nvFuser's scalar semantics: a Float product, its cast to Int, fmod, signbit, …).
 * Leaves are constants or bound (directly or by text), else the extent is not computable here.
 */
function scalarByEvaluator(s: Scalar, bindings: ExtentBindings): number {
  const ctx = new EvalContext(s.fusion);
  const pending: Scalar[] = [s];
  const seen = new Set<Scalar>();
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (seen.has(v) || v.value !== null) continue;
    seen.add(v);
    const bound = v === s ? undefined : boundValue(v, bindings);
    if (bound !== undefined) {
      ctx.bind(v, bound);
      continue;
    }
    const def = v.definition;
    if (def === null) throw new SchedulingError(`cannot evaluate extent ${s.symbolicName()} from the input sizes and integral scalar inputs: ${v.symbolicName()} has no known value`);
    for (const input of def.inputs) {
      if (input.kind !== 'scalar') throw new SchedulingError(`cannot evaluate extent ${s.symbolicName()}: it reads ${input.kind} ${input.toString()}`);
      pending.push(input);
    }
  }
  let value: number;
  try {
    value = Number(ctx.scalar(s));
  } catch (e) {
    if (e instanceof FusionIrError) throw new SchedulingError(`cannot evaluate extent ${s.symbolicName()}: ${e.message}`);
    throw e;
  }
  if (!Number.isFinite(value)) throw new SchedulingError(`extent ${s.symbolicName()} evaluates to ${value}`);
  return value;
}

/** A scalar's value from the bindings: bound itself, or an expression bound by its text. */
function boundValue(v: Scalar, bindings: ExtentBindings): number | undefined {
  const b = bindings.get(v);
  if (b !== undefined || v.definition === null) return b;
  const text = v.symbolicName();
  for (const [k, x] of bindings) if (k.definition !== null && k.symbolicName() === text) return x;
  return undefined;
}

/** Concrete logical sizes (non-reduction dims; expanded broadcasts report their expanded size). */
export function tensorSizes(tv: TensorView, bindings: ExtentBindings): number[] {
  return tv.domain.logicalNoReductions().map((id) => evaluateExtent(id.logicalExtent(), bindings));
}
