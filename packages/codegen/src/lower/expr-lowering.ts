// Core pass `expr-lowering` — expression lowering. In: the loop nest with Allocates and PendingExprs. Out: every
// PendingExpr replaced by its kernel IR statement (LoadStore for copies, broadcasts, squeezes
// and expands — a wide one at a vectorized position; Compute for unary/binary/ternary ops and
// for a full's fill value; Rng for random numbers, rng.ts; Iota for an iota's start + index·step;
// IndexedLoad for select / index_select / gather / take_along_axis / embedding, indexed-load.ts),
// with global accesses indexed through the reference (indexing.ts), local ones by buffer
// position (allocation.ts), wrapped in an IfThenElse when a non-divisible split needs a
// predicate (predicates.ts). ReductionOps lower through reductions.ts (init, serial update or
// block reduction), WelfordOps through welford.ts (three inits, merge, block/grid Welford);
// statements computed from a block-reduced value get thread predicates;
// statements on a thread dim launched wider than its extent get its guard (padded-threads.ts);
// grid outer reductions (reduced over blockIdx.x) lower through grid-outer-reduction.ts.
// Fusion scalar math becomes ScalarComputes at kernel start. Slice / pad / cat (and every access
// at a shifted index, with its guarded loads) lower through resize.ts; a global output written
// at a shifted index (a slice of a persistent row) is stored only where its steps are valid.
// Invariant: no PendingExpr remains.

