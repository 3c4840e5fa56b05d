// The lowering pipeline — the only place that runs lowering passes, in this order:
// core lowering (always):
//   kernel-signature  parameters and names of extents / scalar inputs; fusion scalar math
//                     lowered to ScalarComputes ahead of the loops
//   loop-nest         the loop map over (tensor, position) (loop-groups.ts), then loops and
//                     placed (pending) expressions
//   allocation        local buffers at their compute-at loops
//   expr-lowering     indexing + predicates → LoadStore / Compute statements; reductions
//                     (init / serial update / block reduction, thread predicates);
//                     slice / pad / cat and shifted accesses through resize.ts
//   grid-outer-step   inner-outer persistent kernels end with one GridOuterReduce
// then the optimisation passes of passes.ts that the scheduled fusion's lowering options enable
// (group-iteration-lanes, group-allreduce, row-prefetch, evict-last, hoist-row-params, allreduce-barriers,
// bulk-row-loads, bulk-row-pipeline, transpose-smem-tile), then shared-memory-layout (bulk row buffers after the
// reductions' shared memory), then fast-division where the options enable it (divisions by run-time
// extents through host-computed magic numbers; not an observable pass). `LowerOptions.observe` sees the statements after every named pass
// (the kernel_ir dump after a pass, and the kernel IR verifier in tests).

import { dataTypeSize } from '@tsfuser/fusion-ir';
import type { LoopNestLoweringOptions, ScheduledFusion } from '@tsfuser/scheduler';
import { LoweringError } from '../errors.js';
import { allStmts } from '../kernel-ir/effects.js';
import type { Kernel, KernelParam, Stmt } from '../kernel-ir/nodes.js';
import { insertAllocations } from './allocation.js';
import { makeContext } from './context.js';
import { lowerExprs, lowerScalarExprs } from './expr-lowering.js';
import { buildSignature, extentExpr } from './kernel-signature.js';
import { LoopGroups } from './loop-groups.js';
import { buildLoopNest } from './loop-nest.js';
import { gridOuterReduceStmt, gridOuterReductions } from './grid-outer-reduction.js';
import { layoutBulkRowCopies } from './bulk-row-loads.js';
import { enabledPasses } from './passes.js';
import { fastDivisions } from './fast-division.js';
import { ResizeLowering } from './resize.js';

export interface LowerOptions {
  kernelName: string;
  maxThreadsPerBlock: number;
  /**
   * Called after every named pass (passes.ts LOWERING_PASS_NAMES; optimisations only when
   * enabled) with the kernel's statements at that point (the scalar math first) and its
   * parameters. For dumps and the verifier; must not mutate.
   */
  observe?: (pass: string, body: readonly Stmt[], params: readonly KernelParam[]) => void;
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
    // Lanes (iteration vectors) reduce side by side: one slot per thread and lane.
    if (s.kind === 'BlockReduce') bytes = Math.max(bytes, threads * dataTypeSize(s.accDtype) * (s.grouped === undefined && s.oneBarrierArea === undefined ? 1 : 2) * (s.lanes ?? 1));
    else if (s.kind === 'GridReduce') bytes = Math.max(bytes, threads * dataTypeSize(s.accDtype) * (s.lanes ?? 1));
    else if (s.kind === 'GridOuterReduce') bytes = Math.max(bytes, threads * dataTypeSize(s.accDtype));
    else if (s.kind === 'BlockWelford' || s.kind === 'GridWelford') bytes = Math.max(bytes, threads * (2 * dataTypeSize(s.accDtype) + WELFORD_COUNT_BYTES));
  }
  return bytes;
}

/** The static work buffers and semaphores of a grid reduction (or grid Welford), sized by the heuristics. */
function gridReductionGlobals(stmts: readonly Stmt[], o: LoopNestLoweringOptions): Kernel['deviceGlobals'] {
  const grids = allStmts(stmts).filter((s): s is Extract<Stmt, { kind: 'GridReduce' | 'GridWelford' }> => s.kind === 'GridReduce' || s.kind === 'GridWelford');
  const first = grids[0];
  if (first === undefined) return [];
  const sized = o.gridReductionBuffers;
  if (sized === null || grids.length > 1) throw new LoweringError('a grid reduction needs the reduction scheduler and only one per kernel');
  const slots = Math.max(1, sized.workSlots);
  const semaphores = { name: first.semaphores, ctype: 'unsigned int' as const, size: Math.max(1, sized.semaphores) };
  // The work buffer holds `slots` partials of the accumulation type in 8-byte words (a ComplexDouble
  // partial takes two; it overran a one-word-per-slot buffer: NaN sums on the H100).
  if (first.kind === 'GridReduce') return [{ name: first.work, ctype: 'double', size: slots * Math.max(1, Math.ceil(dataTypeSize(first.accDtype) / 8)) }, semaphores];
  return [
    { name: first.work.avg, ctype: 'double', size: slots },
    { name: first.work.varSum, ctype: 'double', size: slots },
    { name: first.work.n, ctype: 'long long', size: slots },
    semaphores,
  ];
}

