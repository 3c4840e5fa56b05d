// Indexed loads in the pointwise scheduler: select, index_select, gather, take_along_axis and
// embedding forward read a "lookup" tensor at positions an index tensor (or scalar) holds. The
// lookup is read straight from global memory at a computed address, so it must be a segment
// input, is never cached or vectorized, and is not part of the reference's domain (its dims map
// to nothing). Sizes that would let a kernel read outside the lookup (a gather index larger
// than the input off the indexed dim, a take_along_axis input that is neither the output's size
// nor a broadcast) are refused here with the sizes named; index values are checked in the
// kernel (it traps on one outside [0, size)). A lookup whose innermost dim is the output's
// innermost and whose index is the same along it (index_select and select off the last dim,
// embedding: whole rows) may be read with vector loads: lookupRefMap gives the vectorization
// analysis its dims' reference positions.
// scatter and index_put_accumulate write at data-dependent positions: they are left to the
// greedy scheduler (greedy/scatter.ts), which gives each a kernel of its own.

import type { Expr, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { evaluateExtent, type ExtentBindings } from '../runtime-info.js';
import type { ExactLogicalMap } from '../analysis/domain-map.js';

export interface IndexedLoad {
  expr: Expr;
  /** The op's nvFuser python name (messages). */
  op: string;
  lookup: TensorView;
}

/** The indexed load an expression performs, or null when it is not one. */
export function indexedLoadOf(e: Expr): IndexedLoad | null {
  switch (e.kind) {
    case 'SelectOp':
      return { expr: e, op: 'select', lookup: e.lookupTv() };
    case 'IndexSelectOp':
      return { expr: e, op: 'index_select', lookup: e.lookupTv() };
    case 'GatherOp':
      return { expr: e, op: e.exactSizes ? 'take_along_axis' : 'gather', lookup: e.lookupTv() };
    case 'EmbeddingFwdOp':
      return { expr: e, op: 'embedding_fwd', lookup: e.weightTv() };
    default:
      return null;
  }
}

/** Tensors that every live use reads as a lookup (they take no part in the reference's domain). */
export function lookupOnlyTensors(fusion: Fusion): Set<TensorView> {
  const live = new Set(fusion.exprs());
  const lookups = new Set<TensorView>();
  for (const e of live) {
    const load = indexedLoadOf(e);
    if (load !== null) lookups.add(load.lookup);
  }
  for (const tv of [...lookups]) {
    const readsOtherwise = tv.uses.some((u) => live.has(u) && indexedLoadOf(u)?.lookup !== tv);
    if (readsOtherwise) lookups.delete(tv);
  }
  return lookups;
}

/** Why the fusion's indexed loads cannot be one pointwise kernel at these sizes, or null. */
export function indexedLoadRefusal(fusion: Fusion, bindings: ExtentBindings): string | null {
  for (const e of fusion.exprs()) {
    const load = indexedLoadOf(e);
    if (load === null) continue;
    const out = e.outputs[0] as TensorView;
    const where = `${load.op} producing T${out.name}`;
    if (!load.lookup.isFusionInput()) {
      return `${where}: its lookup tensor T${load.lookup.name} is computed in the fusion; an indexed load reads a segment input`;
    }
    if (e.kind !== 'GatherOp') continue;
    const size = (tv: TensorView): number[] => tv.domain.logicalNoReductions().map((id) => evaluateExtent(id.logicalExtent(), bindings));
    const lookupSizes = size(e.lookupTv());
    const outSizes = size(out);
    const lookupIds = e.lookupTv().domain.logicalNoReductions();
    for (let d = 0; d < outSizes.length; d += 1) {
      if (d === e.dim) continue;
      const have = lookupSizes[d] as number;
      const want = outSizes[d] as number;
      const broadcast = lookupIds[d]?.isBroadcast() === true;
      const fits = e.exactSizes ? have === want || broadcast : want <= have;
      if (!fits) {
        return `${where}: output sizes [${outSizes.join(', ')}] do not fit the input T${e.lookupTv().name} sizes [${lookupSizes.join(', ')}] at dim ${d}`;
      }
    }
  }
  return null;
}

/**
 * For a lookup read by vectorizable indexed loads only: each lookup dim's reference dim (through
 * the output dim it stands for; the indexed dim -1), or null when some load of it cannot be
 * vectorized (gather / take_along_axis: the index varies along every output dim; an indexed last
 * dim; loads whose reference positions disagree).
 */
export function lookupRefMap(fusion: Fusion, lookup: TensorView, map: ExactLogicalMap, ref: TensorView): number[] | null {
  let result: number[] | null = null;
  for (const e of fusion.exprs()) {
    const load = indexedLoadOf(e);
    if (load === null || load.lookup !== lookup) continue;
    const rank = lookup.domain.logicalNoReductions().length;
    const out = e.outputs[0] as TensorView;
    const outMap = map.mapToReference(out, ref);
    let dim: number;
    let outDim: (d: number) => number;
    switch (e.kind) {
      case 'IndexSelectOp':
        dim = e.dim;
        outDim = (d) => d;
        break;
      case 'SelectOp':
        dim = e.dim;
        outDim = (d) => (d < e.dim ? d : d - 1);
        break;
      case 'EmbeddingFwdOp':
        dim = 0;
        outDim = () => outMap.length - 1;
        break;
      default:
        return null;
    }
    if (dim === rank - 1) return null;
    const m = Array.from({ length: rank }, (_, d) => (d === dim ? -1 : (outMap[outDim(d)] ?? -1)));
    if (result !== null && result.join(',') !== m.join(',')) return null;
    result = m;
  }
  return result;
}
