// A segment as a standalone Fusion: the original fusion cloned, every tensor expression outside
// the segment removed, inputs = the original fusion inputs the segment reads plus the tensors
// other segments produce for it, outputs = the segment's tensors that are fusion outputs or read
// by other segments (a tensor each reader recomputes from fusion inputs is not one:
// recompute-inputs.ts). A segment input that is a reduction result is replaced by a fresh tensor
// without the reduction dims (as nvFuser's segmenter does), because the next kernel reads it as
// a plain tensor. Also the RuntimeInfo of a segment: intermediates get the dense layout the
// executor allocates for them. Invariant: running the segments in order, each on its inputs,
// computes exactly what the original fusion computes.

import {
  TensorDomain,
  TensorView,
  cloneFusion,
  replaceExprVals,
  type Expr,
  type Fusion,
  type IterDomain,
  type Scalar,
  type Val,
} from '@tsfuser/fusion-ir';
import { evaluateExtent, inputLayoutOf, runtimeInfoOf, type ExtentBindings, type InputInfo, type InputLayout, type RuntimeInfo } from '../runtime-info.js';
import { permutedAllocationOrder } from '../stride-order.js';

export interface GroupFusion {
  fusion: Fusion;
  /** Original vals feeding the segment, in the standalone fusion's input order. */
  inputs: Val[];
  /** Original vals leaving the segment, in the standalone fusion's output order. */
  outputs: Val[];
}

/** Expressions that compute tensors (scalar arithmetic on extents travels with every segment). */
export function isTensorExpr(e: Expr): boolean {
  return e.outputs.some((o) => o.kind === 'tensorView');
}

/** Fusion inputs (scalars included) reachable backwards from `vals` through scalar definitions. */
function scalarInputsUsed(exprs: readonly Expr[], fusionInputs: ReadonlySet<Val>): Set<Val> {
  const out = new Set<Val>();
  const stack: Val[] = exprs.flatMap((e) => e.inputs.filter((v) => v.kind === 'scalar'));
  const seen = new Set<Val>();
  while (stack.length > 0) {
    const v = stack.pop() as Val;
    if (seen.has(v)) continue;
    seen.add(v);
    if (fusionInputs.has(v)) out.add(v);
    if (v.definition !== null && !isTensorExpr(v.definition)) stack.push(...v.definition.inputs);
  }
  return out;
}

/** The symbols (scalars without a definition) an extent is built from. */
function extentSymbols(s: Scalar, into: Set<Scalar>): void {
  if (s.constNumber() !== null) return;
  if (s.definition === null) {
    into.add(s);
    return;
  }
  for (const v of s.definition.inputs) if (v.kind === 'scalar') extentSymbols(v, into);
}

/**
 * Fusion inputs the segment reads no element of but whose sizes it needs: a factory shaped
 * like an input (`full(shape(x))`, `iota(size(x, 0))`) sizes its output by x's extents, and an
 * op may take an extent as an operand (`div(sum, size(x, 0))`), so x must be a segment input
 * for its sizes to reach the kernel.
 */
function extentSourceInputs(original: Fusion, ordered: readonly Expr[], needed: ReadonlySet<Val>): Val[] {
  const wanted = new Set<Scalar>();
  for (const e of ordered) {
    for (const o of e.outputs) {
      if (o.kind !== 'tensorView') continue;
      for (const id of o.domain.logicalNoReductions()) extentSymbols(id.logicalExtent(), wanted);
    }
    // An extent read as a value (`div(sum, size(y, 0))` with y read nowhere else in the segment)
    // needs y's sizes too: it was "scalar i2 is neither an input nor computed in the kernel".
    for (const v of e.inputs) if (v.kind === 'scalar') extentSymbols(v, wanted);
  }
  // Only an extent that is a plain symbol binds it (an expression extent binds as a whole).
  const symbolsOf = (v: Val): Scalar[] => {
    if (v.kind !== 'tensorView') return [];
    return v.domain.logicalNoReductions().map((id) => id.logicalExtent()).filter((e) => e.constNumber() === null && e.definition === null);
  };
  const provided = new Set<Scalar>();
  for (const v of needed) for (const sym of symbolsOf(v)) provided.add(sym);
  const extra: Val[] = [];
  for (const v of original.inputs) {
    if (needed.has(v)) continue;
    const syms = symbolsOf(v).filter((sym) => wanted.has(sym) && !provided.has(sym));
    if (syms.length === 0) continue;
    extra.push(v);
    for (const sym of symbolsOf(v)) provided.add(sym);
  }
  return extra;
}

