// The producer→consumer logical-domain map (nvFuser's PairwiseLogicalDomainMap): which logical
// ID of a producer corresponds to which root ID of its consumer, dimension by dimension, as the
// defining expression relates them. Everything that needs "which IDs iterate together" starts
// here — transform propagation, inlining validation, indexing.
//
// Rules: producer reduction IDs never map (the consumer does not see them); a BroadcastOp's new
// broadcast dims and a SqueezeOp's dropped dims have no counterpart; a reduction's producer dims
// map to the consumer's root including its reduction IDs; a reshape/permute/rFactor consumer is
// mapped through its root domain. Pairs through Slice/Pad/Cat (whose extents may differ) and
// between a broadcast and a non-broadcast ID are marked not exact. Indexing exprs map only the
// producer whose dims line up with the output (positionalIndexingProducer), never the tensor
// read at data-dependent positions.

import { FusionIrError } from '../ir/errors.js';
import type { Expr } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';

export interface DomainPair {
  producer: IterDomain;
  consumer: IterDomain;
  /** Same extent and same index (false through resizes and broadcast→iteration). */
  exact: boolean;
  /** Related through Slice/Pad/Cat with a possibly different extent: never share a loop. */
  resized: boolean;
}

/** Pairs of (producer logical ID, consumer root ID) for a producer→consumer edge. */
export function logicalDomainPairs(producer: TensorView, consumer: TensorView): DomainPair[] {
  const expr = consumer.definition;
  if (expr === null || !expr.inputs.includes(producer)) {
    throw new FusionIrError(`T${producer.name} is not a producer of T${consumer.name}`);
  }
  const p = producer.domain.logicalNoReductions();
  const c = consumer.domain.maybeRoot();
  const pairs: DomainPair[] = [];
  const add = (pid: IterDomain | undefined, cid: IterDomain | undefined, resize: boolean): void => {
    if (pid === undefined || cid === undefined) return;
    const sameExtent = pid.extent === cid.extent || (pid.extent.constNumber() !== null && pid.extent.constNumber() === cid.extent.constNumber());
    const resized = resize && !sameExtent;
    const exact = pid.isBroadcast() === cid.isBroadcast() && !resized;
    pairs.push({ producer: pid, consumer: cid, exact, resized });
  };
  switch (expressionKind(expr)) {
    case 'positional':
      p.forEach((pid, d) => add(pid, c[d], false));
      break;
    case 'resize':
      p.forEach((pid, d) => add(pid, c[d], true));
      break;
    case 'broadcast': {
      const flags = (expr as Extract<Expr, { kind: 'BroadcastOp' }>).isBroadcastDim;
      let k = 0;
      flags.forEach((isNew, d) => {
        if (!isNew) add(p[k++], c[d], false);
      });
      break;
    }
    case 'squeeze': {
      const flags = (expr as Extract<Expr, { kind: 'SqueezeOp' }>).isSqueezeDim;
      let k = 0;
      flags.forEach((dropped, d) => {
        if (!dropped) add(p[d], c[k++], false);
      });
      break;
    }
    case 'indexed':
      if (positionalIndexingProducer(expr) === producer) p.forEach((pid, d) => add(pid, c[d], false));
      break;
    case 'none':
      break;
  }
  return pairs;
}

type EdgeKind = 'positional' | 'resize' | 'broadcast' | 'squeeze' | 'indexed' | 'none';

/**
 * The one producer of an indexing expr whose dims line up with the output's: the index tensor
 * of index_select (broadcast to full rank), gather, take_along_axis and embedding (its dims are
 * the output's leading ones), the tensor written into for scatter and index_put_accumulate. The
 * lookup tensor (read at data-dependent positions) and select's input map to nothing.
 */
function positionalIndexingProducer(expr: Expr): TensorView | null {
  switch (expr.kind) {
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'EmbeddingFwdOp':
      return expr.indexTv();
    case 'ScatterOp':
      return expr.selfTv();
    case 'IndexPutAccumulateOp':
      return expr.accTv();
    default:
      return null;
  }
}

function expressionKind(expr: Expr): EdgeKind {
  switch (expr.kind) {
    case 'UnaryOp':
    case 'BinaryOp':
    case 'TernaryOp':
    case 'ReductionOp':
    case 'WelfordOp':
    case 'ExpandOp':
    case 'ViewOp':
    case 'LoadStoreOp':
    case 'ScanOp':
    case 'ArgsortOp':
      return 'positional';
    case 'SliceOp':
    case 'PadOp':
    case 'CatOp':
    case 'TopKOp':
      return 'resize';
    case 'BroadcastOp':
      return 'broadcast';
    case 'SqueezeOp':
      return 'squeeze';
    case 'SelectOp':
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'ScatterOp':
    case 'IndexPutAccumulateOp':
    case 'EmbeddingFwdOp':
      return 'indexed';
    case 'FullOp':
    case 'IotaOp':
    case 'RNGOp':
    case 'Split':
    case 'Merge':
      return 'none';
    // GEMMs and attention run whole in a library call or an attention kernel: their dims are
    // not iterated together with their producers' by a generated loop nest.
    case 'MatmulOp':
    case 'LinearOp':
    case 'ScaledMmaOp':
    case 'GroupedMmaOp':
    case 'SdpaFwdOp':
    case 'SdpaBwdOp':
      return 'none';
    default: {
      const unreachable: never = expr;
      throw new Error(`unknown expr ${String(unreachable)}`);
    }
  }
}

/** nvFuser's PairwiseLogicalDomainMap: both directions of the producer/consumer ID map. */
export class PairwiseLogicalDomainMap {
  readonly pairs: readonly DomainPair[];

  constructor(
    readonly producer: TensorView,
    readonly consumer: TensorView,
  ) {
    this.pairs = logicalDomainPairs(producer, consumer);
  }

  /** Producer logical ID → consumer root ID; `exactOnly` drops resized and broadcast→iteration pairs. */
  mapProducerToConsumer(opts: { exactOnly?: boolean } = {}): Map<IterDomain, IterDomain> {
    const m = new Map<IterDomain, IterDomain>();
    for (const pr of this.pairs) if (!opts.exactOnly || pr.exact) m.set(pr.producer, pr.consumer);
    return m;
  }

  /** Consumer root ID → producer logical ID. */
  mapConsumerToProducer(opts: { exactOnly?: boolean } = {}): Map<IterDomain, IterDomain> {
    const m = new Map<IterDomain, IterDomain>();
    for (const pr of this.pairs) if (!opts.exactOnly || pr.exact) m.set(pr.consumer, pr.producer);
    return m;
  }
}

/** Tensor producers of `tv` (inputs of its definition that are TensorViews), without repeats. */
export function producersOf(tv: TensorView): TensorView[] {
  const def = tv.definition;
  if (def === null) return [];
  return [...new Set(def.inputs.filter((v): v is TensorView => v.kind === 'tensorView'))];
}

/** Tensor consumers of `tv` (outputs of exprs using it), without repeats. */
export function consumersOf(tv: TensorView): TensorView[] {
  const out = new Set<TensorView>();
  for (const use of tv.uses) {
    for (const o of use.outputs) if (o.kind === 'tensorView') out.add(o);
  }
  return [...out];
}

/** Other tensor outputs of `tv`'s definition (Welford's avg / varSum / N), which share its loops. */
export function siblingsOf(tv: TensorView): TensorView[] {
  const def = tv.definition;
  if (def === null) return [];
  return def.outputs.filter((o): o is TensorView => o.kind === 'tensorView' && o !== tv && o.domain.logical.length === tv.domain.logical.length);
}
