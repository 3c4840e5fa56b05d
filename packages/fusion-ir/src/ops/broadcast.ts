// Broadcast: inserts size-1 dims. `broadcast(t, flags)` takes one flag per output dim (true = new
// broadcast dim); `broadcastInDim(t, shape, broadcastDims)` follows jax/nvFuser: input dim i maps
// to output dim broadcastDims[i], the other output dims are new broadcasts, and input dims of
// size 1 mapped to a larger output size are expanded.

import { FusionIrError } from '../ir/errors.js';
import { BroadcastOp } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import { describe } from './operand.js';

export function broadcast(tv: TensorView, isBroadcastDim: readonly boolean[]): TensorView {
  const fusion = tv.fusion;
  const input = tv.domain.logicalNoReductions();
  const kept = isBroadcastDim.filter((f) => !f).length;
  if (kept !== input.length) {
    throw new FusionIrError(
      `broadcast: ${describe(tv)} has ${input.length} dims but the flags [${isBroadcastDim.join(', ')}] keep ${kept}`,
    );
  }
  let next = 0;
  const logical: IterDomain[] = isBroadcastDim.map((isNew) => {
    if (isNew) return fusion.newIterDomain(fusion.index(1), 'Broadcast');
    const src = input[next++] as IterDomain;
    return fusion.newIterDomain(src.extent, src.iterType === 'Broadcast' ? 'Broadcast' : 'Iteration', {
      expandedExtent: src.expandedExtent,
    });
  });
  const out = fusion.newTensorFromDomain(logical, tv.dtype);
  new BroadcastOp(fusion, out, tv, isBroadcastDim);
  return out;
}
