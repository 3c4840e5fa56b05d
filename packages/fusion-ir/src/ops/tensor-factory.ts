// Fusion input tensors, defined the ways nvFuser's frontend allows: by shape with -1 for a
// symbolic extent and 1 for a broadcast dim (other positive sizes become constant extents), with
// per-dim contiguity (null for broadcast dims), expanded broadcast dims (stride 0, any size) and an
// optional stride order (allocation domain). Contiguity here is per LOGICAL dim.

import type { DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import { TensorDomain } from '../ir/tensor-domain.js';
import type { TensorView } from '../ir/tensor-view.js';

export interface TensorSpec {
  shape: readonly number[];
  /** One flag per dim: null for broadcast dims. Defaults: contiguous. A single boolean applies to all dims. */
  contiguity?: readonly (boolean | null)[] | boolean;
  dtype?: DataType;
  /**
   * nvFuser's stride_order: strideOrder[i] is the rank of dim i's stride, rank-1 being the
   * outermost (largest stride). E.g. [0, 1, 2] for a 3-d tensor is channels-last-like reversed.
   */
  strideOrder?: readonly number[];
  /**
   * Dims that are expanded broadcasts (nvFuser: None contiguity on a dim whose shape is not 1):
   * a Broadcast ID of extent 1 whose expanded extent is symbolic (-1) or the static size.
   */
  expanded?: readonly boolean[];
}

export function makeTensor(fusion: Fusion, spec: TensorSpec): TensorView {
  const rank = spec.shape.length;
  if (spec.expanded !== undefined && spec.expanded.length !== rank) {
    throw new FusionIrError(`expanded has ${spec.expanded.length} entries for a tensor of rank ${rank}`);
  }
  const logical: IterDomain[] = spec.shape.map((size, d) => {
    if (spec.expanded?.[d] === true && size !== 1 && Number.isInteger(size) && size >= -1) {
      const expandedExtent = size === -1 ? fusion.newSymbolicScalar('Index') : fusion.index(size);
      return fusion.newIterDomain(fusion.index(1), 'Broadcast', { expandedExtent });
    }
    if (size === -1) return fusion.newIterDomain(fusion.newSymbolicScalar('Index'), 'Iteration');
    if (size === 1) return fusion.newIterDomain(fusion.index(1), 'Broadcast');
    if (Number.isInteger(size) && size >= 0) return fusion.newIterDomain(fusion.index(size), 'Iteration');
    throw new FusionIrError(`tensor shape entry ${d} is ${size}; expected -1 (symbolic), 1 (broadcast) or a size >= 0`);
  });
  const contiguity = resolveContiguity(spec, logical);
  let allocation: IterDomain[] | null = null;
  if (spec.strideOrder && spec.strideOrder.length > 0) {
    const order = spec.strideOrder;
    if (order.length !== rank || [...order].sort((a, b) => a - b).some((v, i) => v !== i)) {
      throw new FusionIrError(`stride_order [${order.join(', ')}] is not a permutation of 0..${rank - 1}`);
    }
    // Outermost allocation dim has the highest stride rank.
    allocation = logical
      .map((id, d) => ({ id, rank: order[d] as number }))
      .sort((a, b) => b.rank - a.rank)
      .map((e) => e.id);
  }
  return fusion.newTensorView(new TensorDomain({ logical, allocation, contiguity }), spec.dtype ?? 'Float');
}

function resolveContiguity(spec: TensorSpec, logical: readonly IterDomain[]): (boolean | null)[] {
  const c = spec.contiguity;
  if (c === undefined || typeof c === 'boolean') {
    const flag = c ?? true;
    return logical.map((id) => (id.isBroadcast() ? null : flag));
  }
  if (c.length !== logical.length) {
    throw new FusionIrError(`contiguity has ${c.length} entries for a tensor of rank ${logical.length}`);
  }
  return logical.map((id, d) => {
    const flag = c[d] ?? null;
    if (id.isBroadcast()) return null;
    if (flag === null) throw new FusionIrError(`contiguity[${d}] is None but dim ${d} is not a broadcast (size 1)`);
    return flag;
  });
}

/** A symbolic input of the given rank (every dim -1), contiguous. */
export function makeSymbolicTensor(fusion: Fusion, rank: number, dtype: DataType = 'Float'): TensorView {
  return makeTensor(fusion, { shape: new Array<number>(rank).fill(-1), dtype });
}
