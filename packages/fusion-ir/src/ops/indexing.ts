// Indexing ops (nvFuser's csrc/ops/indexing.cpp and composite.cpp embedding_fwd): select,
// indexSelect, gather, takeAlongAxis, scatter, indexPutAccumulate, embeddingFwd. Each checks its
// operands (ranks, integral index dtypes, dims) with an error naming the op and the tensor, and
// builds one Expr with the output domain nvFuser gives it. Out-of-range index values are a
// run-time matter: the reference evaluator reports them (eval/indexing.ts), kernels trap.

import { checkNoComplex } from './complex-support.js';
import { isIntegralType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { Fusion } from '../ir/fusion.js';
import { EmbeddingFwdOp, GatherOp, IndexPutAccumulateOp, IndexSelectOp, ScatterOp, SelectOp } from '../ir/indexing-exprs.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { broadcast } from './broadcast.js';
import { describe } from './operand.js';
import { normalizeDim } from './shape.js';
import { categoryOf } from './type-promotion.js';
import { cast } from './unary.js';
import { renormEmbeddingRows } from './embedding-renorm.js';

/** A new ID standing for the same dim as `id` (same extent, iter type and expanded extent). */
function like(fusion: Fusion, id: IterDomain): IterDomain {
  return fusion.newIterDomain(id.extent, id.iterType === 'Broadcast' ? 'Broadcast' : 'Iteration', { expandedExtent: id.expandedExtent });
}

function checkIndexTensor(op: string, index: TensorView, lookup: TensorView): void {
  if (index.fusion !== lookup.fusion) throw new FusionIrError(`${op}: index ${describe(index)} belongs to another fusion`);
  if (!isIntegralType(index.dtype)) throw new FusionIrError(`${op}: index ${describe(index)} must have an integral dtype, got ${index.dtype}`);
}

function checkNotZeroDim(op: string, tv: TensorView, what: string): void {
  if (tv.rank() === 0) throw new FusionIrError(`${op}: ${what} ${describe(tv)} cannot be a 0-D tensor`);
}

/** lookup.select(dim, index): the dim is dropped; `index` is an integral scalar (negative counts from the end). */
export function select(lookup: TensorView, dim: number, index: Scalar | number): TensorView {
  checkNotZeroDim('select', lookup, 'input');
  const fusion = lookup.fusion;
  const d = normalizeDim('select', lookup, dim);
  let idx: Scalar;
  if (typeof index === 'number') {
    if (!Number.isInteger(index)) throw new FusionIrError(`select: index ${index} is not an integer`);
    idx = fusion.constant(index, 'Int');
  } else {
    if (index.fusion !== fusion) throw new FusionIrError(`select: index ${index.symbolicName()} belongs to another fusion`);
    if (categoryOf(index.dtype) !== 1) throw new FusionIrError(`select: index ${index.symbolicName()} must be an integral scalar, got ${index.dtype}`);
    idx = index;
  }
  const logical = lookup.domain.logicalNoReductions().filter((_, k) => k !== d).map((id) => like(fusion, id));
  const out = fusion.newTensorFromDomain(logical, lookup.dtype);
  new SelectOp(fusion, out, lookup, d, idx);
  return out;
}

/** torch.index_select(lookup, dim, index): index is 1-D (a 0-D index selects and keeps the dim, as nvFuser). */
export function indexSelect(lookup: TensorView, dim: number, index: TensorView): TensorView {
  checkNoComplex('index_select', [lookup]);
  checkNotZeroDim('index_select', lookup, 'lookup tensor');
  checkIndexTensor('index_select', index, lookup);
  const fusion = lookup.fusion;
  const rank = lookup.rank();
  const d = normalizeDim('index_select', lookup, dim);
  if (index.rank() > 1) throw new FusionIrError(`index_select: index ${describe(index)} must be a 1-D or 0-D tensor`);
  const index1d = index.rank() === 0 ? broadcast(index, [true]) : index;
  const full = rank === 1 ? index1d : broadcast(index1d, Array.from({ length: rank }, (_, k) => k !== d));
  const indexIds = full.domain.logicalNoReductions();
  const logical = lookup.domain.logicalNoReductions().map((id, k) => like(fusion, k === d ? (indexIds[k] as IterDomain) : id));
  const out = fusion.newTensorFromDomain(logical, lookup.dtype);
  new IndexSelectOp(fusion, out, lookup, d, full);
  return out;
}

function gatherLike(op: string, lookup: TensorView, index: TensorView, dim: number, exactSizes: boolean): TensorView {
  checkNotZeroDim(op, lookup, 'input');
  checkIndexTensor(op, index, lookup);
  if (index.rank() !== lookup.rank()) {
    throw new FusionIrError(`${op}: the input ${describe(lookup)} and the index ${describe(index)} must have the same number of dims`);
  }
  const fusion = lookup.fusion;
  const d = normalizeDim(op, lookup, dim);
  const lookupIds = lookup.domain.logicalNoReductions();
  const logical = index.domain.logicalNoReductions().map((idx, k) => {
    const inp = lookupIds[k] as IterDomain;
    // take_along_axis: off the indexed dim the output follows the input unless the input is a
    // broadcast the index is not (or the index is an expanded broadcast), as nvFuser decides.
    if (!exactSizes || k === d || (inp.isBroadcast() && (!idx.isBroadcast() || idx.expandedExtent !== null))) return like(fusion, idx);
    return like(fusion, inp);
  });
  const out = fusion.newTensorFromDomain(logical, lookup.dtype);
  new GatherOp(fusion, out, lookup, d, index, exactSizes);
  return out;
}

/** torch.gather(lookup, dim, index): output of the index's shape; index extents off `dim` may be smaller. */
export function gather(lookup: TensorView, dim: number, index: TensorView): TensorView {
  checkNoComplex('gather', [lookup]);
  return gatherLike('gather', lookup, index, dim, false);
}

/** take_along_axis(lookup, index, dim): as gather, with equal extents off `dim` (broadcasts allowed). */
export function takeAlongAxis(lookup: TensorView, index: TensorView, dim: number): TensorView {
  return gatherLike('take_along_axis', lookup, index, dim, true);
}

/** torch.scatter(self, dim, index, src): src a tensor of self's rank or a scalar (cast to self's dtype). */
export function scatter(self: TensorView, dim: number, index: TensorView, src: TensorView | Scalar | number): TensorView {
  checkNoComplex('scatter', typeof src === 'number' ? [self] : [self, src]);
  checkNotZeroDim('scatter', self, 'input');
  checkIndexTensor('scatter', index, self);
  const fusion = self.fusion;
  let source: TensorView | Scalar;
  if (typeof src === 'number') {
    source = fusion.constant(src, self.dtype);
  } else {
    if (src.fusion !== fusion) throw new FusionIrError('scatter: src belongs to another fusion');
    source = src.dtype === self.dtype ? src : src.kind === 'tensorView' ? cast(src, self.dtype) : cast(src, self.dtype);
  }
  if (index.rank() !== self.rank() || (source.kind === 'tensorView' && source.rank() !== self.rank())) {
    throw new FusionIrError(
      `scatter: self ${describe(self)}, index ${describe(index)} and src ${describe(source)} must all have the same number of dims`,
    );
  }
  const d = normalizeDim('scatter', self, dim);
  const logical = self.domain.logicalNoReductions().map((id) => like(fusion, id));
  const out = fusion.newTensorFromDomain(logical, self.dtype);
  new ScatterOp(fusion, out, self, d, index, source);
  return out;
}

/** index_put(acc, [index], value, accumulate=True): index 1-D over acc's dim 0, value [index.size(0), acc.size(1), …]. */
export function indexPutAccumulate(acc: TensorView, index: TensorView, value: TensorView): TensorView {
  checkNoComplex('index_put_accumulate', [acc, value]);
  checkNotZeroDim('index_put_accumulate', acc, 'acc');
  checkIndexTensor('index_put_accumulate', index, acc);
  const fusion = acc.fusion;
  if (value.fusion !== fusion) throw new FusionIrError('index_put_accumulate: value belongs to another fusion');
  if (index.rank() !== 1) throw new FusionIrError(`index_put_accumulate: index ${describe(index)} must be a 1-D tensor`);
  if (value.rank() !== acc.rank()) {
    throw new FusionIrError(`index_put_accumulate: value ${describe(value)} must have the rank of acc ${describe(acc)}`);
  }
  const v = value.dtype === acc.dtype ? value : cast(value, acc.dtype);
  const logical = acc.domain.logicalNoReductions().map((id) => like(fusion, id));
  const out = fusion.newTensorFromDomain(logical, acc.dtype);
  new IndexPutAccumulateOp(fusion, out, acc, index, v);
  return out;
}

export interface EmbeddingOptions {
  paddingIdx?: Scalar | number | null;
  maxNorm?: Scalar | number | null;
  normType?: Scalar | number | null;
  scaleGradByFreq?: Scalar | boolean | null;
  sparse?: Scalar | boolean | null;
}

function optionScalar(fusion: Fusion, name: string, v: Scalar | number | boolean, dtype: 'Int' | 'Double' | 'Bool'): Scalar {
  if (typeof v === 'object') {
    if (v.fusion !== fusion) throw new FusionIrError(`embedding_fwd: ${name} belongs to another fusion`);
    if (dtype === 'Int' && categoryOf(v.dtype) !== 1) throw new FusionIrError(`embedding_fwd: ${name} must be an integral scalar, got ${v.dtype}`);
    // norm_type is a double (a JS 2.0 arrives as the Int 2).
    return dtype === 'Double' && v.dtype !== 'Double' ? cast(v, 'Double') : v;
  }
  if (dtype === 'Int' && (typeof v !== 'number' || !Number.isInteger(v))) throw new FusionIrError(`embedding_fwd: ${name} ${String(v)} is not an integer`);
  return fusion.constant(dtype === 'Bool' ? Boolean(v) : Number(v), dtype);
}

/**
 * torch.nn.functional.embedding forward: output input.shape + [weight.size(1)], row input[i…] of
 * weight. padding_idx, scale_grad_by_freq and sparse change only the backward pass; max_norm
 * renormalizes the looked-up rows (PyTorch also writes them back into the weight; tsfuser does
 * not modify inputs).
 */
export function embeddingFwd(input: TensorView, weight: TensorView, options: EmbeddingOptions = {}): TensorView {
  checkNoComplex('embedding_fwd', [weight]);
  checkIndexTensor('embedding_fwd', input, weight);
  const fusion = input.fusion;
  if (input.rank() === 0) throw new FusionIrError(`embedding_fwd: input ${describe(input)} must be at least 1-D`);
  if (weight.rank() !== 2) throw new FusionIrError(`embedding_fwd: weight ${describe(weight)} must be 2-D`);
  const weightIds = weight.domain.logicalNoReductions();
  const logical = [...input.domain.logicalNoReductions().map((id) => like(fusion, id)), like(fusion, weightIds[1] as IterDomain)];
  const out = fusion.newTensorFromDomain(logical, weight.dtype);
  const normType = optionScalar(fusion, 'norm_type', options.normType ?? 2.0, 'Double');
  const paddingIdx = options.paddingIdx === undefined || options.paddingIdx === null ? null : optionScalar(fusion, 'padding_idx', options.paddingIdx, 'Int');
  new EmbeddingFwdOp(
    fusion,
    out,
    input,
    weight,
    normType,
    optionScalar(fusion, 'scale_grad_by_freq', options.scaleGradByFreq ?? false, 'Bool'),
    optionScalar(fusion, 'sparse', options.sparse ?? false, 'Bool'),
    paddingIdx,
    null,
  );
  // max_norm: the looked-up rows renormalized (embedding-renorm.ts), as nvFuser's ATen evaluation gives them.
  if (options.maxNorm === undefined || options.maxNorm === null) return out;
  return renormEmbeddingRows(out, optionScalar(fusion, 'max_norm', options.maxNorm, 'Double'), normType);
}
