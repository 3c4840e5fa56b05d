// Acceptors: "would this scheduler take this (sub)fusion, and if not, why" — the can-schedule
// half of a scheduler, which is all segmentation needs. Two sets:
//
//   nvFuserAcceptors()          nvFuser's rules, in the one priority list's order
//                               (scheduler-priority.ts): what nvFuser would make of a fusion,
//                               normalization included, even where tsfuser cannot compile the
//                               segment yet.
//   registryAcceptors(registry) the canSchedule of each scheduler in a SchedulerRegistry: what
//                               tsfuser compiles today (the runtime segments with these).
//
// Both implement SchedulerPicker (`tryPick`), the one method the segmenter calls, as
// SchedulerRegistry does. Every refusal is a concrete reason naming tensors.

import type { Fusion } from '@tsfuser/fusion-ir';
import type { SchedulerType } from '../heuristic-params.js';
import { schedulerPriority } from '../scheduler-priority.js';
import { canScheduleExprEvalViews } from '../expr-eval/can-schedule.js';
import { canSchedulePointwise } from '../pointwise/can-schedule.js';
import { evaluateExtent, type RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult, SchedulerRegistry } from '../scheduler.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import { tensorExprs, tvName } from './fusion-graph.js';
import { GreedyScheduler, NO_SCAN_OR_SORT } from '../greedy/index.js';
import { canScheduleNormalization, canScheduleReductionPattern, connectedGraphRefusal } from './normalization.js';
import { MatmulScheduler } from '../matmul/scheduler.js';
import { NO_MATMUL } from '../matmul/epilogue-pattern.js';
import { AttentionScheduler } from '../attention/scheduler.js';
import { NO_ATTENTION } from '../attention/segment-analysis.js';

export interface Acceptor {
  readonly type: SchedulerType;
  accepts(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache): CanScheduleResult;
}

export interface Rejection {
  type: SchedulerType;
  reason: string;
}

/**
 * What the segmenter asks of a scheduler set (SchedulerRegistry has the same shape): the
 * accepting scheduler and the analyses acceptance computed (`cache` when it describes this
 * fusion and info), which the segment plan carries on to the heuristics.
 */
export interface SchedulerPicker {
  tryPick(
    fusion: Fusion,
    runtimeInfo: RuntimeInfo,
    cache?: HeuristicDataCache,
  ): { scheduler: { readonly type: SchedulerType } | null; rejected: readonly Rejection[]; analysis: HeuristicDataCache };
}

/** Tries acceptors in order; the first that accepts takes the fusion. */
export class AcceptorSet implements SchedulerPicker {
  constructor(readonly acceptors: readonly Acceptor[]) {}

  tryPick(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): { scheduler: Acceptor | null; rejected: Rejection[]; analysis: HeuristicDataCache } {
    const analysis = HeuristicDataCache.for(fusion, runtimeInfo, cache);
    const rejected: Rejection[] = [];
    for (const a of this.acceptors) {
      let r: CanScheduleResult;
      try {
        r = a.accepts(fusion, runtimeInfo, analysis);
      } catch (err) {
        // A predicate that cannot even evaluate the sizes refuses with what went wrong.
        r = { ok: false, reason: (err as Error).message };
      }
      if (r.ok) return { scheduler: a, rejected, analysis };
      rejected.push({ type: a.type, reason: r.reason });
    }
    return { scheduler: null, rejected, analysis };
  }
}

/** nvFuser's no_op: nothing to compute (no tensor expressions, or every output is empty). */
export function canScheduleNoOp(fusion: Fusion, ri: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, ri)): CanScheduleResult {
  if (tensorExprs(fusion).length === 0) return { ok: true };
  const bindings = cache.bindings();
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') return { ok: false, reason: `scalar output ${tvName(o)} is computed` };
    const numel = o.domain.logicalNoReductions().reduce((acc, id) => acc * evaluateExtent(id.logicalExtent(), bindings), 1);
    if (numel > 0) return { ok: false, reason: `output ${tvName(o)} has ${numel} elements to compute` };
  }
  return { ok: true };
}

/**
 * nvFuser's expr_eval takes matmul / linear / sdpa ops (ATen calls; tsfuser fusions have none)
 * and fusions whose every output is pointer arithmetic on an input (views: broadcast, squeeze,
 * expand, permute, slice, view-compatible reshape) — the ExprEvalScheduler's rule.
 */
