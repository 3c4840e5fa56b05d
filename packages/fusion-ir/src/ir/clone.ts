// Fusion cloning: a deep copy that preserves every name (T3 stays T3, IterDomain 9 stays 9,
// i4 stays i4, expression numbers too), definitions and uses, inputs/outputs, domains (root,
// logical, allocation, loop, contiguity), parallel types, memory types and compute-at positions.
// The copy shares nothing with the original, so scheduling the copy leaves the original as it
// was — the property tests rely on this to compare scheduled and unscheduled evaluations.
//
// `rebuildExpr` (one exhaustive switch over Expr kinds) is also how transforms rewire an
// expression to new inputs or outputs: unregister the old one, rebuild it with mapped vals.

import {
  BinaryOp,
  BroadcastOp,
  CatOp,
  ExpandOp,
  FullOp,
  IotaOp,
  RNGOp,
  ScanOp,
  ArgsortOp,
  TopKOp,
  LoadStoreOp,
  Merge,
  PadOp,
  ReductionOp,
  SliceOp,
  Split,
  SqueezeOp,
  TernaryOp,
  UnaryOp,
  ViewOp,
  WelfordOp,
  type Expr,
} from './expr.js';
import { Fusion } from './fusion.js';
import { EmbeddingFwdOp, GatherOp, IndexPutAccumulateOp, IndexSelectOp, ScatterOp, SelectOp } from './indexing-exprs.js';
import { IterDomain } from './iter-domain.js';
import { GroupedMmaOp, LinearOp, MatmulOp, ScaledMmaOp } from './matmul-exprs.js';
import { SdpaBwdOp, SdpaFwdOp } from './attention-exprs.js';
import { Scalar } from './scalar.js';
import { TensorDomain } from './tensor-domain.js';
import { TensorView } from './tensor-view.js';
import type { Val } from './val.js';

/** Maps a Val of one fusion to its counterpart (the identity for in-place rewiring). */
export interface ValMapper {
  val(v: Val): Val;
  tv(v: TensorView): TensorView;
  scalar(v: Scalar): Scalar;
  id(v: IterDomain): IterDomain;
}

function optTv(m: ValMapper, tv: TensorView | null): TensorView | null {
  return tv === null ? null : m.tv(tv);
}

