// Reduction patterns (after nvFuser's getReductionTvs / checkPatternEquivalence /
// getReductionType): the reduction tensors of a fusion (ReductionOp outputs and the avg output
// of each WelfordOp), which logical dims each reduces, and whether several reductions share
// one pattern — same number of non-broadcast dims, and position by position the same iter type
// on dims the exact logical map joins. One kernel can only host reductions of one pattern; the
// reduction type (inner: the innermost non-broadcast dim is reduced; outer: it is kept)
// decides which persistent scheduler a normalization belongs to. Pure reads.

import type { Expr, Fusion, IterDomain, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { tensorExprs, tvName } from './fusion-graph.js';

export interface ReductionInfo {
  expr: Expr;
  /** The ReductionOp output, or the WelfordOp's avg output. */
  tv: TensorView;
  /** Logical positions of the reduced dims, ascending. */
  reducedDims: number[];
  /** The innermost non-broadcast logical dim is reduced (or no dim is kept). */
  inner: boolean;
}

export type ReductionType = 'inner' | 'outer' | 'inner_outer';

function isReductionExpr(e: Expr): boolean {
  return e.kind === 'ReductionOp' || e.kind === 'WelfordOp';
}

export function reductionInfo(e: Expr): ReductionInfo | null {
  if (!isReductionExpr(e)) return null;
  const tv = e.outputs[0];
  if (tv === undefined || tv.kind !== 'tensorView') return null;
  const logical = tv.domain.logical;
  const reducedDims = logical.flatMap((id, d) => (id.isReduction() ? [d] : []));
  let inner = true;
  for (let d = logical.length - 1; d >= 0; d -= 1) {
    const id = logical[d] as IterDomain;
    if (id.isBroadcast()) continue;
    inner = id.isReduction();
    break;
  }
  return { expr: e, tv, reducedDims, inner };
}

/** Every reduction of the live fusion, in topological order. */
export function reductionInfos(fusion: Fusion): ReductionInfo[] {
  return tensorExprs(fusion).flatMap((e) => {
    const r = reductionInfo(e);
    return r === null ? [] : [r];
  });
}

/** "T5 reduces [1]" — how reasons name a reduction. */
export function describeReduction(r: ReductionInfo): string {
  return `${tvName(r.tv)} reduces [${r.reducedDims.join(', ')}]`;
}

/** Whether two reductions iterate and reduce the same (mapped) logical dims. */
export function samePattern(a: ReductionInfo, b: ReductionInfo, map: ExactLogicalMap): boolean {
  const da = a.tv.domain.logical.filter((id) => !id.isBroadcast());
  const db = b.tv.domain.logical.filter((id) => !id.isBroadcast());
  if (da.length !== db.length) return false;
  return da.every((ia, k) => {
    const ib = db[k] as IterDomain;
    return ia.isReduction() === ib.isReduction() && map.same(ia, ib);
  });
}

/**
 * The reductions grouped by pattern (first-seen order), or one group when all share a pattern.
 * Only the first two groups matter for a refusal reason.
 */
export function reductionPatternGroups(fusion: Fusion, reductions: readonly ReductionInfo[]): ReductionInfo[][] {
  const map = new ExactLogicalMap(fusion);
  const groups: ReductionInfo[][] = [];
  for (const r of reductions) {
    const g = groups.find((x) => samePattern(x[0] as ReductionInfo, r, map));
    if (g !== undefined) g.push(r);
    else groups.push([r]);
  }
  return groups;
}

/** A refusal reason when the reductions do not share one pattern, else null. */
export function patternMismatch(fusion: Fusion, reductions: readonly ReductionInfo[]): string | null {
  const groups = reductionPatternGroups(fusion, reductions);
  if (groups.length <= 1) return null;
  const first = groups[0]?.[0] as ReductionInfo;
  const second = groups[1]?.[0] as ReductionInfo;
  return `${tvName(second.tv)} is a second reduction pattern (${describeReduction(second)}, ${describeReduction(first)})`;
}

/** nvFuser's getReductionType: all inner, all outer, or a mix (layer-norm backward). */
export function reductionType(reductions: readonly ReductionInfo[]): ReductionType {
  const inner = reductions.filter((r) => r.inner).length;
  if (inner === reductions.length) return 'inner';
  if (inner === 0) return 'outer';
  return 'inner_outer';
}
