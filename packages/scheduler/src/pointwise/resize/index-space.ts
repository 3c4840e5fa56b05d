// Index spaces of the pointwise scheduler's resize support (nvFuser's resize in the pointwise
// and resize schedulers: slice, pad and cat fused with elementwise work). The kernel iterates
// the reference output, whose domain is the resized one; every tensor is computed at the
// reference's point, each of its logical dims read at an index derived from one reference dim
// by the resize steps between the tensor and the reference:
//   slice:       producer = consumer · step + start   (start normalized as torch / nvFuser)
//   pad (l, r):  producer = consumer − l              valid where 0 ≤ producer < extent
//   cat input k: producer = consumer − offset_k       valid where 0 ≤ producer < extent_k
// `computeIndexSpaces` walks from the outputs (all in the reference's space) back to the
// inputs. A computed tensor must have one space; where two uses want two spaces (RoPE reads x
// at d and at d ± D/2) `privatize` recomputes the tensor for the second one (nvFuser's
// RecomputeTv for non-exclusive resize inputs). Fusion inputs are read per use: each access has
// its own space (`ofAccess`).
// Invariant (after privatize): every computed tensor has exactly one space, and every access of
// it from a consumer expression equals it.

import {
  consumersOf,
  logicalDomainPairs,
  rebuildExpr,
  replaceExprVals,
  TensorDomain,
  type Expr,
  type Fusion,
  type IterDomain,
  type Scalar,
  type TensorView,
  type Val,
} from '@tsfuser/fusion-ir';
import { SchedulingError } from '../../errors.js';

/** One addend of a resize offset: a constant, an extent / scalar, or a slice start to normalize. */
export type OffsetTerm =
  | { kind: 'const'; value: number }
  | { kind: 'scalar'; scalar: Scalar }
  /** torch's normalization of a slice start: start < 0 counts from the end, clamped to [0, size]. */
  | { kind: 'sliceStart'; start: Scalar; size: Scalar };

/**
 * producer index = consumer index · scale + Σ add − Σ sub; all terms are ≥ 0, so bounds can be
 * checked without negative numbers. `validExtent`: the producer index is valid only in
 * [0, validExtent) (pad, cat); elsewhere the consumer takes the pad value or another input.
 */
export interface ResizeStep {
  scale: Scalar | null;
  add: readonly OffsetTerm[];
  sub: readonly OffsetTerm[];
  validExtent: Scalar | null;
  /**
   * A forward step (an output written past a slice of the reference's space: index − start,
   * valid in [0, length)): the slice it undoes. Pulling back through that slice drops the step.
   */
  undoes?: Expr;
}

/** A logical dim's index: reference logical dim `refDim` through `steps` (reference side first). */
export interface DimSpace {
  refDim: number;
  steps: readonly ResizeStep[];
}

/** One entry per non-reduction logical dim; null: broadcast (index 0). */
export type IndexSpace = readonly (DimSpace | null)[];

export function isResizeExpr(e: Expr): boolean {
  return e.kind === 'SliceOp' || e.kind === 'PadOp' || e.kind === 'CatOp';
}

export function hasResizeExprs(fusion: Fusion): boolean {
  return fusion.exprs().some(isResizeExpr);
}

function termKey(t: OffsetTerm): string {
  switch (t.kind) {
    case 'const':
      return String(t.value);
    case 'scalar':
      return t.scalar.symbolicName();
    case 'sliceStart':
      return `norm(${t.start.symbolicName()},${t.size.symbolicName()})`;
    default: {
      const unreachable: never = t;
      throw new SchedulingError(`unknown offset term ${String(unreachable)}`);
    }
  }
}

function stepKey(s: ResizeStep): string {
  return `${s.undoes === undefined ? '' : 'fwd'}${s.scale?.symbolicName() ?? '1'}*+${s.add.map(termKey).join('+')}-${s.sub.map(termKey).join('-')}<${s.validExtent?.symbolicName() ?? ''}`;
}

/** A stable text of a space (equal spaces, equal keys). */
export function spaceKey(space: IndexSpace): string {
  return space.map((d) => (d === null ? 'b' : `${d.refDim}:${d.steps.map(stepKey).join('|')}`)).join(',');
}