/** Builds (and thereby registers in `fusion`) an expression of the same kind as `e` with mapped vals. */
export function rebuildExpr(e: Expr, fusion: Fusion, m: ValMapper): Expr {
  switch (e.kind) {
    case 'UnaryOp':
      return new UnaryOp(fusion, e.op, m.val(e.out()), m.val(e.in()));
    case 'BinaryOp':
      return new BinaryOp(fusion, e.op, m.val(e.out()), m.val(e.lhs()), m.val(e.rhs()));
    case 'TernaryOp': {
      const [a, b, c] = e.inputs as [Val, Val, Val];
      return new TernaryOp(fusion, e.op, m.val(e.out()), m.val(a), m.val(b), m.val(c));
    }
    case 'ReductionOp':
      return new ReductionOp(fusion, e.op, m.scalar(e.init), m.tv(e.out() as TensorView), m.tv(e.in() as TensorView), e.allreduce);
    case 'WelfordOp': {
      const varSum = e.inVarSum();
      const n = e.inN();
      return new WelfordOp(
        fusion,
        { avg: m.tv(e.outAvg()), varSum: m.tv(e.outVarSum()), n: m.tv(e.outN()) },
        { avg: m.tv(e.inAvg()), varSum: varSum === null ? null : m.tv(varSum), n: n.kind === 'tensorView' ? m.tv(n) : m.scalar(n) },
      );
    }
    case 'BroadcastOp':
      return new BroadcastOp(fusion, m.tv(e.out() as TensorView), m.tv(e.in() as TensorView), e.isBroadcastDim);
    case 'SqueezeOp':
      return new SqueezeOp(fusion, m.tv(e.out() as TensorView), m.tv(e.in() as TensorView), e.isSqueezeDim);
    case 'ExpandOp':
      return new ExpandOp(fusion, m.tv(e.out() as TensorView), m.tv(e.in() as TensorView), e.expandedExtents().map((s) => m.scalar(s)));
    case 'ViewOp':
      return new ViewOp(
        fusion,
        m.tv(e.out() as TensorView),
        m.tv(e.in() as TensorView),
        e.originalSizes.map((s) => m.scalar(s)),
        e.newSizes.map((s) => m.scalar(s)),
      );
    case 'LoadStoreOp':
      return new LoadStoreOp(fusion, e.opType, m.tv(e.out() as TensorView), m.tv(e.in() as TensorView), e.permutation);
    case 'SliceOp':
      return new SliceOp(
        fusion,
        m.tv(e.out() as TensorView),
        m.tv(e.in() as TensorView),
        e.ranges.map((r) => ({ start: m.scalar(r.start), stop: m.scalar(r.stop), step: m.scalar(r.step) })),
      );
    case 'PadOp':
      return new PadOp(fusion, m.tv(e.out() as TensorView), m.tv(e.in() as TensorView), e.widths.map((s) => m.scalar(s)), m.scalar(e.value));
    case 'CatOp':
      return new CatOp(fusion, m.tv(e.out() as TensorView), e.inputs.map((v) => m.tv(v as TensorView)), e.axis);
    case 'FullOp':
      return new FullOp(fusion, m.tv(e.out() as TensorView), m.scalar(e.fillValue), e.shape.map((s) => m.scalar(s)));
    case 'IotaOp':
      return new IotaOp(fusion, m.tv(e.out() as TensorView), m.scalar(e.length), m.scalar(e.start), m.scalar(e.step), e.dtype);
    case 'RNGOp':
      return new RNGOp(
        fusion,
        e.rngOp,
        m.tv(e.out() as TensorView),
        e.dtype,
        e.shape.map((s) => m.scalar(s)),
        e.parameters.map((s) => m.scalar(s)),
        m.scalar(e.seed),
        m.scalar(e.offset),
        e.seeded,
      );
    case 'SelectOp':
      return new SelectOp(fusion, m.tv(e.out() as TensorView), m.tv(e.lookupTv()), e.dim, m.scalar(e.indexScalar()));
    case 'IndexSelectOp':
      return new IndexSelectOp(fusion, m.tv(e.out() as TensorView), m.tv(e.lookupTv()), e.dim, m.tv(e.indexTv()));
    case 'GatherOp':
      return new GatherOp(fusion, m.tv(e.out() as TensorView), m.tv(e.lookupTv()), e.dim, m.tv(e.indexTv()), e.exactSizes);
    case 'ScatterOp': {
      const src = e.src();
      return new ScatterOp(fusion, m.tv(e.out() as TensorView), m.tv(e.selfTv()), e.dim, m.tv(e.indexTv()), src.kind === 'tensorView' ? m.tv(src) : m.scalar(src));
    }
    case 'IndexPutAccumulateOp':
      return new IndexPutAccumulateOp(fusion, m.tv(e.out() as TensorView), m.tv(e.accTv()), m.tv(e.indexTv()), m.tv(e.valueTv()));
    case 'EmbeddingFwdOp': {
      const opt = (s: Scalar | null): Scalar | null => (s === null ? null : m.scalar(s));
      return new EmbeddingFwdOp(
        fusion,
        m.tv(e.out() as TensorView),
        m.tv(e.indexTv()),
        m.tv(e.weightTv()),
        m.scalar(e.normType),
        m.scalar(e.scaleGradByFreq),
        m.scalar(e.sparse),
        opt(e.paddingIdx),
        opt(e.maxNorm),
      );
    }
    case 'ScanOp':
      return new ScanOp(fusion, e.opType, m.scalar(e.init), m.tv(e.out() as TensorView), m.tv(e.in() as TensorView), e.dim);
    case 'ArgsortOp':
      return new ArgsortOp(fusion, m.tv(e.out() as TensorView), m.tv(e.in() as TensorView), e.dim, e.descending, e.stable);
    case 'TopKOp':
      return new TopKOp(
        fusion,
        { values: m.tv(e.outValues()), indices: m.tv(e.outIndices()) },
        m.tv(e.in() as TensorView),
        m.scalar(e.k()),
        e.dim,
        e.largest,
        e.sorted,
      );
    case 'MatmulOp':
      return new MatmulOp(fusion, m.tv(e.out()), m.tv(e.inA()), m.tv(e.inB()));
    case 'LinearOp':
      return new LinearOp(fusion, m.tv(e.out()), m.tv(e.inA()), m.tv(e.inB()), optTv(m, e.bias()));
    case 'ScaledMmaOp':
      return new ScaledMmaOp(fusion, m.tv(e.out()), m.tv(e.matrix1()), m.tv(e.matrix2()), m.tv(e.scale1()), m.tv(e.scale2()), optTv(m, e.bias()));
    case 'GroupedMmaOp':
      return new GroupedMmaOp(fusion, m.tv(e.out()), m.tv(e.matrix1()), m.tv(e.matrix2()), optTv(m, e.offsets()));
    case 'SdpaFwdOp': {
      const i = e.sdpaInputs();
      const o = e.sdpaOutputs();
      return new SdpaFwdOp(
        fusion,
        { output: m.tv(o.output), logsumexp: m.tv(o.logsumexp), philoxSeed: m.tv(o.philoxSeed), philoxOffset: m.tv(o.philoxOffset) },
        {
          query: m.tv(i.query),
          key: m.tv(i.key),
          value: m.tv(i.value),
          bias: optTv(m, i.bias),
          mask: optTv(m, i.mask),
          dropoutP: m.scalar(i.dropoutP),
          isCausal: m.scalar(i.isCausal),
          scale: i.scale === null ? null : m.scalar(i.scale),
        },
        m.scalar(e.rngSeed()),
        m.scalar(e.rngOffset()),
      );
    }
    case 'SdpaBwdOp': {
      const i = e.sdpaInputs();
      const o = e.sdpaOutputs();
      return new SdpaBwdOp(
        fusion,
        { gradQuery: m.tv(o.gradQuery), gradKey: m.tv(o.gradKey), gradValue: m.tv(o.gradValue) },
        {
          gradOutput: m.tv(i.gradOutput),
          query: m.tv(i.query),
          key: m.tv(i.key),
          value: m.tv(i.value),
          output: m.tv(i.output),
          logsumexp: m.tv(i.logsumexp),
          dropoutP: m.scalar(i.dropoutP),
          isCausal: m.scalar(i.isCausal),
          philoxSeed: m.tv(i.philoxSeed),
          philoxOffset: m.tv(i.philoxOffset),
          scale: i.scale === null ? null : m.scalar(i.scale),
        },
      );
    }
    case 'Split':
      return new Split(fusion, m.id(e.outer()), m.id(e.inner()), m.id(e.in()), m.scalar(e.factor), e.innerSplit);
    case 'Merge':
      return new Merge(fusion, m.id(e.out()), m.id(e.outer()), m.id(e.inner()));
    default: {
      const unreachable: never = e;
      throw new Error(`unknown expr ${String(unreachable)}`);
    }
  }
}

