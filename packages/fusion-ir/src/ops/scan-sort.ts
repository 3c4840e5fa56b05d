// Scans and sorts (nvFuser's csrc/ops/arith.cpp scan / cumsum / argsort / topk): cumsum,
// cumprod, cummin, cummax build one ScanOp (output: the input's shape and dtype — low precision
// is not upcast, as in PyTorch eager and nvFuser); argsort builds an ArgsortOp (Int indices);
// topk a TopKOp (values in the input dtype, Int indices, dim `dim` of extent k). As in nvFuser,
// a scan over a broadcast dim is a copy, argsort of a 0-dim tensor is zeros({}, Int) and topk of
// a 0-dim tensor is (set(arg), zeros({}, Int)) with k = 1. What the values are: eval/scan-sort.ts.

import { checkNoComplex } from './complex-support.js';
import { FusionIrError } from '../ir/errors.js';
import { ArgsortOp, ScanOp, TopKOp } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { ScanOpType } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { set } from './alias.js';
import { full } from './creation.js';
import { describe } from './operand.js';
import { reductionInit } from './reduction.js';
import { normalizeDim } from './shape.js';
import { categoryOf } from './type-promotion.js';
import { cast } from './unary.js';

const SCAN_NAMES: Record<ScanOpType, string> = { add: 'cumsum', mul: 'cumprod', max: 'cummax', min: 'cummin' };

/** Same extents and iter types as `tv`'s logical dims (a fresh domain for an op's output). */
function likeDomain(tv: TensorView): IterDomain[] {
  return tv.domain.logicalNoReductions().map((id) =>
    tv.fusion.newIterDomain(id.extent, id.iterType === 'Broadcast' ? 'Broadcast' : 'Iteration', { expandedExtent: id.expandedExtent }),
  );
}

function checkTensor(op: string, tv: TensorView): void {
  if (typeof tv !== 'object' || tv === null || tv.kind !== 'tensorView') throw new FusionIrError(`${op}: arg must be a tensor`);
}

/**
 * scan(tv, dim, opType, init = identity): the inclusive scan nvFuser's cumsum/cumprod/cummin/
 * cummax bind. `init` (a scalar or JS number, converted to the input dtype) starts each row.
 */
export function scan(tv: TensorView, dim: number, opType: ScanOpType, init: Scalar | number | null = null): TensorView {
  checkNoComplex(`scan (${opType})`, [tv]);
  const op = SCAN_NAMES[opType];
  checkTensor(op, tv);
  const rank = tv.rank();
  if (rank === 0) throw new FusionIrError(`${op}: ${describe(tv)} has no dims to scan`);
  const d = normalizeDim(op, tv, dim);
  if (tv.dtype === 'Bool' && (opType === 'add' || opType === 'mul')) {
    throw new FusionIrError(`${op}: ${describe(tv)} is Bool; cast it to an integer type first (PyTorch's ${op} of Bool gives Long)`);
  }
  const id = tv.domain.logicalNoReductions()[d] as IterDomain;
  if (id.isBroadcast()) {
    if (id.expandedExtent !== null) throw new FusionIrError(`${op}: dim ${d} of ${describe(tv)} is an expanded broadcast, which nvFuser does not scan either`);
    return set(tv);
  }
  const fusion = tv.fusion;
  let initScalar: Scalar;
  if (init === null) initScalar = reductionInit(tv, opType, tv.dtype);
  else if (typeof init === 'number') initScalar = fusion.constant(categoryOf(tv.dtype) === 2 ? init : BigInt(Math.trunc(init)), tv.dtype);
  else {
    if (init.fusion !== fusion) throw new FusionIrError(`${op}: init ${init.symbolicName()} belongs to another fusion`);
    initScalar = init.dtype === tv.dtype ? init : cast(init, tv.dtype);
  }
  const out = fusion.newTensorFromDomain(likeDomain(tv), tv.dtype);
  new ScanOp(fusion, opType, initScalar, out, tv, d);
  return out;
}