/** Whether a space reads its tensor at the reference's own indices (no resize step). */
export function isIdentitySpace(space: IndexSpace): boolean {
  return space.every((d) => d === null || d.steps.length === 0);
}

const constTerm = (value: number): OffsetTerm => ({ kind: 'const', value });

/** The step from `expr`'s output dim `d` to its producer `input` (null: same index). */
export function resizeStep(expr: Expr, input: TensorView, d: number): ResizeStep | null {
  const producerId = input.domain.logicalNoReductions()[d] as IterDomain;
  switch (expr.kind) {
    case 'SliceOp': {
      const r = expr.ranges[d];
      if (r === undefined) return null;
      const start: OffsetTerm = r.start.constNumber() === 0 ? constTerm(0) : { kind: 'sliceStart', start: r.start, size: producerId.extent };
      const scale = r.step.constNumber() === 1 ? null : r.step;
      if (scale === null && start.kind === 'const' && start.value === 0) return null;
      return { scale, add: [start], sub: [], validExtent: null };
    }
    case 'PadOp': {
      const rank = input.domain.logicalNoReductions().length;
      const k = rank - 1 - d;
      const w = expr.widths[2 * k];
      if (w === undefined) return null;
      const left = w.constNumber();
      if (left === null) throw new SchedulingError(`pad producing T${expr.out().name}: the width ${w.symbolicName()} of dim ${d} is not a constant`);
      return { scale: null, add: left < 0 ? [constTerm(-left)] : [], sub: left > 0 ? [constTerm(left)] : [], validExtent: producerId.extent };
    }
    case 'CatOp': {
      if (d !== expr.axis) return null;
      const inputs = expr.inputs as TensorView[];
      const k = inputs.indexOf(input);
      const sub = inputs.slice(0, k).map((t): OffsetTerm => ({ kind: 'scalar', scalar: (t.domain.logicalNoReductions()[d] as IterDomain).extent }));
      return { scale: null, add: [], sub, validExtent: producerId.extent };
    }
    default:
      return null;
  }
}

/**
 * The space of a dim read by a reduction over it (no entry in the output's space), from the
 * dim's ID; without it such a dim is read at index 0 (only pointwise fusions omit it).
 */
export type ReducedDimSpace = (id: IterDomain) => DimSpace | null;

/** The space in which `expr` reads its tensor input `input`, given its output's space. */
export function pullback(expr: Expr, input: TensorView, outSpace: IndexSpace, reducedSpace: ReducedDimSpace | null = null): IndexSpace {
  const out = expr.outputs[0] as TensorView;
  const pl = input.domain.logicalNoReductions();
  const ol = out.domain.logicalNoReductions();
  const result: (DimSpace | null)[] = pl.map(() => null);
  const resize = isResizeExpr(expr);
  for (const pr of logicalDomainPairs(input, out)) {
    const dp = pl.indexOf(pr.producer);
    const dc = ol.indexOf(pr.consumer);
    if (dp >= 0 && dc < 0 && reducedSpace !== null && pr.consumer.isReduction() && !pr.producer.isBroadcast()) {
      // A reduced dim: read where the reduction's loops are, in the reference's own space.
      result[dp] = reducedSpace(pr.producer);
      continue;
    }
    if (dp < 0 || dc < 0 || pr.producer.isBroadcast()) continue;
    const base = outSpace[dc] ?? null;
    if (base === null) continue;
    if (base.steps[base.steps.length - 1]?.undoes === expr) {
      result[dp] = { refDim: base.refDim, steps: base.steps.slice(0, -1) };
      continue;
    }
    const step = resize ? resizeStep(expr, input, dp) : null;
    result[dp] = step === null ? base : { refDim: base.refDim, steps: [...base.steps, step] };
  }
  return result;
}

export interface IndexSpaces {
  /** The space of a computed (non-input) tensor. */
  ofTensor(tv: TensorView): IndexSpace | null;
  /** The space in which `expr` reads `tv` (or writes it, when tv is its output). */
  ofAccess(expr: Expr, tv: TensorView): IndexSpace | null;
  /** Computed tensors wanted in two spaces (before privatize). */
  conflicts: readonly TensorView[];
}

/** The identity space of a tensor over the reference dims `map` gives (-1: broadcast/unmapped). */
export function identitySpace(map: readonly number[]): IndexSpace {
  return map.map((r) => (r < 0 ? null : { refDim: r, steps: [] }));
}

