// Part of `expr-lowering` — allreduce detection (used by reduction lowering and thread predicates). A block
// reduction is an *allreduce* when its result is needed by every thread of the reduced dims:
// some tensor computed from it (through the broadcast back over the row, as in x − max(x) of
// a persistent normalization) iterates a loop position that the reduction reduced over
// threadIdx.x/y. Its BlockReduce then returns the result to every thread (blockAllreduce:
// block reduction + shared-memory broadcast), and tensors computed from it take no thread
// predicate. A plain reduction (its consumers only keep the iteration positions) stays a
// BlockReduce whose result lives in the thread with reduced indices 0.
// Invariant: an allreduce's consumers read the value in the thread that computes them.

import type { TensorView } from '@tsfuser/fusion-ir';
import type { LoweringContext } from './context.js';
import type { LoopGroups } from './loop-groups.js';

/** Reference positions a reduction output reduces over a thread index (threadIdx.x/y). */
function threadReducedPositions(groups: LoopGroups, tv: TensorView): number[] {
  const out: number[] = [];
  const count = groups.loopCount(tv);
  for (let p = 0; p < count; p += 1) {
    const k = groups.kinds[p];
    if ((groups.axisAt(tv, p)?.isReduction() ?? false) && k !== undefined && k.kind === 'parallel' && (k.parallelType === 'TIDx' || k.parallelType === 'TIDy')) out.push(p);
  }
  return out;
}

/** The ReductionOp (and WelfordOp avg) outputs whose block reduction must be an allreduce (see the header). */
export function allreduceTensors(ctx: LoweringContext, groups: LoopGroups): Set<TensorView> {
  const result = new Set<TensorView>();
  for (const e of ctx.fusion.exprs()) {
    if (e.kind !== 'ReductionOp' && e.kind !== 'WelfordOp') continue;
    const r = e.outputs[0];
    if (r === undefined || r.kind !== 'tensorView') continue;
    const positions = threadReducedPositions(groups, r);
    if (positions.length === 0) continue;
    // Walk forward from r; any downstream tensor owning a thread-reduced position needs r everywhere.
    const stack: TensorView[] = e.outputs.filter((o): o is TensorView => o.kind === 'tensorView');
    const seen = new Set<TensorView>();
    let all = false;
    while (stack.length > 0 && !all) {
      const t = stack.pop() as TensorView;
      if (seen.has(t)) continue;
      seen.add(t);
      if (!e.outputs.includes(t) && positions.some((p) => groups.owns(t, p))) all = true;
      for (const u of t.uses) for (const o of u.outputs) if (o.kind === 'tensorView') stack.push(o);
    }
    if (all) result.add(r);
  }
  return result;
}