export function cumsum(tv: TensorView, dim: number, init: Scalar | number | null = null): TensorView {
  return scan(tv, dim, 'add', init);
}
export function cumprod(tv: TensorView, dim: number, init: Scalar | number | null = null): TensorView {
  return scan(tv, dim, 'mul', init);
}
export function cummax(tv: TensorView, dim: number, init: Scalar | number | null = null): TensorView {
  return scan(tv, dim, 'max', init);
}
export function cummin(tv: TensorView, dim: number, init: Scalar | number | null = null): TensorView {
  return scan(tv, dim, 'min', init);
}

/** argsort(tv, dim, descending = false, stable = false): Int indices that sort `tv` along dim. */
export function argsort(tv: TensorView, dim: number, descending = false, stable = false): TensorView {
  checkNoComplex('argsort', [tv]);
  checkTensor('argsort', tv);
  const fusion = tv.fusion;
  if (tv.rank() === 0) return full(fusion, [], 0n, 'Int');
  const d = normalizeDim('argsort', tv, dim);
  const out = fusion.newTensorFromDomain(likeDomain(tv), 'Int');
  new ArgsortOp(fusion, out, tv, d, descending, stable);
  return out;
}

export interface TopKResult {
  values: TensorView;
  indices: TensorView;
}

/**
 * topk(tv, k, dim = -1, largest = true, sorted = false): the k largest (smallest) elements along
 * dim and their Int indices. `k`: an integral scalar or a JS integer.
 */
export function topk(tv: TensorView, k: Scalar | number, dim = -1, largest = true, sorted = false): TopKResult {
  checkNoComplex('topk', [tv]);
  checkTensor('topk', tv);
  const fusion = tv.fusion;
  let kScalar: Scalar;
  if (typeof k === 'number') {
    if (!Number.isInteger(k) || k < 0) throw new FusionIrError(`topk: k ${k} is not a non-negative integer`);
    kScalar = fusion.constant(BigInt(k), 'Int');
  } else {
    if (k.fusion !== fusion) throw new FusionIrError(`topk: k ${k.symbolicName()} belongs to another fusion`);
    if (categoryOf(k.dtype) !== 1) throw new FusionIrError(`topk: k must be an integer, got ${k.dtype}`);
    kScalar = k.dtype === 'Int' ? k : cast(k, 'Int');
  }
  if (tv.rank() === 0) {
    if (dim !== 0 && dim !== -1) throw new FusionIrError(`topk: dim ${dim} is out of range for the 0-dim ${describe(tv)}`);
    const kc = kScalar.constNumber();
    if (kc !== null && kc !== 1) throw new FusionIrError(`topk: k must be 1 for the 0-dim ${describe(tv)}, got ${kc}`);
    return { values: set(tv), indices: full(fusion, [], 0n, 'Int') };
  }
  const d = normalizeDim('topk', tv, dim);
  const inIds = tv.domain.logicalNoReductions();
  const n = (inIds[d] as IterDomain).logicalExtent().constNumber();
  const kc = kScalar.constNumber();
  if (kc !== null && n !== null && kc > n) throw new FusionIrError(`topk: k = ${kc} is larger than dim ${d} of ${describe(tv)} (size ${n})`);
  const extentK = kc !== null ? fusion.index(kc) : cast(kScalar, 'Index');
  const outDomain = (): IterDomain[] =>
    inIds.map((id, i) =>
      i === d
        ? fusion.newIterDomain(extentK, 'Iteration')
        : fusion.newIterDomain(id.extent, id.iterType === 'Broadcast' ? 'Broadcast' : 'Iteration', { expandedExtent: id.expandedExtent }),
    );
  const values = fusion.newTensorFromDomain(outDomain(), tv.dtype);
  const indices = fusion.newTensorFromDomain(outDomain(), 'Int');
  new TopKOp(fusion, { values, indices }, tv, kScalar, d, largest, sorted);
  return { values, indices };
}
