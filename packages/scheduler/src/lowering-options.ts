// LoweringOptions: everything codegen's lowering decides from the heuristics — the vectorize
// factor, which optimisation passes run and with which of their parameters, the grid work buffers,
// minimum shared memory, blocks per SM, index type — computed once by the scheduler from its
// parameters (`loweringOptionsOf`, one exhaustive switch over the kernel schedulers) and carried by
// the scheduled fusion that `schedule()` returns.
//
// Invariant: this is the only place that maps a scheduler type to a lowering decision; codegen
// reads the record and never compares `schedulerType` (codegen/test/no-scheduler-type.test.ts).
// The record states exactly what codegen read from the parameters before it existed, so every
// generated kernel is byte-identical (the codegen goldens).

import type { GreedyParams } from './greedy/params.js';
import type { HeuristicParams, KernelParams } from './heuristic-params.js';
import type { IndexType } from './index-type.js';

/** The transpose scheduler's shared-memory tile: its geometry and the inputs staged through it. */
export interface TransposeTileOptions {
  /** Tile extents along the first / second group's stride-1 dims. */
  tile1: number;
  tile2: number;
  /** Vector widths along each group's stride-1 dim. */
  vector1: number;
  vector2: number;
  /** Threads of the block that share the tile. */
  threads: number;
  /** Fusion input positions staged through the tile (the second group's inputs). */
  stagedInputs: readonly number[];
}

/** The optimisation passes of codegen's lower/passes.ts: null / false / empty = not run. */
export interface LoweringPassOptions {
  /** group-allreduce: block allreduces in pairs (inner-outer persistent, groupInnerReductions). */
  groupAllreduce: boolean;
  /** row-prefetch: the next row's loads into a second register buffer (inner-outer persistent). */
  rowPrefetch: boolean;
  /** evict-last: row-invariant loads evict-last in L1 (inner persistent). */
  evictLastRowParams: boolean;
  /** evict-last-loads: fusion input positions whose global vector loads are evict-last (pointwise). */
  evictLastInputs: readonly number[];
  /** hoist-row-params: row-invariant loads at the top of the kernel (inner persistent). */
  hoistRowParams: boolean;
  /** allreduce-barriers: one __syncthreads per block allreduce (inner persistent). */
  singleBarrierAllreduce: boolean;
  /** bulk-row-loads: full rows by cp.async.bulk, rowCapacity elements a block (inner persistent, divisible rows). */
  bulkRowLoads: { rowCapacity: number } | null;
  /**
   * bulk-row-pipeline: each block's rows by cp.async.bulk, the next in flight (inner-outer
   * persistent, divisible rows); `stages` row slots per buffer, the next `stages` rows in flight
   * (absent: 1).
   */
  bulkRowPipeline: { rowCapacity: number; stages?: number } | null;
  /** transpose-smem-tile: second-group inputs staged in a swizzled shared-memory tile (transpose). */
  transposeSmemTile: TransposeTileOptions | null;
  /** unrolled-loads-first: an unrolled loop's loads before its stores (pointwise). */
  unrolledLoadsFirst: boolean;
  /** group-iteration-lanes: an outer reduction's iteration-vector lanes in one block / grid reduction (reduction). */
  groupIterationLanes: boolean;
}

/** A kernel lowered through a loop nest (every kernel scheduler but greedy). */
export interface LoopNestLoweringOptions {
  kind: 'loopNest';
  indexType: IndexType;
  /** The kernel's widest vector access (elements). */
  vectorizeFactor: number;
  passes: LoweringPassOptions;
  /** A grid reduction's work slots and semaphores (reduction scheduler); null: the kernel may have none. */
  gridReductionBuffers: { workSlots: number; semaphores: number } | null;
  /** The grid outer reductions' work slots (inner-outer persistent); null: the kernel may have none. */
  gridOuterBuffers: { workSlots: number } | null;
  /** Shared memory a block takes at least (bytes; limits resident blocks per SM). */
  minSharedMemBytes: number;
  /** __launch_bounds__ minimum blocks per SM; null: none stated. */
  minBlocksPerSm: number | null;
  /**
   * Divisions of non-negative indices by run-time extents through host-computed magic numbers
   * (codegen lower/fast-division.ts; an extra kernel parameter). Only where the scheduler proved
   * every index value below 2^31 (pointwise: PointwiseParams.fastDivision).
   */
  fastDivision: boolean;
}

/** A greedy (scan / sort) kernel: emitted from its parameters, no loop nest. */
export interface GreedyLoweringOptions {
  kind: 'greedy';
  params: GreedyParams;
}

export type LoweringOptions = LoopNestLoweringOptions | GreedyLoweringOptions;

