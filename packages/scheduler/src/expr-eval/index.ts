// The expr_eval scheduler (nvFuser's ExprEvalScheduler for pointer-arithmetic outputs): a
// fusion or segment whose outputs are all views of its inputs gets no kernel. Its parameters
// say so; `schedule` refuses (there is nothing to lower), and the executor computes each
// output's sizes, strides and offset with `viewLayouts` and returns views of the input buffers.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { ExprEvalParams, HeuristicParams } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult, ScheduledFusion, Scheduler } from '../scheduler.js';
import { canScheduleExprEvalViews } from './can-schedule.js';
import { stridedOutputRefusal } from '../stride-order.js';

export class ExprEvalScheduler implements Scheduler {
  readonly type = 'expr_eval' as const;

  canSchedule(fusion: Fusion, runtimeInfo: RuntimeInfo, cache?: HeuristicDataCache): CanScheduleResult {
    const strided = stridedOutputRefusal(fusion, 'expr_eval');
    return strided.ok ? canScheduleExprEvalViews(fusion, runtimeInfo, HeuristicDataCache.for(fusion, runtimeInfo, cache)) : strided;
  }

  computeHeuristics(): ExprEvalParams {
    return { schedulerType: 'expr_eval', tag: 'Expr eval heuristics' };
  }

  schedule(_fusion: Fusion, params: HeuristicParams): ScheduledFusion {
    throw new SchedulingError(`an ${params.schedulerType} fusion has no kernel to schedule: its outputs are views of its inputs (the executor makes them)`);
  }
}