/** Scalar fusion inputs the segment's extents are built from (a dynamic reshape's sizes). */
function extentScalarInputs(ordered: readonly Expr[], fusionInputs: ReadonlySet<Val>): Scalar[] {
  const symbols = new Set<Scalar>();
  for (const e of ordered) {
    for (const o of e.outputs) {
      if (o.kind !== 'tensorView') continue;
      for (const id of [...(o.domain.root ?? []), ...o.domain.logicalNoReductions()]) extentSymbols(id.logicalExtent(), symbols);
    }
  }
  return [...symbols].filter((sym) => fusionInputs.has(sym));
}

/**
 * The boundary of a set of tensor expressions of `original`. `recomputed`: expressions every
 * reading segment holds a copy of (recompute-inputs.ts), so their tensors are never outputs.
 */
export function groupBoundary(original: Fusion, exprs: ReadonlySet<Expr>, recomputed: ReadonlySet<Expr> = new Set()): { inputs: Val[]; outputs: Val[] } {
  const fusionInputs = new Set(original.inputs);
  const ordered = original.exprs().filter((e) => exprs.has(e));
  const produced = new Set(ordered.flatMap((e) => e.outputs));
  const needed = new Set<Val>();
  for (const e of ordered) {
    for (const v of e.inputs) if (v.kind === 'tensorView' && !produced.has(v)) needed.add(v);
  }
  for (const s of scalarInputsUsed(ordered, fusionInputs)) needed.add(s);
  for (const s of extentScalarInputs(ordered, fusionInputs)) needed.add(s);
  for (const t of extentSourceInputs(original, ordered, needed)) needed.add(t);
  const inputs = [
    ...original.inputs.filter((v) => needed.has(v)),
    ...[...needed].filter((v) => !fusionInputs.has(v)).sort((a, b) => a.name - b.name),
  ];
  const outputs: Val[] = [];
  for (const e of ordered) {
    if (recomputed.has(e)) continue;
    for (const v of e.outputs) {
      if (v.kind !== 'tensorView') continue;
      const usedOutside = v.uses.some((u) => isTensorExpr(u) && !exprs.has(u));
      if (original.outputs.includes(v) || usedOutside) outputs.push(v);
    }
  }
  return { inputs, outputs };
}

/**
 * A plain input tensor with `tv`'s non-reduction dims (same extents, dense contiguity — in
 * `tv`'s allocation order when it has a stride order; none when `strided`: the tensor is a view
 * another segment made, read through its strides). An expanded broadcast dim (stride 0) becomes
 * an iteration dim of its expanded extent, except the dims in `keepExpanded` (a segment output
 * keeps them expanded: they stay expanded broadcasts, so the output maps them as the original
 * fusion did). A tensor with expanded dims reads all its dims through their strides, whatever
 * the producer's buffer layout (stride 0 on the expanded dims, as the executor allocates it, or
 * materialised).
 */
function freshInput(fusion: Fusion, tv: TensorView, strided: boolean, keepExpanded: ReadonlySet<IterDomain>): TensorView {
  const dims = tv.domain.logicalNoReductions();
  const logical: IterDomain[] = dims.map((id) => {
    if (id.isBroadcast() && id.expandedExtent !== null) {
      if (keepExpanded.has(id)) return fusion.newIterDomain(id.extent, 'Broadcast', { expandedExtent: id.expandedExtent });
      return fusion.newIterDomain(id.expandedExtent, 'Iteration');
    }
    return fusion.newIterDomain(id.extent, id.isBroadcast() ? 'Broadcast' : 'Iteration');
  });
  const expanded = dims.some((id) => id.isBroadcast() && id.expandedExtent !== null);
  const contiguity = dims.map((id) => (id.isBroadcast() ? (id.expandedExtent !== null ? (keepExpanded.has(id) ? null : false) : null) : !strided && !expanded));
  // A stride-ordered intermediate is allocated densely in its allocation order: the reading
  // segment declares that order, so its kernel indexes the tensor through the permuted strides.
  const order = permutedAllocationOrder(tv);
  const allocation = order === null ? null : order.map((d) => logical[d] as IterDomain);
  // Same name as the tensor it stands for, so refusal reasons name tensors of the original
  // fusion (the replaced tensor is unreachable afterwards).
  return fusion.adopt(new TensorView(fusion, tv.name, new TensorDomain({ logical, contiguity, allocation }), tv.dtype));
}

