// Indexing expressions of the Fusion IR (nvFuser's SelectOp, IndexSelectOp, GatherOp, ScatterOp,
// IndexPutAccumulateOp, EmbeddingFwdOp): tensors read or written at positions that another
// tensor (or a scalar) holds. Inputs are ordered as nvFuser orders them; the "lookup" tensor is
// always input 0 and the index input 1 (EmbeddingFwdOp: input 0 is the index, 1 the weight).
// The ops that build them and their shape rules: ops/indexing.ts; their values: eval/indexing.ts.

import type { Fusion } from './fusion.js';
import { ExprBase } from './expr.js';
import type { Scalar } from './scalar.js';
import type { TensorView } from './tensor-view.js';

/** out = lookup.select(dim, index): dim `dim` dropped, read at the scalar `index` (negative from the end, as torch.select). */
export class SelectOp extends ExprBase {
  readonly kind = 'SelectOp' as const;
  constructor(fusion: Fusion, out: TensorView, lookup: TensorView, readonly dim: number, index: Scalar) {
    super(fusion, [lookup, index], [out]);
  }
  lookupTv(): TensorView {
    return this.inputs[0] as TensorView;
  }
  indexScalar(): Scalar {
    return this.inputs[1] as Scalar;
  }
}

/**
 * torch.index_select: out[…, i, …] = lookup[…, index[i], …] along `dim`. The index input is the
 * 1-D index broadcast to the lookup's rank (its dim `dim` iterates, the others are broadcasts),
 * as nvFuser's maybeBroadcastIndexTv makes it.
 */
export class IndexSelectOp extends ExprBase {
  readonly kind = 'IndexSelectOp' as const;
  constructor(fusion: Fusion, out: TensorView, lookup: TensorView, readonly dim: number, index: TensorView) {
    super(fusion, [lookup, index], [out]);
  }
  lookupTv(): TensorView {
    return this.inputs[0] as TensorView;
  }
  indexTv(): TensorView {
    return this.inputs[1] as TensorView;
  }
}

/**
 * torch.gather (exactSizes false: index extents ≤ lookup extents off `dim`) and take_along_axis
 * (exactSizes true: equal extents off `dim`, broadcasts allowed): out has the index's shape and
 * out[i…, j, k…] = lookup[i…, index[i…, j, k…], k…].
 */
export class GatherOp extends ExprBase {
  readonly kind = 'GatherOp' as const;
  constructor(fusion: Fusion, out: TensorView, lookup: TensorView, readonly dim: number, index: TensorView, readonly exactSizes: boolean) {
    super(fusion, [lookup, index], [out]);
  }
  lookupTv(): TensorView {
    return this.inputs[0] as TensorView;
  }
  indexTv(): TensorView {
    return this.inputs[1] as TensorView;
  }
}

/**
 * torch.scatter: out = self with out[i…, index[i…, j, k…], k…] = src[i…, j, k…] for every
 * element of index (src a tensor at least as large as index, or a scalar).
 */
export class ScatterOp extends ExprBase {
  readonly kind = 'ScatterOp' as const;
  constructor(fusion: Fusion, out: TensorView, self: TensorView, readonly dim: number, index: TensorView, src: TensorView | Scalar) {
    super(fusion, [self, index, src], [out]);
  }
  selfTv(): TensorView {
    return this.inputs[0] as TensorView;
  }
  indexTv(): TensorView {
    return this.inputs[1] as TensorView;
  }
  src(): TensorView | Scalar {
    return this.inputs[2] as TensorView | Scalar;
  }
}

/** index_put(acc, [index], value, accumulate=True) with a 1-D index of dim 0: out = acc; out[index[m], …] += value[m, …]. */
export class IndexPutAccumulateOp extends ExprBase {
  readonly kind = 'IndexPutAccumulateOp' as const;
  constructor(fusion: Fusion, out: TensorView, acc: TensorView, index: TensorView, value: TensorView) {
    super(fusion, [acc, index, value], [out]);
  }
  accTv(): TensorView {
    return this.inputs[0] as TensorView;
  }
  indexTv(): TensorView {
    return this.inputs[1] as TensorView;
  }
  valueTv(): TensorView {
    return this.inputs[2] as TensorView;
  }
}

/**
 * torch.nn.functional.embedding forward: out[i…, :] = weight[input[i…], :]. Inputs as nvFuser:
 * input, weight, norm_type, scale_grad_by_freq, sparse, then padding_idx and max_norm when given
 * (padding_idx and the last three only matter to the backward pass; max_norm is refused by the op).
 */
export class EmbeddingFwdOp extends ExprBase {
  readonly kind = 'EmbeddingFwdOp' as const;
  constructor(
    fusion: Fusion,
    out: TensorView,
    input: TensorView,
    weight: TensorView,
    readonly normType: Scalar,
    readonly scaleGradByFreq: Scalar,
    readonly sparse: Scalar,
    readonly paddingIdx: Scalar | null,
    readonly maxNorm: Scalar | null,
  ) {
    super(
      fusion,
      [input, weight, normType, scaleGradByFreq, sparse, ...(paddingIdx === null ? [] : [paddingIdx]), ...(maxNorm === null ? [] : [maxNorm])],
      [out],
    );
  }
  indexTv(): TensorView {
    return this.inputs[0] as TensorView;
  }
  weightTv(): TensorView {
    return this.inputs[1] as TensorView;
  }
}

/** The exprs that read a tensor at positions held by another tensor or scalar. */
export type IndexingExpr = SelectOp | IndexSelectOp | GatherOp | ScatterOp | IndexPutAccumulateOp | EmbeddingFwdOp;
