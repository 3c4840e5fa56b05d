// Pass 5c — lowering of indexed loads (used by expression lowering): select, index_select,
// gather / take_along_axis and embedding forward become one `IndexedLoad` statement each. In:
// the op's output access and the point's indexer. Out: the index operand (the index tensor's
// access at this point, or select's scalar), and the lookup's offset over its other dims —
// Σ index(d) · alloc_stride[d], each lookup dim d taking the index of the output dim it stands
// for (mapped to the reference like any dim; a broadcast lookup dim adds 0) — with the indexed
// dim's stride and size. The lookup is a kernel argument read in place (the scheduler never
// caches it); the index value is checked in the kernel (emit/indexed-load.ts). At a vectorized
// position (the scheduler vectorizes whole-row lookups only) it loads `width` elements at once.

import type { Expr, IterDomain, Scalar, TensorView, Val } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import { iadd, iconst, imul, isym, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Operand, Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import type { PointIndexer } from './indexing.js';

interface LoadShape {
  op: string;
  lookup: TensorView;
  dim: number;
  index: TensorView | Scalar;
  /** The output logical dim lookup dim d stands for (d ≠ dim). */
  outDim: (d: number) => number;
  wrapNegative: boolean;
}

function shapeOf(e: Expr): LoadShape | null {
  switch (e.kind) {
    case 'SelectOp':
      return { op: 'select', lookup: e.lookupTv(), dim: e.dim, index: e.indexScalar(), outDim: (d) => (d < e.dim ? d : d - 1), wrapNegative: true };
    case 'IndexSelectOp':
      return { op: 'index_select', lookup: e.lookupTv(), dim: e.dim, index: e.indexTv(), outDim: (d) => d, wrapNegative: false };
    case 'GatherOp':
      return { op: e.exactSizes ? 'take_along_axis' : 'gather', lookup: e.lookupTv(), dim: e.dim, index: e.indexTv(), outDim: (d) => d, wrapNegative: false };
    case 'EmbeddingFwdOp': {
      const outRank = (e.outputs[0] as TensorView).domain.logicalNoReductions().length;
      return { op: 'embedding_fwd', lookup: e.weightTv(), dim: 0, index: e.indexTv(), outDim: () => outRank - 1, wrapNegative: false };
    }
    default:
      return null;
  }
}

/** Whether lowering turns `e` into an IndexedLoad. */
export function isIndexedLoad(e: Expr): boolean {
  return shapeOf(e) !== null;
}

export function lowerIndexedLoad(e: Expr, out: TensorAccess, operand: (v: Val) => Operand, indexer: PointIndexer, width: number): Stmt {
  const shape = shapeOf(e);
  const tv = e.outputs[0] as TensorView;
  if (shape === null) throw new LoweringError(`${e.kind} producing T${tv.name} is not an indexed load`);
  if (width > 1 && (shape.index.kind === 'tensorView' && e.kind === 'GatherOp')) throw new LoweringError(`T${tv.name}: a gather cannot be vectorized (its index varies along every dim)`);
  if (width > 1 && tv.dtype !== shape.lookup.dtype) throw new LoweringError(`T${tv.name}: a vectorized indexed load cannot change the dtype`);
  const ctx = indexer.ctx;
  const { lookup, dim } = shape;
  if (lookup.memoryType !== 'Global') throw new LoweringError(`${shape.op} producing T${tv.name}: the lookup tensor T${lookup.name} is not in global memory`);
  const name = ctx.tensorName(lookup);
  const map = ctx.exactMap.mapToReference(tv, ctx.reference);
  const lookupIds = lookup.domain.logicalNoReductions();
  let base: IndexExpr = iconst(0);
  lookupIds.forEach((id: IterDomain, d) => {
    if (d === dim || id.isBroadcast()) return;
    const r = map[shape.outDim(d)] ?? -1;
    if (r < 0) return; // a broadcast or size-1 output dim: index 0
    base = iadd(base, imul(indexer.index(indexer.history.logical[r] as IterDomain), isym(`${name}.alloc_stride[${d}]`)));
  });
  const indexed = lookupIds[dim] as IterDomain;
  return {
    kind: 'IndexedLoad',
    out,
    index: operand(shape.index),
    lookup: { kind: 'tensor', tensor: name, dtype: lookup.dtype, memory: 'Global', index: base },
    stride: isym(`${name}.alloc_stride[${dim}]`),
    extent: ctx.extent(indexed.logicalExtent()),
    wrapNegative: shape.wrapNegative,
    op: shape.op,
    width,
  };
}
