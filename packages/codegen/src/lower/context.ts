// The state lowering passes share: the scheduled fusion, its reference tensor (whose loop
// domain every aligned tensor follows position by position), the exact logical map (through
// slice / pad / cat when the fusion has them: lower/resize.ts shifts those indices), and how
// scalars (extents, scalar inputs, constants) are named in the kernel. Built once by
// lower/index.ts; passes read it and never mutate the fusion. The analyses (exact maps, reshape
// index graph) are the scheduled fusion's own (scheduler's lowering-analyses.ts, made once by
// the scheduler's final step): lowering builds none of them.

import { isReducedFloat, isRFactorProducer, type DataType, type Fusion, type Scalar, type Split, type TensorView } from '@tsfuser/fusion-ir';
import type { ExactLogicalMap, IndexType, LoweringAnalyses, ReshapeIndexGraph } from '@tsfuser/scheduler';
import type { IndexExpr } from '../kernel-ir/index-expr.js';

export interface LoweringContext {
  fusion: Fusion;
  reference: TensorView;
  /** Number of loop positions (the reference's loop domain length). */
  positions: number;
  exactMap: ExactLogicalMap;
  /**
   * With slice / pad / cat, the exact map that does not cross them: only dims it joins have the
   * reference's extent, so only those may share a merged index.
   */
  exactMapNoResize: ExactLogicalMap;
  /** Indexing through reshapes: dims the exact map does not tie to the reference (reshape-index-graph.ts). */
  reshapeIndex: ReshapeIndexGraph;
  divisibleSplits: ReadonlySet<Split>;
  indexType: IndexType;
  /** Symbolic extents and scalar inputs → kernel-side names (filled by the signature pass). */
  scalarNames: Map<Scalar, string>;
  /** Kernel names of derived extents (segment inputs' expression extents) by their text. */
  extentNamesByText: Map<string, string>;
  /** Kernel names of tensors: `T<n>`. */
  tensorName(tv: TensorView): string;
  /** Index expression of an integer extent scalar. */
  extent(s: Scalar): IndexExpr;
  /**
   * Reduction schedules: a tensor whose loop domain is shorter than the reference's may follow
   * the reference's first positions (tensors after a reduction); see loop-groups.ts.
   */
  prefixAligned: boolean;
  /** The dtype a tensor is stored in (rFactor partials of Half/BFloat16 accumulate in Float). */
  storageDtype(tv: TensorView): DataType;
  /** Prefix of kernel-scope names (grid reduction buffers). */
  kernelName: string;
  /** The launch's threads per block along x and y (padded-threads.ts guards thread positions narrower than these). */
  blockDims?: { TIDx: number; TIDy: number };
}

/** rFactor partials of Half/BFloat16/fp8 reductions keep their partial sums in Float registers. */
function storageDtypeOf(tv: TensorView): DataType {
  if (tv.memoryType === 'Local' && isReducedFloat(tv.dtype) && isRFactorProducer(tv)) return 'Float';
  return tv.dtype;
}

/** `analyses`: the scheduled fusion's (ScheduledFusion.analyses), for `fusion` and `reference`. */
export function makeContext(
  fusion: Fusion,
  reference: TensorView,
  divisibleSplits: ReadonlySet<Split>,
  indexType: IndexType,
  extent: (ctx: LoweringContext, s: Scalar) => IndexExpr,
  analyses: LoweringAnalyses,
  kernelName = 'kernel',
): LoweringContext {
  const ctx: LoweringContext = {
    fusion,
    reference,
    positions: reference.nDims(),
    exactMap: analyses.exactMap(),
    exactMapNoResize: analyses.exactMapNoResize(),
    reshapeIndex: analyses.reshapeIndex(),
    divisibleSplits,
    indexType,
    scalarNames: new Map(),
    extentNamesByText: new Map(),
    tensorName: (tv) => `T${tv.name}`,
    extent: (s) => extent(ctx, s),
    prefixAligned: fusion.exprs().some((e) => e.kind === 'ReductionOp' || e.kind === 'WelfordOp'),
    storageDtype: storageDtypeOf,
    kernelName,
  };
  return ctx;
}
