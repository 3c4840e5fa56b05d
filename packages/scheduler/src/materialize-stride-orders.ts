// Pre-segmentation pass: stride orders only pointwise kernels write. An output whose allocation
// order permutes its logical dims (fd.ops.stride_order on it, add_output(t, stride_order=…)) must
// be written through permuted strides; only the pointwise scheduler does that, so when such an
// output is the result of an expression another scheduler computes (a reduction, Welford, reshape,
// resize, indexing op, scan or sort), this pass lets that expression write a plain tensor and adds
// a copy (`set`, as nvFuser's pre-segmentation passes insert sets for aliases) that carries the
// stride order; the copy is what the fusion outputs. A stride order on an intermediate that is no
// output only names a layout nothing outside the fusion sees, so it is dropped.
// Invariant: the result has the same inputs and outputs (by position), the same values, and every
// stride-ordered tensor it holds is the result of an expression the pointwise scheduler computes.
// The input fusion is not changed (the pass works on a clone) and is returned as is when nothing
// needs a copy.

import { set, setStrideOrder, type Expr, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import { permutedAllocationOrder } from './stride-order.js';

/** Whether the pointwise scheduler computes the results of `e` (and so writes them in any order). */
export function pointwiseWritable(e: Expr): boolean {
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
      return true;
    case 'ReductionOp':
    case 'WelfordOp':
    case 'ViewOp':
    case 'SliceOp':
    case 'PadOp':
    case 'CatOp':
    case 'SelectOp':
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'ScatterOp':
    case 'IndexPutAccumulateOp':
    case 'EmbeddingFwdOp':
    case 'ScanOp':
    case 'ArgsortOp':
    case 'TopKOp':
    case 'MatmulOp':
    case 'LinearOp':
    case 'ScaledMmaOp':
    case 'GroupedMmaOp':
    case 'SdpaFwdOp':
    case 'SdpaBwdOp':
      return false;
    default: {
      const unreachable: never = e;
      throw new Error(`unknown expression ${String(unreachable)}`);
    }
  }
}

/** The tensors of `fusion` the pass rewrites: computed, stride-ordered, by a non-pointwise expression. */
function needsCopy(fusion: Fusion): TensorView[] {
  return fusion.allTvs().filter((tv) => !fusion.inputs.includes(tv) && tv.definition !== null && !pointwiseWritable(tv.definition) && permutedAllocationOrder(tv) !== null);
}

/** nvFuser's stride_order (order[d] = rank of dim d's stride, rank-1 outermost) of an allocation order (outermost first). */
function strideOrderOf(allocationOrder: readonly number[]): number[] {
  const n = allocationOrder.length;
  const order = new Array<number>(n).fill(0);
  allocationOrder.forEach((d, k) => {
    order[d] = n - 1 - k;
  });
  return order;
}

export function materializeStrideOrders(fusion: Fusion): Fusion {
  if (needsCopy(fusion).length === 0) return fusion;
  const clone = fusion.clone().fusion;
  for (const tv of needsCopy(clone)) {
    const allocationOrder = permutedAllocationOrder(tv) as number[];
    tv.domain.allocation = null;
    tv.domain.contiguity = tv.domain.logical.map((id) => (id.isBroadcast() || id.isReduction() ? null : true));
    if (!clone.outputs.includes(tv)) continue;
    const copy = set(tv);
    setStrideOrder(copy, strideOrderOf(allocationOrder));
    // Every position at which tv is an output now holds the copy.
    while (clone.outputs.includes(tv)) clone.replaceOutput(tv, copy);
  }
  return clone;
}
