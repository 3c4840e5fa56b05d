// The lowering pipeline — the only place that knows the pass order:
//   1. kernel-signature  parameters and names of extents / scalar inputs
//   2. loop-groups       the loop map over (tensor, position)
//   3. loop-nest         loops and placed (pending) expressions
//   4. allocation        local buffers at their compute-at loops
//   5. expr-lowering     indexing + predicates → LoadStore / Compute statements; reductions
//                        (init / serial update / block reduction, thread predicates);
//                        slice / pad / cat and shifted accesses through resize.ts
//   6. grid outer step   inner-outer persistent kernels end with one GridOuterReduce
//                        (grid-outer-reduction.ts)
//   7. grouping          inner-outer persistent kernels with groupInnerReductions: block
//                        allreduces in pairs (group-allreduce.ts)
//   8. row prefetch      inner-outer persistent kernels with prefetchNextRow: the next row's
//                        loads go into a second register buffer (row-prefetch.ts)
//   9. cache hints       inner persistent kernels with evictLastRowParams: row-invariant loads
//                        evict-last in L1 (evict-last.ts)
//   9b. hoisting        inner persistent kernels with hoistRowParamLoads: row-invariant loads
//                        issued at the top of the kernel (hoist-row-params.ts)
//  10. barriers          inner persistent kernels with singleBarrierAllreduce: one
//                        __syncthreads per block allreduce (allreduce-barriers.ts)
//  11. bulk row copies   inner persistent kernels with bulkLoadRows: full rows copied to
//                        shared memory by cp.async.bulk (bulk-row-loads.ts), then laid out
//                        after the reductions' shared memory
//  12. bulk row pipeline inner-outer persistent kernels with bulkLoadRows: each block's rows
//                        copied to shared memory by cp.async.bulk, the next row's copy in
//                        flight during this row (bulk-row-pipeline.ts), laid out as in 11
// plus fusion scalar math lowered to ScalarComputes ahead of the loops.

import { dataTypeSize } from '@tsfuser/fusion-ir';
import type { KernelParams, ScheduledFusion } from '@tsfuser/scheduler';
import { LoweringError } from '../errors.js';
import { allStmts } from '../kernel-ir/effects.js';
import type { Kernel, Stmt } from '../kernel-ir/nodes.js';
import { insertAllocations } from './allocation.js';
import { makeContext } from './context.js';
import { lowerExprs, lowerScalarExprs } from './expr-lowering.js';
import { buildSignature, extentExpr } from './kernel-signature.js';
import { LoopGroups } from './loop-groups.js';
import { buildLoopNest } from './loop-nest.js';
import { gridOuterReduceStmt, gridOuterReductions } from './grid-outer-reduction.js';
import { singleBarrierAllreduces } from './allreduce-barriers.js';
import { evictLastRowParams } from './evict-last.js';
import { hoistRowParamLoads } from './hoist-row-params.js';
import { groupAllreduces } from './group-allreduce.js';
import { prefetchNextRow } from './row-prefetch.js';
import { bulkLoadRows, layoutBulkRowCopies, rowInputTensors } from './bulk-row-loads.js';
import { pipelineBulkRowLoads } from './bulk-row-pipeline.js';
import { ResizeLowering } from './resize.js';
import { hasResizeExprs } from '@tsfuser/scheduler';

export interface LowerOptions {
  kernelName: string;
  maxThreadsPerBlock: number;
}

function vectorizeFactorOf(p: KernelParams): number {
  switch (p.schedulerType) {
    case 'pointwise':
      return p.vectorizationFactor;
    case 'reduction':
      return p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1;
    case 'inner_persistent':
      return p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1;
    case 'outer_persistent':
      return 1; // no vectorization yet (one kept element per thread)
    case 'inner_outer_persistent':
      return p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1;
    default: {
      const unreachable: never = p;
      throw new Error(`unknown scheduler parameters ${String(unreachable)}`);
    }
  }
}

/** Bytes of a Welford count in shared memory and work buffers (nvfuser_index_t is at most 8). */
const WELFORD_COUNT_BYTES = 8;

/**
 * Dynamic shared memory of the block reductions: one accumulator per thread of the block
 * (a Welford state per thread: avg and M2 in the accumulation type, then the count).
 */
function blockReduceSharedMemory(stmts: readonly Stmt[], threads: number): number {
  let bytes = 0;
  for (const s of allStmts(stmts)) {
    // A grouped allreduce, and one-barrier allreduces (two alternating areas), need two slots per thread.
    if (s.kind === 'BlockReduce') bytes = Math.max(bytes, threads * dataTypeSize(s.accDtype) * (s.grouped === undefined && s.oneBarrierArea === undefined ? 1 : 2));
    else if (s.kind === 'GridReduce' || s.kind === 'GridOuterReduce') bytes = Math.max(bytes, threads * dataTypeSize(s.accDtype));
    else if (s.kind === 'BlockWelford' || s.kind === 'GridWelford') bytes = Math.max(bytes, threads * (2 * dataTypeSize(s.accDtype) + WELFORD_COUNT_BYTES));
  }
  return bytes;
}