/** A mapper that replaces some vals and keeps the others (for rewiring inside one fusion). */
export function replacingMapper(replace: ReadonlyMap<Val, Val>): ValMapper {
  const val = (v: Val): Val => replace.get(v) ?? v;
  return {
    val,
    tv: (v) => val(v) as TensorView,
    scalar: (v) => val(v) as Scalar,
    id: (v) => val(v) as IterDomain,
  };
}

/** Rewires `e` to read/write other vals: the old expr is unregistered and an equivalent one built. */
export function replaceExprVals(e: Expr, replace: ReadonlyMap<Val, Val>): Expr {
  e.fusion.removeExpr(e);
  return rebuildExpr(e, e.fusion, replacingMapper(replace));
}

export interface FusionClone {
  fusion: Fusion;
  /** Original val → cloned val (every registered val of the original). */
  map: Map<Val, Val>;
  /** Original expr → cloned expr. */
  exprMap: Map<Expr, Expr>;
}

/** Deep-copies a fusion; see the header for what is preserved. */
export function cloneFusion(original: Fusion): FusionClone {
  const fusion = new Fusion();
  const map = new Map<Val, Val>();
  const get = (v: Val): Val => {
    const done = map.get(v);
    if (done !== undefined) return done;
    const copy = copyVal(v);
    map.set(v, copy);
    return copy;
  };
  const copyVal = (v: Val): Val => {
    switch (v.kind) {
      case 'scalar':
        return fusion.adopt(new Scalar(fusion, v.name, v.dtype, v.value, v.namedScalar));
      case 'iterDomain': {
        const id = fusion.adopt(
          new IterDomain(
            fusion,
            v.name,
            get(v.extent) as Scalar,
            v.iterType,
            v.isRFactorProduct,
            v.expandedExtent === null ? null : (get(v.expandedExtent) as Scalar),
          ),
        );
        id.parallelType = v.parallelType;
        return id;
      }
      case 'tensorView': {
        const d = v.domain;
        const ids = (xs: readonly IterDomain[]): IterDomain[] => xs.map((x) => get(x) as IterDomain);
        const domain = new TensorDomain({
          logical: ids(d.logical),
          root: d.root === null ? null : ids(d.root),
          allocation: d.allocation === null ? null : ids(d.allocation),
          loop: ids(d.loop),
          contiguity: d.contiguity,
        });
        const tv = fusion.adopt(new TensorView(fusion, v.name, domain, v.dtype));
        tv.memoryType = v.memoryType;
        tv.computeAtPosition = v.computeAtPosition;
        tv.maxProducerPosition = v.maxProducerPosition;
        return tv;
      }
      default: {
        const unreachable: never = v;
        throw new Error(`unknown val ${String(unreachable)}`);
      }
    }
  };
  for (const v of original.vals()) get(v);
  const mapper: ValMapper = {
    val: get,
    tv: (v) => get(v) as TensorView,
    scalar: (v) => get(v) as Scalar,
    id: (v) => get(v) as IterDomain,
  };
  const exprMap = new Map<Expr, Expr>();
  for (const e of original.allExprs()) {
    const copy = rebuildExpr(e, fusion, mapper);
    // Expr names come from the fusion's counter; keep the original's number (names may have gaps
    // where transforms removed exprs). `name` is readonly for users, not for the cloner.
    (copy as { name: number }).name = e.name;
    exprMap.set(e, copy);
  }
  // Uses were appended in registration order, which is the original's order; inputs/outputs are
  // pushed directly so that memory types stay as they were.
  for (const v of original.inputs) fusion.inputs.push(get(v));
  for (const v of original.outputs) fusion.outputs.push(get(v));
  fusion.syncCounters(original);
  return { fusion, map, exprMap };
}