import { cppTypeName, type Expr, type IotaOp, type Scalar, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import { iconst, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Operand, Predicate, ScalarOperand, Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import { mapLeaves } from '../kernel-ir/walk.js';
import { computeDtypeOf, computeOpOf } from './compute-type.js';
import { localIndex } from './allocation.js';
import type { LoweringContext } from './context.js';
import { PointIndexer, ReferenceHistory } from './indexing.js';
import { gridOuterReductions, lowerGridOuterStore, lowerGridOuterUpdate, type GridOuterReductionInfo } from './grid-outer-reduction.js';
import type { LoopGroups } from './loop-groups.js';
import { paddedThreadPredicates } from './padded-threads.js';
import { dependentPositions, pointPredicates, predicatedSplits } from './predicates.js';
import { lowerReductionInit, lowerReductionUpdate, threadPredicateMap, threadPredicates, type ReductionLoweringEnv } from './reductions.js';
import { lowerWelfordInit, lowerWelfordUpdate, type WelfordLoweringEnv } from './welford.js';
import { literalOperand } from './scalar-literal.js';
import { lowerRng } from './rng.js';
import { isIndexedLoad, lowerIndexedLoad } from './indexed-load.js';
import { zeroFill, type ResizeLowering } from './resize.js';
import { extentScalarExprs } from './extent-scalars.js';

export function scalarOperand(ctx: LoweringContext, s: Scalar): ScalarOperand {
  if (s.value !== null) return literalOperand(s.value, s.dtype);
  const name = ctx.scalarNames.get(s);
  if (name === undefined) throw new LoweringError(`scalar ${s.symbolicName()} is neither an input nor computed in the kernel`);
  return { kind: 'scalar', text: name, dtype: s.dtype };
}

/** Top-level statements for the fusion's scalar math (in topological order). */
export function lowerScalarExprs(ctx: LoweringContext): Stmt[] {
  const out: Stmt[] = [];
  const math = ctx.fusion.exprs().filter((e) => e.outputs[0]?.kind === 'scalar');
  // Extents computed from scalar inputs (a reshape to run-time sizes) are computed here too.
  const extents = extentScalarExprs(ctx.fusion, (s) => ctx.scalarNames.has(s) || (s.definition !== null && ctx.extentNamesByText.has(s.symbolicName())));
  for (const e of [...math, ...extents]) {
    const o = e.outputs[0];
    if (o === undefined || o.kind !== 'scalar') continue;
    const op = computeOpOf(e);
    if (op === null) throw new LoweringError(`scalar expression ${e.kind} producing ${o.symbolicName()} is not supported`);
    const operands = e.inputs.map((v) => {
      if (v.kind !== 'scalar') throw new LoweringError(`scalar ${o.symbolicName()} depends on a tensor`);
      return scalarOperand(ctx, v);
    });
    const name = o.symbolicName();
    ctx.scalarNames.set(o, name);
    out.push({ kind: 'ScalarCompute', name, dtype: o.dtype, op, operands, computeDtype: computeDtypeOf(e) });
  }
  return out;
}

export function lowerExprs(ctx: LoweringContext, groups: LoopGroups, body: Stmt[], resize: ResizeLowering | null = null): Stmt[] {
  const history = new ReferenceHistory(ctx);
  const splits = predicatedSplits(history);
  const vector = ctx.positions > 0 ? ctx.reference.axis(-1).extent.constNumber() ?? 1 : 1;
  const splitPositions = new Map(splits.map((sp) => [sp, dependentPositions(history, sp.in())]));
  const trivial = (p: number): boolean => groups.kinds[p]?.kind === 'trivial';
  const threadPreds = ctx.prefixAligned ? threadPredicateMap(ctx, groups) : new Map<TensorView, string[]>();
  const padded = paddedThreadPredicates(ctx, groups);
  const gridOuterByExpr = new Map<Expr, GridOuterReductionInfo>(gridOuterReductions(ctx).map((g) => [g.expr, g]));
  // Vectorized resize kernels: every shift and boundary along the vector is a multiple of its
  // width (the heuristics' resize limit), so a pad / cat choice made at lane 0 holds for all lanes.
  const laneUniformIndexer = (indices: readonly IndexExpr[]): PointIndexer | null =>
    resize !== null && ctx.positions > 0 && ctx.reference.axis(-1).parallelType === 'Vectorize'
      ? new PointIndexer(history, indices.map((x, p) => (p === ctx.positions - 1 ? iconst(0) : x)))
      : null;
  const lowerOne = (s: Extract<Stmt, { kind: 'PendingExpr' }>): Stmt | Stmt[] => {
    const indexer = new PointIndexer(history, s.positionIndices);
    const access = (tv: TensorView): TensorAccess => {
      if (tv.memoryType === 'Global') {
        const shifted = resize === null ? null : resize.shiftedIndices(s.expr, tv, indexer);
        return { kind: 'tensor', tensor: ctx.tensorName(tv), dtype: tv.dtype, memory: 'Global', index: indexer.globalOffset(tv, shifted) };
      }
      if (tv.memoryType === 'Local') {
        return { kind: 'tensor', tensor: ctx.tensorName(tv), dtype: ctx.storageDtype(tv), memory: 'Local', index: localIndex(ctx, groups, tv, s.positionIndices) };
      }
      throw new LoweringError(`T${tv.name}: shared memory tensors are not supported by pointwise lowering`);
    };
    const operand = (v: Val): Operand => {
      if (v.kind === 'tensorView') return access(v);
      if (v.kind === 'scalar') return scalarOperand(ctx, v);
      throw new LoweringError('an IterDomain cannot be an operand');
    };
    const out = s.expr.outputs[0] as TensorView;
    const count = groups.loopCount(out);
    const predicatesFor = (usable: (positions: readonly number[]) => boolean): Predicate[] => [
      ...pointPredicates(splits, indexer, (sp) => usable((splitPositions.get(sp) ?? []).filter((p) => !trivial(p)))),
      ...padded.filter((x) => usable([x.position])).map((x) => x.predicate),
    ];
    if (s.expr.kind === 'ReductionOp') {
      const env: ReductionLoweringEnv = { ctx, groups, access, predicates: predicatesFor };
      const gridOuter = gridOuterByExpr.get(s.expr);
      if (gridOuter !== undefined) {
        if (s.phase === 'init') return lowerReductionInit(s.expr, env);
        return s.phase === 'final' ? lowerGridOuterStore(gridOuter, env) : lowerGridOuterUpdate(s.expr, env);
      }
      return s.phase === 'init' ? lowerReductionInit(s.expr, env) : lowerReductionUpdate(s.expr, env);
    }
    if (s.expr.kind === 'WelfordOp') {
      const env: WelfordLoweringEnv = { ctx, groups, access, predicates: predicatesFor, operand };
      return s.phase === 'init' ? lowerWelfordInit(s.expr, env) : lowerWelfordUpdate(s.expr, env);
    }
    const width = groups.isVectorized(out) ? vector : 1;
    const computed =
      resize !== null && (s.expr.kind === 'SliceOp' || s.expr.kind === 'PadOp' || s.expr.kind === 'CatOp')
        ? resize.lowerResizeExpr(s.expr, access, (v) => scalarOperand(ctx, v), indexer, laneUniformIndexer(s.positionIndices) ?? indexer)
        : isIndexedLoad(s.expr)
          ? lowerIndexedLoad(s.expr, access(out), operand, indexer, width)
          : s.expr.kind === 'RNGOp'
        ? lowerRng(s.expr, access(out), indexer, groups.isVectorized(out) ? vector : 1)
        : s.expr.kind === 'IotaOp'
          ? lowerIota(s.expr, access(out), indexer)
          : lowerExpr(s.expr, access, operand, width);
    // A load at a shifted index happens only where every pad / cat step on its way is valid.
    const loadGuards = resize === null ? [] : s.expr.inputs.flatMap((v) => (v.kind === 'tensorView' && v.memoryType === 'Global' ? resize.loadPredicates(s.expr, v, indexer) : []));
    const inner: Stmt =
      loadGuards.length === 0 ? computed : { kind: 'IfThenElse', predicates: loadGuards, then: [computed], else: out.memoryType === 'Local' ? zeroFill(access(out), width) : [] };
    // An output written past a slice of the reference's space: stored only inside the slice.
    const storeGuards = resize === null || out.memoryType !== 'Global' ? [] : resize.loadPredicates(s.expr, out, indexer);
    const predicates = [...predicatesFor((ps) => ps.every((p) => p < count && groups.owns(out, p))), ...threadPredicates(threadPreds.get(out) ?? []), ...storeGuards];
    return predicates.length === 0 ? inner : { kind: 'IfThenElse', predicates, then: [inner], else: [] };
  };
  return mapLeaves(body, (st) => (st.kind === 'PendingExpr' ? lowerOne(st) : st));
}

/**
 * An iota element: start + i·step, i the point's index in the iota's one dim (0 where that dim
 * has extent 1). A dim that maps to no dim of the kernel's reference — the iota feeds the
 * reference through a reshape, which the exact map does not cross — is refused: taking index 0
 * there wrote `start` into every element (random shape-op seed 20682: iota, reshape, row sum).
 */
function lowerIota(expr: IotaOp, out: TensorAccess, indexer: PointIndexer): Stmt {
  const tv = expr.outputs[0] as TensorView;
  const ctx = indexer.ctx;
  const r = ctx.exactMap.mapToReference(tv, ctx.reference)[0] ?? -1;
  const logical = indexer.history.logical[r];
  const extent = tv.domain.logicalNoReductions()[0]?.extent.constNumber();
  if (logical === undefined && extent !== 1) {
    throw new LoweringError(`iota producing T${tv.name} reaches the kernel's reference T${ctx.reference.name} through a reshape; its index cannot be computed in this kernel yet`);
  }
  const index = logical === undefined ? iconst(0) : indexer.index(logical);
  return { kind: 'Iota', out, index, start: scalarOperand(ctx, expr.start), step: scalarOperand(ctx, expr.step) };
}

function lowerExpr(expr: Expr, access: (tv: TensorView) => TensorAccess, operand: (v: Val) => Operand, width: number): Stmt {
  const out = expr.outputs[0];
  if (out === undefined || out.kind !== 'tensorView') throw new LoweringError(`${expr.kind} has no tensor output`);
  switch (expr.kind) {
    case 'LoadStoreOp':
    case 'BroadcastOp':
    case 'SqueezeOp':
    case 'ExpandOp':
    case 'ViewOp': {
      const input = expr.inputs[0];
      if (input === undefined || input.kind !== 'tensorView') throw new LoweringError(`${expr.kind} producing T${out.name} has no tensor input`);
      if (input.dtype !== out.dtype) throw new LoweringError(`${expr.kind} T${input.name} → T${out.name} changes dtype (${cppTypeName(input.dtype)} → ${cppTypeName(out.dtype)})`);
      return { kind: 'LoadStore', out: access(out), in: access(input), width };
    }
    case 'FullOp': {
      // The fill value (already of the output's dtype) stored at every point: no loads.
      if (width > 1) throw new LoweringError(`T${out.name}: a full cannot be vectorized`);
      return { kind: 'Compute', out: access(out), op: { family: 'unary', op: 'cast' }, operands: [operand(expr.fillValue)], computeDtype: expr.fillValue.dtype };
    }
    case 'UnaryOp':
    case 'BinaryOp':
    case 'TernaryOp': {
      if (width > 1) throw new LoweringError(`T${out.name}: only copies can be vectorized, not ${expr.kind} ${expr.op}`);
      const op = computeOpOf(expr);
      if (op === null) throw new LoweringError(`unsupported op producing T${out.name}`);
      return { kind: 'Compute', out: access(out), op, operands: expr.inputs.map(operand), computeDtype: computeDtypeOf(expr) };
    }
    default:
      throw new LoweringError(`${expr.kind} producing T${out.name} is not supported by pointwise lowering`);
  }
}
