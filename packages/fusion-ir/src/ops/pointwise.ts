// Output tensors of pointwise ops. Operands must have the same rank (broadcasting is explicit in
// Fusion IR, via broadcast / broadcastInDim); each output dim is an Iteration ID taking the extent
// of the first operand whose dim is not a broadcast, or a Broadcast ID when all are.

import type { DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import { broadcast } from './broadcast.js';
import { checkComplexPointwise } from './complex-support.js';
import { describe, type TensorOrScalar } from './operand.js';

/**
 * Zero-dim tensors combine with tensors of any rank (as in PyTorch and nvFuser): they are
 * broadcast to the highest operand rank with an explicit BroadcastOp. Other rank differences
 * stay errors (broadcasting is explicit in Fusion IR).
 */
export function broadcastZeroDimOperands<T extends readonly TensorOrScalar[]>(operands: T): T {
  const rank = Math.max(0, ...operands.map((o) => (o.kind === 'tensorView' ? o.rank() : 0)));
  if (rank === 0) return operands;
  return operands.map((o) =>
    o.kind === 'tensorView' && o.rank() === 0 ? broadcast(o, new Array<boolean>(rank).fill(true)) : o,
  ) as unknown as T;
}

export function pointwiseOutput(op: string, fusion: Fusion, operands: readonly TensorOrScalar[], dtype: DataType): TensorView | null {
  checkComplexPointwise(op, operands);
  const tensors = operands.filter((o): o is TensorView => o.kind === 'tensorView');
  if (tensors.length === 0) return null;
  const first = tensors[0] as TensorView;
  const rank = first.rank();
  for (const t of tensors) {
    if (t.rank() !== rank) {
      throw new FusionIrError(
        `${op}: operands have different ranks: ${tensors.map(describe).join(' vs ')}; broadcast explicitly with broadcastInDim`,
      );
    }
  }
  const domains = tensors.map((t) => t.domain.logicalNoReductions());
  const logical: IterDomain[] = [];
  for (let d = 0; d < rank; d += 1) {
    const ids = domains.map((dom) => dom[d] as IterDomain);
    const concrete = ids.find((id) => !id.isBroadcast());
    if (concrete !== undefined) {
      checkCompatibleExtents(op, tensors, ids, d);
      logical.push(fusion.newIterDomain(concrete.extent, 'Iteration'));
    } else {
      const expanded = ids.find((id) => id.expandedExtent !== null);
      logical.push(
        fusion.newIterDomain(fusion.index(1), 'Broadcast', { expandedExtent: expanded?.expandedExtent ?? null }),
      );
    }
  }
  return fusion.newTensorFromDomain(logical, dtype);
}

/** Constant extents that disagree can never run; symbolic ones are checked at execution. */
function checkCompatibleExtents(op: string, tensors: readonly TensorView[], ids: readonly IterDomain[], dim: number): void {
  let known: number | null = null;
  for (const id of ids) {
    if (id.isBroadcast()) continue;
    const c = id.extent.constNumber();
    if (c === null) continue;
    if (known !== null && known !== c) {
      throw new FusionIrError(`${op}: dim ${dim} has sizes ${known} and ${c} in ${tensors.map(describe).join(', ')}`);
    }
    known = c;
  }
}
