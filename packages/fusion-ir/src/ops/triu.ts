// triu(x, diagonal): the upper triangle of the last two dims (torch.triu, nvFuser's
// csrc/ops/composite.cpp triu), composed as nvFuser does it: a row iota [0, rows) and a column
// iota [−diagonal, cols − diagonal) (Index), broadcast against each other, mask = row ≤ col,
// where(mask, x, 0). Leading dims take the mask by broadcasting (tsfuser broadcasts
// explicitly, nvFuser implicitly). No new Expr kinds.

import { FusionIrError } from '../ir/errors.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { le } from './binary.js';
import { broadcast } from './broadcast.js';
import { iota } from './creation.js';
import { describe } from './operand.js';
import { shape } from './shape.js';
import { categoryOf } from './type-promotion.js';
import { where } from './ternary.js';
import { cast, neg } from './unary.js';

export function triu(x: TensorView, diagonal: Scalar | number = 0): TensorView {
  const rank = x.rank();
  if (rank < 2) throw new FusionIrError(`triu: input tensor for triu must have 2 or more dims, but got ${describe(x)}`);
  if (typeof diagonal === 'number' && !Number.isInteger(diagonal)) throw new FusionIrError(`triu: diagonal ${diagonal} is not an integer`);
  if (typeof diagonal === 'object' && categoryOf(diagonal.dtype) !== 1) {
    throw new FusionIrError(`triu: diagonal must have integral type, got ${diagonal.dtype}`);
  }
  const fusion = x.fusion;
  const sizes = shape(x);
  const rows = sizes[rank - 2] as Scalar;
  const cols = sizes[rank - 1] as Scalar;
  const start = typeof diagonal === 'number' ? fusion.index(-diagonal) : neg(diagonal.dtype === 'Index' ? diagonal : cast(diagonal, 'Index'));
  const rowIndex = broadcast(iota(fusion, rows, 0, 1, 'Index'), [false, true]);
  const colIndex = broadcast(iota(fusion, cols, start, 1, 'Index'), [true, false]);
  let mask = le(rowIndex, colIndex);
  if (rank > 2) mask = broadcast(mask, [...new Array<boolean>(rank - 2).fill(true), false, false]);
  return where(mask, x, 0) as TensorView;
}
