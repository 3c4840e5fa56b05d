// The optional lowering passes, in the order they run: each is named, states when it is enabled
// (from the scheduled fusion's lowering options, which the scheduler computed from its
// parameters: scheduler/src/lowering-options.ts), and rewrites the kernel IR statement list that core lowering produced.
// Core lowering (signature, loop groups, loop nest, allocation, expression lowering, the grid
// outer step) always runs; these are the optimisations after it. `lowerFusion` (index.ts) runs
// the enabled ones in this order, then lays out shared memory.
//
// Invariant: a pass that is not enabled never runs, and the order here is the only order: no
// other code decides which optimisation runs when, and no pass tests a scheduler type (the
// scheduler's LoweringOptions say which run and with what).

import type { LoopNestLoweringOptions } from '@tsfuser/scheduler';
import type { IndexLocal, Stmt } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';
import { singleBarrierAllreduces } from './allreduce-barriers.js';
import { bulkLoadRows, rowInputTensors } from './bulk-row-loads.js';
import { pipelineBulkRowLoads } from './bulk-row-pipeline.js';
import { evictLastRowParams } from './evict-last.js';
import { evictLastLoads } from './evict-last-loads.js';
import { groupAllreduces } from './group-allreduce.js';
import { groupIterationLanes } from './group-iteration-lanes.js';
import { hoistRowParamLoads } from './hoist-row-params.js';
import { prefetchNextRow } from './row-prefetch.js';
import { stageTransposeTiles } from './transpose-smem-tile.js';
import { unrolledLoadsFirst } from './unrolled-loads-first.js';

/** What a pass may read besides the statements. */
export interface PassInput {
  ctx: LoweringContext;
  options: LoopNestLoweringOptions;
  indexLocals: readonly IndexLocal[];
}

export interface LoweringPass {
  /** Stable name (dumps: `kernel_ir` after this pass; tests: the verifier after it). */
  readonly name: string;
  /** One line: what the pass does. */
  readonly summary: string;
  enabled(o: LoopNestLoweringOptions): boolean;
  run(body: readonly Stmt[], input: PassInput): Stmt[];
}

/** Kernel names of the fusion inputs at `positions` (tensors only). */
function inputTensorNames(ctx: LoweringContext, positions: readonly number[]): Set<string> {
  return new Set(positions.flatMap((i) => {
    const v = ctx.fusion.inputs[i];
    return v !== undefined && v.kind === 'tensorView' ? [ctx.tensorName(v)] : [];
  }));
}

/** The core passes, in order (named for dumps and the verifier; they always run). */
export const CORE_PASS_NAMES = ['kernel-signature', 'loop-nest', 'allocation', 'expr-lowering', 'grid-outer-step'] as const;

export const OPTIMIZATION_PASSES: readonly LoweringPass[] = [
  {
    name: 'group-iteration-lanes',
    summary: "reduction, vectorizeIterDom: an outer reduction's iteration-vector lanes in one block / grid reduction",
    enabled: (o) => o.passes.groupIterationLanes,
    run: (body) => groupIterationLanes(body),
  },
  {
    name: 'group-allreduce',
    summary: 'inner-outer persistent, groupInnerReductions: block allreduces in pairs',
    enabled: (o) => o.passes.groupAllreduce,
    run: (body) => groupAllreduces(body),
  },
  {
    name: 'row-prefetch',
    summary: "inner-outer / persistent-grid inner persistent, prefetchNextRow: the next row's loads into a second register buffer",
    enabled: (o) => o.passes.rowPrefetch,
    run: (body) => prefetchNextRow(body),
  },
  {
    name: 'evict-last',
    summary: 'inner persistent, evictLastRowParams: row-invariant loads evict-last in L1',
    enabled: (o) => o.passes.evictLastRowParams,
    run: (body) => evictLastRowParams(body),
  },
  {
    name: 'evict-last-loads',
    summary: "pointwise, evictLastInputs: those inputs' global vector loads evict-last in L1 and L2",
    enabled: (o) => o.passes.evictLastInputs.length > 0,
    run: (body, { ctx, options }) => evictLastLoads(body, inputTensorNames(ctx, options.passes.evictLastInputs)),
  },
  {
    name: 'hoist-row-params',
    summary: 'inner persistent, hoistRowParamLoads: row-invariant loads at the top of the kernel',
    enabled: (o) => o.passes.hoistRowParams,
    run: (body) => hoistRowParamLoads(body),
  },
  {
    name: 'allreduce-barriers',
    summary: 'inner persistent, singleBarrierAllreduce: one __syncthreads per block allreduce',
    enabled: (o) => o.passes.singleBarrierAllreduce,
    run: (body) => singleBarrierAllreduces(body),
  },
  {
    name: 'bulk-row-loads',
    summary: 'inner persistent, bulkLoadRows (divisible rows): full rows copied to shared memory by cp.async.bulk',
    enabled: (o) => o.passes.bulkRowLoads !== null,
    run: (body, { ctx, options, indexLocals }) => bulkLoadRows(body, rowInputTensors(ctx), options.passes.bulkRowLoads?.rowCapacity ?? 0, indexLocals),
  },
  {
    name: 'bulk-row-pipeline',
    summary: "inner-outer persistent, bulkLoadRows (divisible rows): each block's rows by cp.async.bulk, the next (bulkStages: next S) in flight",
    enabled: (o) => o.passes.bulkRowPipeline !== null,
    run: (body, { ctx, options, indexLocals }) =>
      pipelineBulkRowLoads(body, rowInputTensors(ctx), options.passes.bulkRowPipeline?.rowCapacity ?? 0, indexLocals, options.passes.bulkRowPipeline?.stages ?? 1),
  },
  {
    name: 'transpose-smem-tile',
    summary: "transpose: second-group inputs staged in a swizzled shared-memory tile (loads coalesced along their stride-1 dim), read back in the output's order",
    enabled: (o) => o.passes.transposeSmemTile !== null,
    run: (body, { ctx, options }) => (options.passes.transposeSmemTile === null ? [...body] : stageTransposeTiles(body, ctx, options.passes.transposeSmemTile)),
  },
  {
    name: 'unrolled-loads-first',
    summary: "pointwise: an unrolled loop with indexed loads split in two, every element's loads (a loop-invariant id read once) before the stores",
    enabled: (o) => o.passes.unrolledLoadsFirst,
    run: (body) => unrolledLoadsFirst(body),
  },
];

/** Every pass name a `kernel_ir` dump may follow, in order (core, optimisations, layout). */
export const LOWERING_PASS_NAMES: readonly string[] = [...CORE_PASS_NAMES, ...OPTIMIZATION_PASSES.map((p) => p.name), 'shared-memory-layout'];

/** The optimisation passes `options` enables, in order. */
export function enabledPasses(options: LoopNestLoweringOptions): LoweringPass[] {
  return OPTIMIZATION_PASSES.filter((p) => p.enabled(options));
}
