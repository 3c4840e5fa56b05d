// What the GPU path cannot run yet, found before it runs. Stride-ordered results
// (fd.ops.stride_order, add_output(…, stride_order=…)): the pointwise scheduler writes them
// through their permuted strides; the other schedulers refuse them (scheduler's stride-order.ts),
// so segmentation leaves them to pointwise segments. That works when the stride-ordered tensor is
// the result of an expression a pointwise kernel computes; the result of a reduction, Welford,
// reshape or resize (slice, pad, cat) with a stride order of its own has no scheduler that
// writes it, and is refused here with one reason. Inputs with a stride order are fine (kernels
// read them through their strides).
// Invariant: returns a reason exactly when no GPU scheduler would write some stride-ordered
// tensor of `fusion`.

import type { Expr, Fusion } from '@tsfuser/fusion-ir';
import { permutedAllocationOrder } from '@tsfuser/scheduler';

/** Whether the pointwise scheduler computes the results of `e` (null) or why not. */
function nonPointwise(e: Expr): string | null {
  switch (e.kind) {
    case 'UnaryOp':
    case 'BinaryOp':
    case 'TernaryOp':
    case 'BroadcastOp':
    case 'SqueezeOp':
    case 'ExpandOp':
    case 'LoadStoreOp':
    case 'FullOp':
    case 'IotaOp':
    case 'RNGOp':
    case 'Split':
    case 'Merge':
      return null;
    case 'ReductionOp':
      return `a reduction (${e.op})`;
    case 'WelfordOp':
      return 'a Welford reduction';
    case 'ViewOp':
      return 'a reshape';
    case 'SliceOp':
    case 'PadOp':
    case 'CatOp':
      return `a ${e.kind} (a resize)`;
    case 'SelectOp':
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'ScatterOp':
    case 'IndexPutAccumulateOp':
    case 'EmbeddingFwdOp':
      return `a ${e.kind} (an indexing op)`;
    case 'ScanOp':
    case 'ArgsortOp':
    case 'TopKOp':
      return `a ${e.kind} (a scan or sort: the greedy scheduler)`;
    default: {
      const unreachable: never = e;
      return `an unknown expression ${String(unreachable)}`;
    }
  }
}

/** Why the GPU path cannot run `fusion` (null when it can, as far as this check knows). */
export function gpuRefusal(fusion: Fusion): string | null {
  for (const tv of fusion.allTvs()) {
    if (fusion.inputs.includes(tv) || tv.definition === null) continue;
    const order = permutedAllocationOrder(tv);
    if (order === null) continue;
    const what = nonPointwise(tv.definition);
    if (what !== null) {
      return `T${tv.name} has a stride order (allocation order of dims [${order.join(', ')}]) and is the result of ${what}; the GPU kernels write stride-ordered results only from pointwise ops yet (apply fd.ops.stride_order to a pointwise result instead)`;
    }
  }
  return null;
}
