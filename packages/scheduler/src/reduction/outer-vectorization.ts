// Iteration-dim vectorization of outer reductions (after nvFuser's outerReductionHeuristic:
// vectorize_iter_dom / unroll_factor_iter_dom). An outer reduction keeps the innermost,
// contiguous dim, so each thread can own `factor` adjacent columns: one 16-byte load per row
// instead of `factor` narrow ones, and `factor` accumulators (per-lane partial sums).
// The factor is the widest ≤ 16 bytes over the vectorizable inputs (full-rank inputs whose
// innermost dim is the reduction's innermost kept dim with stride 1) that divides that dim's
// extent, every other stride and every pointer alignment — so no vector crosses a row, and the
// lane predicates equal lane 0's (the lowering groups the lanes' reductions on that proof).
// Not applied (factor 1) to Welford, to fusions with slice / pad / cat or reshapes, to inputs
// whose innermost kept dim is broadcast, or when fewer than a warp of vectors per block-row of
// columns would remain.
// Invariant: factor > 1 only if the merged iteration extent is a multiple of it.

import { dataTypeSize, type Fusion } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import type { ExtentBindings, RuntimeInfo } from '../runtime-info.js';
import { evaluateExtent } from '../runtime-info.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import type { ReductionPattern } from './analysis.js';

/** Vector columns an outer reduction keeps at least before it is vectorized (one warp). */
const MIN_VECTOR_COLUMNS = 32;

export interface OuterVectorization {
  factor: number;
  /** Fusion input positions whose caches are loaded as vectors. */
  inputs: number[];
}

const NONE: OuterVectorization = { factor: 1, inputs: [] };

/**
 * The iteration-dim vector of an outer reduction with `iterationSize` merged kept elements;
 * `limit` caps it (an override: 1 keeps the scalar schedule).
 */
export function outerVectorization(fusion: Fusion, runtimeInfo: RuntimeInfo, p: ReductionPattern, iterationSize: number, bindings: ExtentBindings, limit = 16): OuterVectorization {
  if (p.fastestDim || p.expr.kind !== 'ReductionOp' || limit <= 1 || iterationSize === 0) return NONE;
  if (hasResizeExprs(fusion) || fusion.exprs().some((e) => e.kind === 'ViewOp')) return NONE;
  const logical = p.reduction.domain.logical;
  const innerPos = p.iterationDims[p.iterationDims.length - 1];
  const innermost = innerPos === undefined ? undefined : logical[innerPos];
  if (innermost === undefined || innermost.isBroadcast() || innerPos !== logical.length - 1) return NONE;
  const innerExtent = evaluateExtent(innermost.extent, bindings);
  const map = new ExactLogicalMap(fusion);
  const rank = p.input.domain.logicalNoReductions().length;
  const cands: { position: number; dtypeSize: number; sizes: readonly number[]; strides: readonly number[]; alignment: number }[] = [];
  fusion.inputs.forEach((v, i) => {
    const info = runtimeInfo.inputs[i];
    if (v.kind !== 'tensorView' || info === undefined || info.kind !== 'tensor') return;
    const dims = v.domain.logicalNoReductions();
    const last = dims[dims.length - 1];
    if (dims.length !== rank || last === undefined || last.isBroadcast() || !map.same(last, innermost)) return;
    if (info.strides[dims.length - 1] !== 1) return;
    cands.push({ position: i, dtypeSize: dataTypeSize(v.dtype), sizes: info.sizes, strides: info.strides, alignment: info.alignment });
  });
  if (cands.length === 0) return NONE;
  let factor = Math.min(limit, Math.floor(16 / Math.max(...cands.map((c) => c.dtypeSize))));
  const ok = (v: number): boolean =>
    innerExtent % v === 0 &&
    iterationSize % v === 0 &&
    cands.every((c) => c.alignment % (v * c.dtypeSize) === 0 && c.strides.every((s, d) => d === rank - 1 || (c.sizes[d] ?? 1) <= 1 || s % v === 0));
  while (factor > 1 && !ok(factor)) factor /= 2;
  while (factor > 1 && iterationSize / factor < MIN_VECTOR_COLUMNS) factor /= 2;
  return factor > 1 ? { factor, inputs: cands.map((c) => c.position) } : NONE;
}
