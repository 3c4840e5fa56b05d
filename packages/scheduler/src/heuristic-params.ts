// Heuristic parameters: the decisions a scheduler makes for one fusion and one set of runtime
// sizes. A discriminated union so that reduction / normalization parameters can join later;
// equal parameters mean the same kernel (the kernel cache is keyed by them).

import type { IndexType } from './index-type.js';
import type { LaunchDims } from './launch-dims.js';
import { reductionParamsToString, type ReductionParams } from './reduction/params.js';
import { innerPersistentParamsToString, type InnerPersistentParams } from './inner-persistent/params.js';
import { outerPersistentParamsToString, type OuterPersistentParams } from './outer-persistent/params.js';
import { innerOuterPersistentParamsToString, type InnerOuterPersistentParams } from './inner-outer-persistent/params.js';
import { greedyParamsToString, type GreedyParams } from './greedy/params.js';
import { transposeParamsToString, type TransposeParams } from './transpose/params.js';
import { matmulParamsToString, type MatmulParams } from './matmul/params.js';
import { attentionParamsToString, type AttentionParams } from './attention/params.js';

export type { LaunchDims } from './launch-dims.js';

export interface PointwiseParams {
  schedulerType: 'pointwise';
  tag: string;
  /** 0: 1-D schedule; k: dims [0, k) merge into the outer (BIDy) side, [k, rank) into the inner. */
  breakPoint: number;
  /** TIDy splits the outer side (when the inner side is too small for a full block). */
  splitBlock: boolean;
  /** The outer side is larger than gridDim.y allows and loops over the rest. */
  splitGridYDim: boolean;
  flipGridBinding: boolean;
  vectorizationFactor: number;
  unrollFactorOuter: number;
  unrollFactorInner: number;
  indexType: IndexType;
  /** Launch dimensions for the sizes the heuristics saw. */
  lparams: LaunchDims;
  /**
   * Divisibility facts proven from the runtime sizes, in the order the schedule applies the
   * splits to the reference: true means that split needs no predicate. Part of the cache key.
   */
  divisibleSplits: readonly boolean[];
  /** Fusion input positions whose loads are vectorized. */
  vectorizedInputs: readonly number[];
  /** Fusion output positions whose stores are vectorized. */
  vectorizedOutputs: readonly number[];
  /**
   * Fusion input positions whose global vector loads carry L1::evict_last and an L2 evict_last
   * cache policy (what Triton emits for Inductor's evict_last loads); chosen in
   * pointwise/heuristics.ts: every vectorized input, unless some input the grid reads again is
   * re-read only after more than half the L2 has streamed past (then only those).
   */
  evictLastInputs: readonly number[];
  /**
   * Divisions of flat indices by run-time extents use host-computed (magic, shift) pairs
   * (codegen's fast division, PyTorch's IntDivider) instead of the hardware-less 32-bit integer
   * division sequence: only with Int32 indexing and every index value far enough below 2^31
   * (pointwise/heuristics.ts `fastDivisionFits`). PointwiseOverrides.fastDivision turns it off.
   */
  fastDivision: boolean;
}

/** A metadata-only fusion (expr_eval): no kernel, every output a view of an input. */
export interface ExprEvalParams {
  schedulerType: 'expr_eval';
  tag: string;
}

/** A fusion whose outputs are all empty (no_op): no kernel, the outputs are just allocated. */
export interface NoOpParams {
  schedulerType: 'no_op';
  tag: string;
}

export type HeuristicParams =
  | ExprEvalParams
  | NoOpParams
  | PointwiseParams
  | TransposeParams
  | ReductionParams
  | InnerPersistentParams
  | OuterPersistentParams
  | InnerOuterPersistentParams
  | GreedyParams
  | MatmulParams
  | AttentionParams;

/**
 * The parameters of a scheduler that makes a kernel from a scheduled fusion (every one but
 * expr_eval, no_op, matmul: a cuBLASLt call, and attention: kernels generated from its parameters).
 */
export type KernelParams = Exclude<HeuristicParams, ExprEvalParams | NoOpParams | MatmulParams | AttentionParams>;

/**
 * Every scheduler nvFuser has, by its `SchedulerType` name (lower snake case as in nvFuser's
 * dumps). Segmentation reasons and dumps name schedulers by these even before a type has
 * parameters of its own in `HeuristicParams`.
 */
export type SchedulerType =
  | 'no_op'
  | 'expr_eval'
  | 'pointwise'
  | 'transpose'
  | 'reduction'
  | 'inner_persistent'
  | 'outer_persistent'
  | 'inner_outer_persistent'
  | 'greedy'
  | 'matmul'
  | 'attention';

export function exprEvalParamsToString(p: ExprEvalParams): string {
  return `\n===== Expr Eval Parameters ========\nTag: ${p.tag}\nNo kernel: every output is a view (sizes, strides, offset) of an input buffer\n====================================\n`;
}

/** nvFuser's `PointwiseParams::toString` layout (the `scheduler_params` dump). */
export function pointwiseParamsToString(p: PointwiseParams): string {
  const lines: string[] = [];
  lines.push('');
  lines.push('===== Pointwise Parameters ========');
  lines.push(`${p.tag === '' ? '' : 'Tag: '}${p.tag} Pointwise Characteristics:`);
  lines.push(` Gridx: ${p.lparams.gdimx} BlckY: ${p.lparams.bdimy} BlckX: ${p.lparams.bdimx}`);
  if (p.breakPoint !== 0) {
    lines.push('2D Schedule');
    lines.push(`  Bcast break point: ${p.breakPoint}`);
    if (p.splitBlock) lines.push('Split block into y-dim');
    if (p.splitGridYDim) lines.push('  Split y grid dim');
  }
  lines.push(`Vectorize, Factor: ${p.vectorizationFactor}`);
  lines.push(`unroll_factor_outer: ${p.unrollFactorOuter}`);
  lines.push(`unroll_factor_inner: ${p.unrollFactorInner}`);
  if (p.flipGridBinding) lines.push('Flip BIDx/BIDy bindings');
  if (p.evictLastInputs.length > 0) lines.push(`Loads with L1::evict_last and an L2 evict_last cache policy: inputs [${p.evictLastInputs.join(', ')}]`);
  lines.push(`Index type: ${p.indexType === 'Int32' ? 'int' : 'int64_t'}`);
  lines.push(`Divisible splits: [${p.divisibleSplits.map((d) => (d ? 'true' : 'false')).join(', ')}]`);
  lines.push('====================================');
  return `${lines.join('\n')}\n`;
}

export function heuristicParamsToString(p: HeuristicParams): string {
  switch (p.schedulerType) {
    case 'expr_eval':
      return exprEvalParamsToString(p);
    case 'no_op':
      return `\n===== No Op Parameters ========\nTag: ${p.tag}\nNo kernel: every output is empty\n====================================\n`;
    case 'pointwise':
      return pointwiseParamsToString(p);
    case 'transpose':
      return transposeParamsToString(p);
    case 'reduction':
      return reductionParamsToString(p);
    case 'inner_persistent':
      return innerPersistentParamsToString(p);
    case 'outer_persistent':
      return outerPersistentParamsToString(p);
    case 'inner_outer_persistent':
      return innerOuterPersistentParamsToString(p);
    case 'greedy':
      return greedyParamsToString(p);
    case 'matmul':
      return matmulParamsToString(p);
    case 'attention':
      return attentionParamsToString(p);
    default: {
      const unreachable: never = p;
      throw new Error(`unknown scheduler parameters ${String(unreachable)}`);
    }
  }
}