/** The static work buffers and semaphores of a grid reduction (or grid Welford), sized by the heuristics. */
function gridReductionGlobals(stmts: readonly Stmt[], p: KernelParams): Kernel['deviceGlobals'] {
  const grids = allStmts(stmts).filter((s): s is Extract<Stmt, { kind: 'GridReduce' | 'GridWelford' }> => s.kind === 'GridReduce' || s.kind === 'GridWelford');
  const first = grids[0];
  if (first === undefined) return [];
  if (p.schedulerType !== 'reduction' || grids.length > 1) throw new LoweringError('a grid reduction needs the reduction scheduler and only one per kernel');
  const slots = Math.max(1, p.gridReductionWorkSlots);
  const semaphores = { name: first.semaphores, ctype: 'unsigned int' as const, size: Math.max(1, p.gridReductionSemaphores) };
  if (first.kind === 'GridReduce') return [{ name: first.work, ctype: 'double', size: slots }, semaphores];
  return [
    { name: first.work.avg, ctype: 'double', size: slots },
    { name: first.work.varSum, ctype: 'double', size: slots },
    { name: first.work.n, ctype: 'long long', size: slots },
    semaphores,
  ];
}

/** Work buffers (gridDim.x × columns partials each) and the barrier semaphore of the grid outer reductions. */
function gridOuterGlobals(stmts: readonly Stmt[], p: KernelParams): Kernel['deviceGlobals'] {
  const step = allStmts(stmts).find((s): s is Extract<Stmt, { kind: 'GridOuterReduce' }> => s.kind === 'GridOuterReduce');
  if (step === undefined) return [];
  if (p.schedulerType !== 'inner_outer_persistent') throw new LoweringError('a grid outer reduction needs the inner-outer persistent scheduler (it sizes the work buffers)');
  const ctype = step.accDtype === 'Double' ? ('double' as const) : ('float' as const);
  return [
    ...step.reductions.map((r) => ({ name: r.work, ctype, size: Math.max(1, p.outerReductionWorkSlots) })),
    { name: step.semaphore, ctype: 'unsigned int' as const, size: 1 },
  ];
}

export function lowerFusion(scheduled: ScheduledFusion, opts: LowerOptions): Kernel {
  const ctx = makeContext(scheduled.fusion, scheduled.reference, scheduled.divisibleSplits, scheduled.params.indexType, extentExpr, opts.kernelName);
  const { params, indexLocals } = buildSignature(ctx);
  const scalars = lowerScalarExprs(ctx);
  const groups = new LoopGroups(ctx);
  const nest = buildLoopNest(ctx, groups);
  const allocated = insertAllocations(ctx, groups, nest);
  const resize = hasResizeExprs(ctx.fusion) ? new ResizeLowering(ctx) : null;
  const lowered = lowerExprs(ctx, groups, allocated, resize);
  const gridOuter = gridOuterReductions(ctx);
  if (gridOuter.length > 0) lowered.push(gridOuterReduceStmt(ctx, gridOuter));
  const p = scheduled.params;
  const grouped = p.schedulerType === 'inner_outer_persistent' && p.groupInnerReductions ? groupAllreduces(lowered) : lowered;
  const prefetched = p.schedulerType === 'inner_outer_persistent' && p.prefetchNextRow ? prefetchNextRow(grouped) : grouped;
  const hinted = p.schedulerType === 'inner_persistent' && p.evictLastRowParams ? evictLastRowParams(prefetched) : prefetched;
  const hoisted = p.schedulerType === 'inner_persistent' && p.hoistRowParamLoads ? hoistRowParamLoads(hinted) : hinted;
  const barriers = p.schedulerType === 'inner_persistent' && p.singleBarrierAllreduce ? singleBarrierAllreduces(hoisted) : hoisted;
  const bulk =
    p.schedulerType === 'inner_persistent' && p.bulkLoadRows && p.divisibleSplits[0] === true
      ? bulkLoadRows(barriers, rowInputTensors(ctx), p.batchesPerBlockInnerReduction * p.lparams.bdimx * p.unrollFactorInnerReduction, indexLocals)
      : barriers;
  const pipelined =
    p.schedulerType === 'inner_outer_persistent' && p.bulkLoadRows && p.divisibleSplits[0] === true
      ? pipelineBulkRowLoads(bulk, rowInputTensors(ctx), p.batchesPerBlockInnerReduction * p.lparams.bdimx * p.unrollFactorInnerReduction, indexLocals)
      : bulk;
  const reductionBytes = blockReduceSharedMemory([...scalars, ...pipelined], opts.maxThreadsPerBlock);
  const hasBulk = pipelined.some((s) => s.kind === 'BulkLoadIssue');
  const laid = hasBulk ? layoutBulkRowCopies(pipelined, reductionBytes, (c) => c.capacity * dataTypeSize(c.dtype)) : { body: pipelined, bytes: reductionBytes };
  const body = laid.body;
  const minShared = p.schedulerType === 'inner_persistent' ? p.minSharedMemBytes : 0;
  return {
    name: opts.kernelName,
    indexType: ctx.indexType,
    params,
    indexLocals,
    body: [...scalars, ...(resize?.stmts ?? []), ...body],
    maxThreadsPerBlock: opts.maxThreadsPerBlock,
    vectorizeFactor: vectorizeFactorOf(scheduled.params),
    sharedMemBytes: Math.max(laid.bytes, minShared),
    ...(scheduled.params.schedulerType === 'inner_outer_persistent' ? { minBlocksPerSm: scheduled.params.blocksPerSm } : {}),
    deviceGlobals: [...gridReductionGlobals([...scalars, ...body], scheduled.params), ...gridOuterGlobals(body, scheduled.params)],
  };
}