/**
 * The expanded broadcast dims of `tv` that an output of the segment keeps expanded: an output
 * dim that is an expanded broadcast of the same expanded extent (broadcast IDs are not joined
 * by the exact map, so the extent stands for the dim; a false match only keeps a dim expanded
 * that could have been iterated — a refusal at worst, never a wrong index).
 */
function expandedDimsKeptByOutputs(tv: TensorView, outputs: readonly Val[]): Set<IterDomain> {
  const kept = new Set<IterDomain>();
  const extents = new Set<string>();
  for (const o of outputs) {
    if (o.kind !== 'tensorView') continue;
    for (const oid of o.domain.logicalNoReductions()) if (oid.isBroadcast() && oid.expandedExtent !== null) extents.add(oid.expandedExtent.symbolicName());
  }
  for (const id of tv.domain.logicalNoReductions()) {
    if (id.isBroadcast() && id.expandedExtent !== null && extents.has(id.expandedExtent.symbolicName())) kept.add(id);
  }
  return kept;
}

/**
 * `recomputed`: as for groupBoundary.
 * `strided`: intermediates that reach the segment as views (outputs of expr_eval segments: a
 * permute or slice is not dense), declared non-contiguous so the kernel reads their strides.
 */
export function buildGroupFusion(original: Fusion, exprs: ReadonlySet<Expr>, strided: ReadonlySet<Val> = new Set(), recomputed: ReadonlySet<Expr> = new Set()): GroupFusion {
  const { inputs, outputs } = groupBoundary(original, exprs, recomputed);
  const { fusion, map, exprMap } = cloneFusion(original);
  // Every tensor expression outside the segment goes, dead ones (that no output needs) too: a
  // dead consumer of an input would otherwise be scheduled along with the segment's tensors.
  const kept = new Set([...exprs].map((e) => exprMap.get(e)));
  for (const e of [...fusion.allExprs()]) {
    if (isTensorExpr(e) && !kept.has(e)) fusion.removeExpr(e);
  }
  for (const v of [...fusion.outputs]) fusion.removeOutput(v);
  fusion.inputs.length = 0;
  const clonedOutputs = outputs.map((v) => map.get(v) as Val);
  for (const v of inputs) {
    let c = map.get(v) as Val;
    if (c.kind === 'tensorView' && !original.inputs.includes(v)) {
      const fresh = freshInput(fusion, c, strided.has(v), expandedDimsKeptByOutputs(c, clonedOutputs));
      for (const use of [...c.uses]) replaceExprVals(use, new Map<Val, Val>([[c, fresh]]));
      c = fresh;
    }
    fusion.addInput(c);
  }
  for (const v of outputs) fusion.addOutput(map.get(v) as Val);
  return { fusion, inputs, outputs };
}

/** Dense strides of an intermediate as the executor allocates it (in its allocation order; expanded dims: stride 0). */
function denseLayout(tv: TensorView, bindings: ExtentBindings): { sizes: number[]; strides: number[] } {
  const logical = tv.domain.logicalNoReductions();
  const sizes = logical.map((id) => evaluateExtent(id.logicalExtent(), bindings));
  const strides = new Array<number>(sizes.length).fill(0);
  // Dense in the allocation order (a stride-ordered intermediate), else in logical order.
  const order = permutedAllocationOrder(tv) ?? sizes.map((_, d) => d);
  let acc = 1;
  for (let k = order.length - 1; k >= 0; k -= 1) {
    const d = order[k] as number;
    const id = logical[d] as IterDomain;
    if (id.isBroadcast() && id.expandedExtent !== null) continue;
    strides[d] = acc;
    acc *= Math.max(1, sizes[d] as number);
  }
  return { sizes, strides };
}

/** RuntimeInfo of a segment: fusion inputs as given, intermediates dense and 256-byte aligned. */
export function groupRuntimeInfo(original: Fusion, info: RuntimeInfo, bindings: ExtentBindings, group: GroupFusion): RuntimeInfo {
  const layouts = group.inputs.map((v): InputLayout => {
    const k = original.inputs.indexOf(v);
    if (k >= 0) return inputLayoutOf(info.inputs[k] as InputInfo);
    if (v.kind !== 'tensorView') return { kind: 'scalar' };
    return { kind: 'tensor', ...denseLayout(v, bindings), alignment: 256 };
  });
  return runtimeInfoOf(group.fusion, layouts, info.device);
}
