// Broadcast: inserts size-1 dims. `broadcast(t, flags)` takes one flag per output dim (true = new
// broadcast dim); `broadcastInDim(t, shape, broadcastDims)` follows jax/nvFuser: input dim i maps
// to output dim broadcastDims[i], the other output dims are new broadcasts, and input dims of
// size 1 mapped to a larger output size are expanded.

import { FusionIrError } from '../ir/errors.js';
import { BroadcastOp } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { expand } from './alias.js';
import { describe } from './operand.js';
import { sizesText, toExtent, type SizeOperand } from './shape.js';

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

/**
 * broadcastInDim(tv, outputShape, broadcastDims) — jax.lax.broadcast_in_dim / nvFuser's
 * broadcast_in_dim: input dim i becomes output dim broadcastDims[i] (strictly increasing); output
 * dims not listed are new broadcasts; an input broadcast dim, or a new dim, whose output size is
 * not 1 is expanded to it (ExpandOp). An input dim that is not a broadcast must keep its size.
 * A negative entry of broadcastDims counts from the end of the output (-1 the last dim).
 */
export function broadcastInDim(
  tv: TensorView,
  outputShape: readonly SizeOperand[],
  givenDims: readonly number[],
): TensorView {
  const fusion = tv.fusion;
  const input = tv.domain.logicalNoReductions();
  const outRank = outputShape.length;
  // A negative dim counts from the end of the output, as nvFuser's broadcast_in_dim wraps it
  // (wrapDim: AlphaFold3's definitions pass broadcast_dims=[-1]).
  const broadcastDims = givenDims.map((d) => (Number.isInteger(d) && d < 0 && d >= -outRank ? d + outRank : d));
  if (broadcastDims.length !== input.length) {
    throw new FusionIrError(
      `broadcastInDim: ${describe(tv)} has rank ${input.length} but broadcastDims [${givenDims.join(', ')}] has ${givenDims.length} entries`,
    );
  }
  broadcastDims.forEach((d, i) => {
    if (!Number.isInteger(d) || d < 0 || d >= outRank || (i > 0 && d <= (broadcastDims[i - 1] as number))) {
      throw new FusionIrError(
        `broadcastInDim: broadcastDims [${givenDims.join(', ')}] must be increasing dims of the rank-${outRank} output, negative ones counted from its end (input ${describe(tv)})`,
      );
    }
  });
  const extents = outputShape.map((s) => toExtent(fusion, 'broadcastInDim', s));
  broadcastDims.forEach((od, i) => {
    const id = input[i] as IterDomain;
    const want = (extents[od] as Scalar).constNumber();
    const have = id.logicalExtent().constNumber();
    if (!id.isBroadcast() && want !== null && have !== null && want !== have) {
      throw new FusionIrError(
        `broadcastInDim: dim ${i} of ${describe(tv)} has size ${have} but output dim ${od} has size ${want} (output shape ${sizesText(extents)})`,
      );
    }
  });
  const flags = Array.from({ length: outRank }, (_, d) => !broadcastDims.includes(d));
  const b = flags.some((f) => f) ? broadcast(tv, flags) : tv;
  const bIds = b.domain.logicalNoReductions();
  const needsExpand = bIds.some((id, d) => id.isBroadcast() && (extents[d] as Scalar).constNumber() !== 1 && id.expandedExtent !== extents[d]);
  if (!needsExpand) return b;
  return expand(b, bIds.map((id, d) => (id.isBroadcast() ? (extents[d] as Scalar) : -1)));
}