/**
 * Walks the fusion backwards from its outputs (each in the space `outputSpace` gives). With
 * `privatize`, a computed tensor wanted in a second space is recomputed for that use (the
 * fusion is changed: call it on the scheduler's own copy only).
 */
export function computeIndexSpaces(fusion: Fusion, outputSpace: (tv: TensorView) => IndexSpace, opts: { privatize?: boolean; reducedSpace?: ReducedDimSpace } = {}): IndexSpaces {
  const spaces = new Map<TensorView, IndexSpace>();
  const access = new Map<Expr, Map<TensorView, IndexSpace>>();
  const conflicts: TensorView[] = [];
  const copies = new Map<TensorView, Map<string, TensorView>>();
  for (const o of fusion.outputs) if (o.kind === 'tensorView') spaces.set(o, outputSpace(o));

  const visit = (expr: Expr): void => {
    const out = expr.outputs[0];
    if (out === undefined || out.kind !== 'tensorView') return;
    const outSpace = spaces.get(out);
    if (outSpace === undefined) return; // dead: no output reads it
    const mine = new Map<TensorView, IndexSpace>([[out, outSpace]]);
    access.set(expr, mine);
    let current = expr;
    for (const input of [...new Set(expr.inputs)]) {
      if (input.kind !== 'tensorView') continue;
      const sp = pullback(current, input, outSpace, opts.reducedSpace ?? null);
      if (input.isFusionInput()) {
        mine.set(input, sp);
        continue;
      }
      const existing = spaces.get(input);
      if (existing === undefined || spaceKey(existing) === spaceKey(sp)) {
        spaces.set(input, sp);
        mine.set(input, sp);
        continue;
      }
      if (opts.privatize !== true) {
        conflicts.push(input);
        mine.set(input, sp);
        continue;
      }
      // One copy per space: a second use in the same space reads the first copy.
      const key = spaceKey(sp);
      const reused = copies.get(input)?.get(key);
      const copy = reused ?? recompute(input);
      if (reused === undefined) copies.set(input, (copies.get(input) ?? new Map<string, TensorView>()).set(key, copy));
      access.delete(current);
      current = replaceExprVals(current, new Map<Val, Val>([[input, copy]]));
      access.set(current, mine);
      spaces.set(copy, sp);
      mine.set(copy, sp);
      if (reused === undefined) visit(copy.definition as Expr);
    }
  };
  for (const e of [...fusion.exprs()].reverse()) visit(e);
  return {
    ofTensor: (tv) => spaces.get(tv) ?? null,
    ofAccess: (expr, tv) => access.get(expr)?.get(tv) ?? null,
    conflicts,
  };
}

/** A new tensor computed by a copy of `tv`'s definition from the same inputs (nvFuser's RecomputeTv). */
function recompute(tv: TensorView): TensorView {
  const def = tv.definition;
  if (def === null || def.outputs.length !== 1) throw new SchedulingError(`resize: cannot recompute T${tv.name}`);
  const fusion = tv.fusion;
  const copyId = (id: IterDomain): IterDomain => fusion.newIterDomain(id.extent, id.iterType, { expandedExtent: id.expandedExtent });
  const d = tv.domain;
  const root = d.root === null ? null : d.root.map(copyId);
  const ids = new Map<IterDomain, IterDomain>((d.root ?? []).map((id, i) => [id, (root as IterDomain[])[i] as IterDomain]));
  const logical = d.logical.map((id) => ids.get(id) ?? copyId(id));
  const copy = fusion.newTensorView(new TensorDomain({ logical, root, contiguity: d.contiguity }), tv.dtype);
  // A copy is an intermediate of this kernel even where `tv` is written to global memory (a
  // segment output): nothing allocates a buffer for it, so it lives in registers.
  copy.memoryType = tv.memoryType === 'Global' ? 'Local' : tv.memoryType;
  rebuildExpr(def, fusion, {
    val: (v) => (v === tv ? copy : v),
    tv: (v) => (v === tv ? copy : v),
    scalar: (v) => v,
    id: (v) => v,
  });
  return copy;
}

/** Consumers of `tv` that are resize ops. */
export function resizeConsumers(tv: TensorView): TensorView[] {
  return consumersOf(tv).filter((c) => c.definition !== null && isResizeExpr(c.definition));
}