/** Work buffers (gridDim.x × columns partials each) and the barrier semaphore of the grid outer reductions. */
function gridOuterGlobals(stmts: readonly Stmt[], o: LoopNestLoweringOptions): Kernel['deviceGlobals'] {
  const step = allStmts(stmts).find((s): s is Extract<Stmt, { kind: 'GridOuterReduce' }> => s.kind === 'GridOuterReduce');
  if (step === undefined) return [];
  const sized = o.gridOuterBuffers;
  if (sized === null) throw new LoweringError('a grid outer reduction needs the inner-outer persistent scheduler (it sizes the work buffers)');
  const ctype = step.accDtype === 'Double' ? ('double' as const) : ('float' as const);
  return [
    ...step.reductions.map((r) => ({ name: r.work, ctype, size: Math.max(1, sized.workSlots) })),
    { name: step.semaphore, ctype: 'unsigned int' as const, size: 1 },
  ];
}

export function lowerFusion(scheduled: ScheduledFusion, opts: LowerOptions): Kernel {
  const o = scheduled.lowering;
  // compileFusion emits greedy kernels from their parameters (emit/greedy/); no loop nest.
  if (o.kind === 'greedy') throw new LoweringError('a greedy (scan or sort) segment is emitted from its parameters, not lowered through a loop nest');
  const ctx = makeContext(scheduled.fusion, scheduled.reference, scheduled.divisibleSplits, o.indexType, extentExpr, scheduled.analyses, opts.kernelName);
  ctx.blockDims = { TIDx: scheduled.params.lparams.bdimx, TIDy: scheduled.params.lparams.bdimy };
  const { params, indexLocals } = buildSignature(ctx);
  const scalars = lowerScalarExprs(ctx);
  const observe = (pass: string, body: readonly Stmt[]): void => opts.observe?.(pass, [...scalars, ...body], params);
  observe('kernel-signature', []);
  // Created before the loop nest: a reduction over a sliced dim loops to the slice's length,
  // an extent of no kernel argument, computed at kernel start (resize.ts).
  const spaces = scheduled.analyses.indexSpaces();
  const resize = spaces === null ? null : new ResizeLowering(ctx, spaces);
  if (resize !== null) ctx.extent = (s) => resize.extentOf(s);
  const groups = new LoopGroups(ctx);
  const nest = buildLoopNest(ctx, groups);
  observe('loop-nest', nest);
  const allocated = insertAllocations(ctx, groups, nest);
  observe('allocation', allocated);
  const lowered = lowerExprs(ctx, groups, allocated, resize);
  observe('expr-lowering', lowered);
  const gridOuter = gridOuterReductions(ctx);
  if (gridOuter.length > 0) lowered.push(gridOuterReduceStmt(ctx, gridOuter));
  observe('grid-outer-step', lowered);
  let optimized: Stmt[] = lowered;
  for (const pass of enabledPasses(o)) {
    optimized = pass.run(optimized, { ctx, options: o, indexLocals });
    observe(pass.name, optimized);
  }
  const reductionBytes = blockReduceSharedMemory([...scalars, ...optimized], opts.maxThreadsPerBlock);
  const hasBulk = optimized.some((s) => s.kind === 'BulkLoadIssue');
  const laid = hasBulk ? layoutBulkRowCopies(optimized, reductionBytes, (c) => c.capacity * dataTypeSize(c.dtype)) : { body: optimized, bytes: reductionBytes };
  const body = laid.body;
  observe('shared-memory-layout', body);
  const full = [...scalars, ...(resize?.stmts ?? []), ...body];
  // Last: it renames divisions of the finished tree (nothing after it compares index texts).
  const fast = o.fastDivision && ctx.indexType === 'Int32' ? fastDivisions(full, indexLocals, params) : { body: full, divisors: [] };
  return {
    name: opts.kernelName,
    indexType: ctx.indexType,
    params,
    indexLocals,
    divisors: fast.divisors,
    body: fast.body,
    maxThreadsPerBlock: opts.maxThreadsPerBlock,
    vectorizeFactor: o.vectorizeFactor,
    sharedMemBytes: Math.max(laid.bytes, o.minSharedMemBytes),
    ...(o.minBlocksPerSm === null ? {} : { minBlocksPerSm: o.minBlocksPerSm }),
    deviceGlobals: [...gridReductionGlobals([...scalars, ...body], o), ...gridOuterGlobals(body, o)],
  };
}