const NO_PASSES: LoweringPassOptions = {
  groupAllreduce: false,
  rowPrefetch: false,
  evictLastRowParams: false,
  evictLastInputs: [],
  hoistRowParams: false,
  singleBarrierAllreduce: false,
  bulkRowLoads: null,
  bulkRowPipeline: null,
  transposeSmemTile: null,
  unrolledLoadsFirst: false,
  groupIterationLanes: false,
};

function loopNest(p: KernelParams, vectorizeFactor: number, passes: Partial<LoweringPassOptions>, rest: Partial<Omit<LoopNestLoweringOptions, 'kind' | 'indexType' | 'vectorizeFactor' | 'passes'>> = {}): LoopNestLoweringOptions {
  return {
    kind: 'loopNest',
    indexType: p.indexType,
    vectorizeFactor,
    passes: { ...NO_PASSES, ...passes },
    gridReductionBuffers: null,
    gridOuterBuffers: null,
    minSharedMemBytes: 0,
    minBlocksPerSm: null,
    fastDivision: false,
    ...rest,
  };
}

/** The lowering options of a kernel scheduler's parameters (computed once, in `schedule()`). */
export function loweringOptionsOf(p: KernelParams): LoweringOptions {
  switch (p.schedulerType) {
    case 'pointwise':
      return loopNest(p, p.vectorizationFactor, { evictLastInputs: p.evictLastInputs, unrolledLoadsFirst: true }, { fastDivision: p.fastDivision });
    case 'transpose':
      return loopNest(p, Math.max(p.vectorizeFactor1, p.vectorizeFactor2), {
        transposeSmemTile:
          p.group2Inputs.length > 0
            ? { tile1: p.tileSize1, tile2: p.tileSize2, vector1: p.vectorizeFactor1, vector2: p.vectorizeFactor2, threads: p.lparams.bdimx, stagedInputs: p.group2Inputs }
            : null,
      });
    case 'reduction':
      return loopNest(p, p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : p.vectorizeIterDom ? p.unrollFactorIterDom : 1, { groupIterationLanes: p.vectorizeIterDom }, {
        gridReductionBuffers: { workSlots: p.gridReductionWorkSlots, semaphores: p.gridReductionSemaphores },
      });
    case 'inner_persistent': {
      const divisibleRows = p.bulkLoadRows && p.divisibleSplits[0] === true;
      // A persistent grid's row loop pipelines the bulk copies (the next row's in flight).
      const grid = p.blocksPerSm > 0;
      return loopNest(
        p,
        p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1,
        {
          rowPrefetch: p.prefetchNextRow,
          evictLastRowParams: p.evictLastRowParams,
          hoistRowParams: p.hoistRowParamLoads,
          singleBarrierAllreduce: p.singleBarrierAllreduce,
          bulkRowLoads: divisibleRows && !grid ? { rowCapacity: rowCapacity(p) } : null,
          bulkRowPipeline: divisibleRows && grid ? { rowCapacity: rowCapacity(p) } : null,
        },
        { minSharedMemBytes: p.minSharedMemBytes },
      );
    }
    case 'outer_persistent':
      return loopNest(p, 1, {}); // no vectorization yet (one kept element per thread)
    case 'inner_outer_persistent': {
      const divisibleRows = p.bulkLoadRows && p.divisibleSplits[0] === true;
      return loopNest(
        p,
        p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1,
        {
          groupAllreduce: p.groupInnerReductions,
          rowPrefetch: p.prefetchNextRow,
          bulkRowPipeline: divisibleRows ? { rowCapacity: rowCapacity(p), stages: p.bulkStages } : null,
        },
        { gridOuterBuffers: { workSlots: p.outerReductionWorkSlots }, minBlocksPerSm: p.blocksPerSm },
      );
    }
    case 'greedy':
      return { kind: 'greedy', params: p };
    default: {
      const unreachable: never = p;
      throw new Error(`unknown scheduler parameters ${String(unreachable)}`);
    }
  }
}

/** Elements of one row each block keeps (the bulk copies' buffer capacity). */
function rowCapacity(p: Extract<KernelParams, { schedulerType: 'inner_persistent' | 'inner_outer_persistent' }>): number {
  return p.batchesPerBlockInnerReduction * p.lparams.bdimx * p.unrollFactorInnerReduction;
}

/** Why parameters make no kernel at all (expr_eval, no_op), or null when they describe a segment that has one. */
export function noKernelReason(p: HeuristicParams): string | null {
  switch (p.schedulerType) {
    case 'expr_eval':
      return 'its outputs are views of its inputs';
    case 'no_op':
      return 'every output is empty';
    case 'pointwise':
    case 'transpose':
    case 'reduction':
    case 'inner_persistent':
    case 'outer_persistent':
    case 'inner_outer_persistent':
    case 'greedy':
    case 'matmul':
    case 'attention':
      return null;
    default: {
      const unreachable: never = p;
      throw new Error(`unknown scheduler parameters ${String(unreachable)}`);
    }
  }
}