export function canScheduleExprEval(fusion: Fusion, ri: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
  return canScheduleExprEvalViews(fusion, ri, HeuristicDataCache.for(fusion, ri, cache));
}

/** canSchedulePointwise plus nvFuser's connected-graph rule. */
export function canSchedulePointwiseConnected(fusion: Fusion, ri: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
  const r = canSchedulePointwise(fusion, ri, HeuristicDataCache.for(fusion, ri, cache));
  if (!r.ok) return r;
  const disconnected = connectedGraphRefusal(fusion);
  return disconnected === null ? r : { ok: false, reason: disconnected };
}

/** tsfuser's greedy scheduler takes one scan or sort per segment (nvFuser's also fuses pointwise work around it). */
const greedyScheduler = new GreedyScheduler();

/** nvFuser hands matmul segments to ATen; tsfuser's matmul scheduler to cuBLASLt (one GEMM + its fusable epilogue). */
const matmulScheduler = new MatmulScheduler();

/** nvFuser hands sdpfa_fwd / sdpfa_bwd to ATen (expr_eval); tsfuser generates flash-attention kernels for a segment of one. */
const attentionScheduler = new AttentionScheduler();

const acceptor = (type: SchedulerType, accepts: (f: Fusion, ri: RuntimeInfo, cache: HeuristicDataCache) => CanScheduleResult): Acceptor => ({ type, accepts });

/**
 * nvFuser's rule for `type`, or null where the set has none (transpose: nvFuser's pointwise
 * rule already takes what tsfuser's transpose scheduler takes).
 */
function nvFuserAcceptor(type: SchedulerType): Acceptor | null {
  switch (type) {
    case 'expr_eval': return acceptor(type, canScheduleExprEval);
    case 'no_op': return acceptor(type, canScheduleNoOp);
    case 'matmul': return acceptor(type, (f, ri, cache) => matmulScheduler.canSchedule(f, ri, cache));
    case 'attention': return acceptor(type, (f, ri, cache) => attentionScheduler.canSchedule(f, ri, cache));
    case 'reduction': return acceptor(type, canScheduleReductionPattern);
    case 'pointwise': return acceptor(type, canSchedulePointwiseConnected);
    case 'inner_persistent':
    case 'outer_persistent':
    case 'inner_outer_persistent': return acceptor(type, (f, ri, cache) => canScheduleNormalization(type, f, ri, cache));
    case 'greedy': return acceptor(type, (f, ri) => greedyScheduler.canSchedule(f, ri));
    case 'transpose': return null;
    default: {
      const unreachable: never = type;
      throw new Error(`unknown scheduler type ${String(unreachable)}`);
    }
  }
}

/** nvFuser's schedulers in the one priority list's order (scheduler-priority.ts). */
export function nvFuserAcceptors(): AcceptorSet {
  return new AcceptorSet(schedulerPriority.map(nvFuserAcceptor).filter((a): a is Acceptor => a !== null));
}

/** The schedulers of `registry`, as acceptors (what tsfuser compiles today). */
export function registryAcceptors(registry: SchedulerRegistry): AcceptorSet {
  return new AcceptorSet(registry.schedulers.map((s) => acceptor(s.type, (f, ri, cache) => s.canSchedule(f, ri, cache))));
}

/**
 * One line for a list of refusals: schedulers refusing for the same reason share it
 * ("reduction, inner_persistent: …"), and expr_eval / no_op are left out when a kernel
 * scheduler also refused (they never take compute, so their refusal explains nothing), as is
 * greedy's refusal of a fusion without a scan or sort, matmul's of a fusion without a GEMM, and
 * attention's of a fusion without an sdpfa op.
 */
export function summarizeRejections(rejected: readonly Rejection[]): string {
  const informative = rejected.filter(
    (r) => r.type !== 'expr_eval' && r.type !== 'no_op' && !(r.type === 'greedy' && r.reason === NO_SCAN_OR_SORT) && !(r.type === 'matmul' && r.reason === NO_MATMUL) && !(r.type === 'attention' && r.reason === NO_ATTENTION),
  );
  const shown = informative.length > 0 ? informative : rejected;
  const byReason = new Map<string, SchedulerType[]>();
  for (const r of shown) {
    const types = byReason.get(r.reason);
    if (types === undefined) byReason.set(r.reason, [r.type]);
    else types.push(r.type);
  }
  return [...byReason].map(([reason, types]) => `${types.join(', ')}: ${reason}`).join('; ');
}
