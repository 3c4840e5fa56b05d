// Pass 5c — resize lowering (used by expression lowering) for slice, pad and cat in pointwise,
// reduction and persistent kernels. In: the index spaces of the scheduled fusion (scheduler's
// pointwise/resize; built once by the scheduler's final step, ScheduledFusion.analyses): each
// tensor's logical dims as a reference dim through slice / pad / cat steps. Out:
//   * the shifted index of a global access: p = Σ⁺ − Σ⁻ with both sums ≥ 0, built step by
//     step (p' = p·scale + add − sub), so bounds are compared without negative numbers
//     (`Σ⁻ < Σ⁺ + 1` is p ≥ 0, `Σ⁺ < extent + Σ⁻` is p < extent) and the unsigned hardware
//     indices never meet a negative value in a comparison;
//   * a load of a global tensor in a shifted space guarded by the validity of every pad / cat
//     step on its way (out of range: the buffer gets 0, its value is never selected); the same
//     validity guards a store to an output in a shifted space (a slice of a persistent row:
//     expression lowering adds loadPredicates of the output to the store's predicates);
//   * SliceOp: a copy (the producer was computed at the shifted point); PadOp: the copy where
//     the pad's step is valid, else the pad value; CatOp: the first input whose step is valid;
//   * the kernel-start ScalarComputes for offsets that are not plain extents (normalized slice
//     starts, derived extents with min / max), named r0, r1, …, and for loop extents no kernel
//     argument carries (extentOf: a reduction kernel looping over a slice's length).
// Invariant: every tensor read or written in a shifted space is indexed through its space.

