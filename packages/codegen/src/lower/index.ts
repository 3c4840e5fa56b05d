// The lowering pipeline — the only place that knows the pass order:
//   1. kernel-signature  parameters and names of extents / scalar inputs
//   2. loop-groups       the loop map over (tensor, position)
//   3. loop-nest         loops and placed (pending) expressions
//   4. allocation        local buffers at their compute-at loops
//   5. expr-lowering     indexing + predicates → LoadStore / Compute statements; reductions
//                        (init / serial update / block reduction, thread predicates)
// plus fusion scalar math lowered to ScalarComputes ahead of the loops.

import { dataTypeSize } from '@tsfuser/fusion-ir';
import type { HeuristicParams, ScheduledFusion } from '@tsfuser/scheduler';
import { LoweringError } from '../errors.js';
import type { Kernel, Stmt } from '../kernel-ir/nodes.js';
import { insertAllocations } from './allocation.js';
import { makeContext } from './context.js';
import { lowerExprs, lowerScalarExprs } from './expr-lowering.js';
import { buildSignature, extentExpr } from './kernel-signature.js';
import { LoopGroups } from './loop-groups.js';
import { buildLoopNest } from './loop-nest.js';

export interface LowerOptions {
  kernelName: string;
  maxThreadsPerBlock: number;
}

function vectorizeFactorOf(p: HeuristicParams): number {
  switch (p.schedulerType) {
    case 'pointwise':
      return p.vectorizationFactor;
    case 'reduction':
      return p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1;
    case 'inner_persistent':
      return p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1;
    case 'outer_persistent':
      return 1; // no vectorization yet (one kept element per thread)
    default: {
      const unreachable: never = p;
      throw new Error(`unknown scheduler parameters ${String(unreachable)}`);
    }
  }
}

/** Dynamic shared memory of the block reductions: one accumulator per thread of the block. */
function blockReduceSharedMemory(stmts: readonly Stmt[], threads: number): number {
  let bytes = 0;
  const visit = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.kind === 'ForLoop') visit(s.body);
      else if (s.kind === 'IfThenElse') {
        visit(s.then);
        visit(s.else);
      } else if (s.kind === 'BlockReduce' || s.kind === 'GridReduce') bytes = Math.max(bytes, threads * dataTypeSize(s.accDtype));
    }
  };
  visit(stmts);
  return bytes;
}

/** The static work buffer and semaphores of a grid reduction, sized by the heuristics. */
function gridReductionGlobals(stmts: readonly Stmt[], p: HeuristicParams): Kernel['deviceGlobals'] {
  const grids: Extract<Stmt, { kind: 'GridReduce' }>[] = [];
  const visit = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.kind === 'ForLoop') visit(s.body);
      else if (s.kind === 'IfThenElse') {
        visit(s.then);
        visit(s.else);
      } else if (s.kind === 'GridReduce') grids.push(s);
    }
  };
  visit(stmts);
  const first = grids[0];
  if (first === undefined) return [];
  if (p.schedulerType !== 'reduction' || grids.length > 1) throw new LoweringError('a grid reduction needs the reduction scheduler and only one per kernel');
  return [
    { name: first.work, ctype: 'double', size: Math.max(1, p.gridReductionWorkSlots) },
    { name: first.semaphores, ctype: 'unsigned int', size: Math.max(1, p.gridReductionSemaphores) },
  ];
}

export function lowerFusion(scheduled: ScheduledFusion, opts: LowerOptions): Kernel {
  const ctx = makeContext(scheduled.fusion, scheduled.reference, scheduled.divisibleSplits, scheduled.params.indexType, extentExpr, opts.kernelName);
  const { params, indexLocals } = buildSignature(ctx);
  const scalars = lowerScalarExprs(ctx);
  const groups = new LoopGroups(ctx);
  const nest = buildLoopNest(ctx, groups);
  const allocated = insertAllocations(ctx, groups, nest);
  const body = lowerExprs(ctx, groups, allocated);
  return {
    name: opts.kernelName,
    indexType: ctx.indexType,
    params,
    indexLocals,
    body: [...scalars, ...body],
    maxThreadsPerBlock: opts.maxThreadsPerBlock,
    vectorizeFactor: vectorizeFactorOf(scheduled.params),
    sharedMemBytes: blockReduceSharedMemory([...scalars, ...body], opts.maxThreadsPerBlock),
    deviceGlobals: gridReductionGlobals([...scalars, ...body], scheduled.params),
  };
}
