// The optional lowering passes, in the order they run: each is named, states when it is enabled
// (from the scheduled fusion's heuristic parameters, which carry the lowering options the
// scheduler chose), and rewrites the kernel IR statement list that core lowering produced.
// Core lowering (signature, loop groups, loop nest, allocation, expression lowering, the grid
// outer step) always runs; these are the optimisations after it. `lowerFusion` (index.ts) runs
// the enabled ones in this order, then lays out shared memory.
//
// Invariant: a pass that is not enabled never runs, and the order here is the only order: no
// other code decides which optimisation runs when (no scheduler-type checks outside this list).

import type { KernelParams } from '@tsfuser/scheduler';
import type { IndexLocal, Stmt } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';
import { singleBarrierAllreduces } from './allreduce-barriers.js';
import { bulkLoadRows, rowInputTensors } from './bulk-row-loads.js';
import { pipelineBulkRowLoads } from './bulk-row-pipeline.js';
import { evictLastRowParams } from './evict-last.js';
import { evictLastLoads } from './evict-last-loads.js';
import { groupAllreduces } from './group-allreduce.js';
import { hoistRowParamLoads } from './hoist-row-params.js';
import { prefetchNextRow } from './row-prefetch.js';
import { stageTransposeTiles } from './transpose-smem-tile.js';
import { unrolledLoadsFirst } from './unrolled-loads-first.js';

/** What a pass may read besides the statements. */
export interface PassInput {
  ctx: LoweringContext;
  params: KernelParams;
  indexLocals: readonly IndexLocal[];
}

export interface LoweringPass {
  /** Stable name (dumps: `kernel_ir` after this pass; tests: the verifier after it). */
  readonly name: string;
  /** One line: what the pass does. */
  readonly summary: string;
  enabled(p: KernelParams): boolean;
  run(body: readonly Stmt[], input: PassInput): Stmt[];
}

/** Elements of one row each block keeps (the bulk copies' buffer capacity). */
function rowCapacity(p: KernelParams): number {
  return p.schedulerType === 'inner_persistent' || p.schedulerType === 'inner_outer_persistent'
    ? p.batchesPerBlockInnerReduction * p.lparams.bdimx * p.unrollFactorInnerReduction
    : 0;
}

/** Kernel names of the fusion inputs a pointwise kernel loads evict-last. */
function evictLastTensorNames(ctx: LoweringContext, p: KernelParams): Set<string> {
  const positions = p.schedulerType === 'pointwise' ? p.evictLastInputs : [];
  return new Set(positions.flatMap((i) => {
    const v = ctx.fusion.inputs[i];
    return v !== undefined && v.kind === 'tensorView' ? [ctx.tensorName(v)] : [];
  }));
}

/** The core passes, in order (named for dumps and the verifier; they always run). */
export const CORE_PASS_NAMES = ['kernel-signature', 'loop-nest', 'allocation', 'expr-lowering', 'grid-outer-step'] as const;

export const OPTIMIZATION_PASSES: readonly LoweringPass[] = [
  {
    name: 'group-allreduce',
    summary: 'inner-outer persistent, groupInnerReductions: block allreduces in pairs',
    enabled: (p) => p.schedulerType === 'inner_outer_persistent' && p.groupInnerReductions,
    run: (body) => groupAllreduces(body),
  },
  {
    name: 'row-prefetch',
    summary: "inner-outer persistent, prefetchNextRow: the next row's loads into a second register buffer",
    enabled: (p) => p.schedulerType === 'inner_outer_persistent' && p.prefetchNextRow,
    run: (body) => prefetchNextRow(body),
  },
  {
    name: 'evict-last',
    summary: 'inner persistent, evictLastRowParams: row-invariant loads evict-last in L1',
    enabled: (p) => p.schedulerType === 'inner_persistent' && p.evictLastRowParams,
    run: (body) => evictLastRowParams(body),
  },
  {
    name: 'evict-last-loads',
    summary: "pointwise, evictLastInputs: those inputs' global vector loads evict-last in L1 and L2",
    enabled: (p) => p.schedulerType === 'pointwise' && p.evictLastInputs.length > 0,
    run: (body, { ctx, params }) => evictLastLoads(body, evictLastTensorNames(ctx, params)),
  },
  {
    name: 'hoist-row-params',
    summary: 'inner persistent, hoistRowParamLoads: row-invariant loads at the top of the kernel',
    enabled: (p) => p.schedulerType === 'inner_persistent' && p.hoistRowParamLoads,
    run: (body) => hoistRowParamLoads(body),
  },
  {
    name: 'allreduce-barriers',
    summary: 'inner persistent, singleBarrierAllreduce: one __syncthreads per block allreduce',
    enabled: (p) => p.schedulerType === 'inner_persistent' && p.singleBarrierAllreduce,
    run: (body) => singleBarrierAllreduces(body),
  },
  {
    name: 'bulk-row-loads',
    summary: 'inner persistent, bulkLoadRows (divisible rows): full rows copied to shared memory by cp.async.bulk',
    enabled: (p) => p.schedulerType === 'inner_persistent' && p.bulkLoadRows && p.divisibleSplits[0] === true,
    run: (body, { ctx, params, indexLocals }) => bulkLoadRows(body, rowInputTensors(ctx), rowCapacity(params), indexLocals),
  },
  {
    name: 'bulk-row-pipeline',
    summary: "inner-outer persistent, bulkLoadRows (divisible rows): each block's rows by cp.async.bulk, the next in flight",
    enabled: (p) => p.schedulerType === 'inner_outer_persistent' && p.bulkLoadRows && p.divisibleSplits[0] === true,
    run: (body, { ctx, params, indexLocals }) => pipelineBulkRowLoads(body, rowInputTensors(ctx), rowCapacity(params), indexLocals),
  },
  {
    name: 'transpose-smem-tile',
    summary: "transpose: second-group inputs staged in a swizzled shared-memory tile (loads coalesced along their stride-1 dim), read back in the output's order",
    enabled: (p) => p.schedulerType === 'transpose' && p.group2Inputs.length > 0,
    run: (body, { ctx, params }) => (params.schedulerType === 'transpose' ? stageTransposeTiles(body, ctx, params) : [...body]),
  },
  {
    name: 'unrolled-loads-first',
    summary: "pointwise: an unrolled loop with indexed loads split in two, every element's loads (a loop-invariant id read once) before the stores",
    enabled: (p) => p.schedulerType === 'pointwise',
    run: (body) => unrolledLoadsFirst(body),
  },
];

/** Every pass name a `kernel_ir` dump may follow, in order (core, optimisations, layout). */
export const LOWERING_PASS_NAMES: readonly string[] = [...CORE_PASS_NAMES, ...OPTIMIZATION_PASSES.map((p) => p.name), 'shared-memory-layout'];

/** The optimisation passes `params` enables, in order. */
export function enabledPasses(params: KernelParams): LoweringPass[] {
  return OPTIMIZATION_PASSES.filter((p) => p.enabled(params));
}