import { type CatOp, type Expr, type PadOp, type Scalar, type TensorView } from '@tsfuser/fusion-ir';
import { isIdentitySpace, type DimSpace, type IndexSpace, type IndexSpaces, type OffsetTerm } from '@tsfuser/scheduler';
import { LoweringError } from '../errors.js';
import { iadd, iceilDiv, iconst, imul, printIndex, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Operand, Predicate, ScalarOperand, Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import { computeDtypeOf, computeOpOf } from './compute-type.js';
import type { LoweringContext } from './context.js';
import type { PointIndexer } from './indexing.js';
import { literalOperand, scalarLiteral } from './scalar-literal.js';

/** A dim's index at one point: the value, and the validity predicates of each step. */
interface DimWalk {
  index: IndexExpr;
  stepPredicates: Predicate[][];
}

export class ResizeLowering {
  /** ScalarComputes for offsets, placed at the kernel start. */
  readonly stmts: Stmt[] = [];
  private readonly names = new Map<string, IndexExpr>();
  readonly spaces: IndexSpaces;
  /** The context's extent lookup before this lowering extends it (extentOf). */
  private readonly baseExtent: (s: Scalar) => IndexExpr;

  /** `spaces`: the scheduled fusion's index spaces (ScheduledFusion.analyses, built once there). */
  constructor(
    readonly ctx: LoweringContext,
    spaces: IndexSpaces,
  ) {
    this.baseExtent = ctx.extent;
    this.spaces = spaces;
    if (this.spaces.conflicts.length > 0) {
      throw new LoweringError(`resize: T${this.spaces.conflicts.map((t) => t.name).join(', T')} are wanted in two index spaces (the scheduler did not recompute them)`);
    }
  }

  /** The space `expr` reads or writes `tv` in; null when it is the reference's own. */
  shiftedSpace(expr: Expr, tv: TensorView): IndexSpace | null {
    const sp = tv.isFusionInput() ? this.spaces.ofAccess(expr, tv) : (this.spaces.ofTensor(tv) ?? this.spaces.ofAccess(expr, tv));
    return sp === null || isIdentitySpace(sp) ? null : sp;
  }

  /** Per logical dim of `tv`: its shifted index at this point, or null (reference index). */
  shiftedIndices(expr: Expr, tv: TensorView, indexer: PointIndexer): (IndexExpr | null)[] | null {
    const sp = this.shiftedSpace(expr, tv);
    if (sp === null) return null;
    return sp.map((d) => (d === null || d.steps.length === 0 ? null : this.walk(d, indexer).index));
  }

  /** Validity of every pad / cat step by which `expr` reads global `tv` (empty: always valid). */
  loadPredicates(expr: Expr, tv: TensorView, indexer: PointIndexer): Predicate[] {
    const sp = this.shiftedSpace(expr, tv);
    if (sp === null) return [];
    return sp.flatMap((d) => (d === null ? [] : this.walk(d, indexer).stepPredicates.flat()));
  }

  private walk(dim: DimSpace, indexer: PointIndexer): DimWalk {
    const logical = indexer.history.logical[dim.refDim];
    if (logical === undefined) throw new LoweringError(`resize: the reference has no logical dim ${dim.refDim}`);
    let plus = indexer.index(logical);
    let minus: IndexExpr = iconst(0);
    const stepPredicates: Predicate[][] = [];
    for (const s of dim.steps) {
      const scale = s.scale === null ? iconst(1) : this.scalar(s.scale);
      plus = s.add.reduce((acc, t) => iadd(acc, this.term(t)), imul(plus, scale));
      minus = s.sub.reduce((acc, t) => iadd(acc, this.term(t)), imul(minus, scale));
      const preds: Predicate[] = [];
      if (s.validExtent !== null) {
        if (!(minus.kind === 'const' && minus.value === 0)) preds.push({ index: minus, extent: iadd(plus, iconst(1)) });
        preds.push({ index: plus, extent: iadd(this.scalar(s.validExtent), minus) });
      }
      stepPredicates.push(preds);
    }
    return { index: iadd(plus, imul(minus, iconst(-1))), stepPredicates };
  }

  /**
   * An extent as an index: the kernel's own (arguments and their arithmetic), else computed at
   * kernel start — a resized extent no argument carries (a reduction over a slice's length).
   */
  extentOf(s: Scalar): IndexExpr {
    return this.scalar(s);
  }

  private term(t: OffsetTerm): IndexExpr {
    switch (t.kind) {
      case 'const':
        return iconst(t.value);
      case 'scalar':
        return this.scalar(t.scalar);
      case 'sliceStart':
        return this.sliceStart(t.start, t.size);
      default: {
        const unreachable: never = t;
        throw new LoweringError(`unknown offset term ${String(unreachable)}`);
      }
    }
  }

  /**
   * An integer scalar as an index: an extent the kernel knows, index arithmetic of such, else
   * computed at kernel start (min / max / where of a slice's normalization).
   */
  private scalar(s: Scalar): IndexExpr {
    try {
      return this.baseExtent(s);
    } catch (err) {
      if (!(err instanceof LoweringError)) throw err;
    }
    const def = s.definition;
    if (def !== null && def.kind === 'BinaryOp') {
      const [l, r] = def.inputs as [Scalar, Scalar];
      switch (def.op) {
        case 'add':
          return iadd(this.scalar(l), this.scalar(r));
        case 'sub':
          return iadd(this.scalar(l), imul(this.scalar(r), iconst(-1)));
        case 'mul':
          return imul(this.scalar(l), this.scalar(r));
        case 'ceilDiv':
          return iceilDiv(this.scalar(l), this.scalar(r));
        default:
          break;
      }
    }
    return { kind: 'sym', name: this.computed(s).text, bound: null };
  }

  /**
   * A ScalarCompute operand: a literal or a name. Index-typed names carry the dtype of
   * nvfuser_index_t (Int32 or Int), so the emitter widens them to the `long long` these
   * computations use.
   */
  private operand(s: Scalar): ScalarOperand {
    if (s.value !== null) return literalOperand(s.value, s.dtype);
    const named = this.ctx.scalarNames.get(s);
    if (named !== undefined) return { kind: 'scalar', text: named, dtype: s.dtype === 'Index' ? this.indexDtype() : s.dtype };
    if (s.dtype === 'Bool') return this.computed(s);
    return this.materialize(this.scalar(s));
  }

  private indexDtype(): 'Int' | 'Int32' {
    return this.ctx.indexType === 'Int32' ? 'Int32' : 'Int';
  }

  /** An index expression as a literal or a name (ScalarComputes for its operations). */
  private materialize(e: IndexExpr): ScalarOperand {
    switch (e.kind) {
      case 'const':
        return { kind: 'scalar', text: scalarLiteral(e.value, 'Int'), dtype: 'Int' };
      case 'sym':
        return { kind: 'scalar', text: e.name, dtype: this.indexDtype() };
      default: {
        const key = `e:${printIndex(e)}`;
        const known = this.names.get(key);
        if (known !== undefined && known.kind === 'sym') return { kind: 'scalar', text: known.name, dtype: this.indexDtype() };
        const op = e.kind === 'add' ? 'add' : e.kind === 'mul' ? 'mul' : e.kind === 'div' ? 'div' : 'mod';
        const r = this.emit(key, 'Index', { family: 'binary', op }, [this.materialize(e.a), this.materialize(e.b)], 'Index');
        return { ...r, dtype: this.indexDtype() };
      }
    }
  }

  /** ScalarComputes for `s`'s definition (and the operands it needs first). */
  private computed(s: Scalar): ScalarOperand {
    const key = `s${s.name}`;
    const known = this.names.get(key);
    if (known !== undefined && known.kind === 'sym') return { kind: 'scalar', text: known.name, dtype: s.dtype === 'Index' ? this.indexDtype() : s.dtype };
    const def = s.definition;
    const op = def === null ? null : computeOpOf(def);
    if (def === null || op === null) throw new LoweringError(`resize: scalar ${s.symbolicName()} is neither an extent nor computable in the kernel`);
    const operands = def.inputs.map((v) => {
      if (v.kind !== 'scalar') throw new LoweringError(`resize: scalar ${s.symbolicName()} depends on a tensor`);
      return this.operand(v);
    });
    return this.emit(key, s.dtype, op, operands, computeDtypeOf(def));
  }

  private emit(key: string, dtype: Scalar['dtype'], op: Extract<Stmt, { kind: 'ScalarCompute' }>['op'], operands: ScalarOperand[], computeDtype: Scalar['dtype']): ScalarOperand {
    const name = `r${this.stmts.length}`;
    this.stmts.push({ kind: 'ScalarCompute', name, dtype, op, operands, computeDtype });
    this.names.set(key, { kind: 'sym', name, bound: null });
    return { kind: 'scalar', text: name, dtype: dtype === 'Index' ? this.indexDtype() : dtype };
  }

  /** torch's slice start: start < 0 counts from the end; clamped to [0, size]. */
  private sliceStart(start: Scalar, size: Scalar): IndexExpr {
    const a = start.constNumber();
    const n = size.constNumber();
    if (a !== null && n !== null) return iconst(Math.min(Math.max(a < 0 ? a + n : a, 0), n));
    const key = `norm${start.name}/${size.name}`;
    const known = this.names.get(key);
    if (known !== undefined) return known;
    const s = this.operand(start);
    const z = this.operand(size);
    const zero: ScalarOperand = { kind: 'scalar', text: '0LL', dtype: 'Int' };
    let shifted: ScalarOperand;
    if (a !== null) {
      shifted = a < 0 ? this.emit(`${key}+`, 'Index', { family: 'binary', op: 'add' }, [s, z], 'Index') : s;
    } else {
      const sum = this.emit(`${key}+`, 'Index', { family: 'binary', op: 'add' }, [s, z], 'Index');
      const neg = this.emit(`${key}<`, 'Bool', { family: 'binary', op: 'lt' }, [s, zero], 'Index');
      shifted = this.emit(`${key}?`, 'Index', { family: 'ternary', op: 'where' }, [neg, sum, s], 'Index');
    }
    const low = this.emit(`${key}max`, 'Index', { family: 'binary', op: 'maximum' }, [shifted, zero], 'Index');
    const clamped = this.emit(key, 'Index', { family: 'binary', op: 'minimum' }, [low, z], 'Index');
    return { kind: 'sym', name: clamped.text, bound: null };
  }

  /** The index space step of input `k` of `expr` on dim `d` is its last one: its predicates. */
  private ownStepPredicates(expr: Expr, input: TensorView, indexer: PointIndexer): Predicate[] {
    const out = expr.outputs[0] as TensorView;
    const inSpace = this.spaces.ofAccess(expr, input) ?? this.spaces.ofTensor(input);
    const outSpace = this.spaces.ofTensor(out) ?? this.spaces.ofAccess(expr, out);
    if (inSpace === null || outSpace === null) throw new LoweringError(`resize: no index space for T${input.name} read by T${out.name}`);
    const preds: Predicate[] = [];
    inSpace.forEach((d, i) => {
      const o = outSpace[i] ?? null;
      if (d === null || d.steps.length <= (o?.steps.length ?? 0)) return;
      const w = this.walk(d, indexer);
      preds.push(...(w.stepPredicates[w.stepPredicates.length - 1] ?? []));
    });
    return preds;
  }

  /** SliceOp / PadOp / CatOp at one point (`access` indexes through the spaces). */
  /** `choiceIndexer`: where the pad / cat choice is made (lane 0 of a vector, where uniform). */
  lowerResizeExpr(expr: Expr, access: (tv: TensorView) => TensorAccess, operand: (v: Scalar) => Operand, indexer: PointIndexer, choiceIndexer: PointIndexer = indexer): Stmt {
    const out = expr.outputs[0] as TensorView;
    switch (expr.kind) {
      case 'SliceOp':
        return { kind: 'LoadStore', out: access(out), in: access(expr.in() as TensorView), width: 1 };
      case 'PadOp':
        return this.lowerPad(expr, access, operand, choiceIndexer);
      case 'CatOp':
        return this.lowerCat(expr, access, choiceIndexer);
      default:
        throw new LoweringError(`${expr.kind} producing T${out.name} is not a resize`);
    }
  }

  private lowerPad(expr: PadOp, access: (tv: TensorView) => TensorAccess, operand: (v: Scalar) => Operand, indexer: PointIndexer): Stmt {
    const input = expr.in() as TensorView;
    const out = expr.out() as TensorView;
    const copy: Stmt = { kind: 'LoadStore', out: access(out), in: access(input), width: 1 };
    const preds = this.ownStepPredicates(expr, input, indexer);
    if (preds.length === 0) return copy;
    const value = operand(expr.value);
    const fill: Stmt = { kind: 'Compute', out: access(out), op: { family: 'unary', op: 'cast' }, operands: [value], computeDtype: expr.value.dtype };
    return { kind: 'IfThenElse', predicates: preds, then: [copy], else: [fill] };
  }

  private lowerCat(expr: CatOp, access: (tv: TensorView) => TensorAccess, indexer: PointIndexer): Stmt {
    const out = expr.out() as TensorView;
    const inputs = expr.inputs as TensorView[];
    let result: Stmt | null = null;
    for (let k = inputs.length - 1; k >= 0; k -= 1) {
      const input = inputs[k] as TensorView;
      const copy: Stmt = { kind: 'LoadStore', out: access(out), in: access(input), width: 1 };
      if (result === null) {
        result = copy;
        continue;
      }
      const preds = this.ownStepPredicates(expr, input, indexer);
      result = preds.length === 0 ? copy : { kind: 'IfThenElse', predicates: preds, then: [copy], else: [result] };
    }
    if (result === null) throw new LoweringError(`cat producing T${out.name} has no inputs`);
    return result;
  }
}

/** Zero stores for `width` lanes of a local buffer (a guarded load that did not happen). */
export function zeroFill(out: TensorAccess, width: number): Stmt[] {
  return Array.from({ length: width }, (_, k): Stmt => ({
    kind: 'Compute',
    out: { ...out, index: iadd(out.index, iconst(k)) },
    op: { family: 'unary', op: 'cast' },
    operands: [{ kind: 'scalar', text: scalarLiteral(0, 'Float'), dtype: 'Float' }],
    computeDtype: 'Float',
  }));
}
