// embedding_fwd's max_norm, as nvFuser runs it (EmbeddingFwdOp::evaluate calls
// torch::nn::functional::embedding with max_norm, i.e. embedding_renorm_ then the lookup): every
// looked-up row whose p-norm (p = norm_type) exceeds max_norm is scaled by
// max_norm / (norm + 1e-7). The scale depends only on the row, so renormalizing the gathered rows
// gives the same output as renormalizing the weight first; tsfuser builds it from ordinary ops (a
// reduction over the embedding dim and pointwise math), which every backend runs.
// Invariant: the output values are PyTorch's; unlike PyTorch, the weight input is not modified
// in place (fusion inputs are never written), which only a caller that reads the weight again sees.

import { FusionIrError } from '../ir/errors.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { add, div, gt, mul, ne, pow } from './binary.js';
import { max, min, sum } from './reduction.js';
import { where } from './ternary.js';
import { abs, cast, sqrt } from './unary.js';

/** The p-norm of each row of `x` over its last dim (kept as a size-1 dim), p a constant. */
function rowNorm(x: TensorView, p: number): TensorView {
  const last = [x.rank() - 1];
  if (p === 2) return sqrt(sum(mul(x, x), last, true));
  if (p === 1) return sum(abs(x), last, true);
  if (p === Infinity) return max(abs(x), last, true);
  if (p === -Infinity) return min(abs(x), last, true);
  if (p === 0) return sum(cast(ne(x, 0), x.dtype), last, true);
  return pow(sum(pow(abs(x), p), last, true), 1 / p);
}

/** `rows` (the gathered weight rows) renormalized to at most `maxNorm` in the `normType`-norm. */
export function renormEmbeddingRows(rows: TensorView, maxNorm: Scalar, normType: Scalar): TensorView {
  const p = normType.constNumber();
  if (p === null) throw new FusionIrError('embedding_fwd: with max_norm, norm_type must be a constant (the norm is built into the fusion)');
  const compute = rows.dtype === 'Double' ? 'Double' : 'Float';
  const x = rows.dtype === compute ? rows : cast(rows, compute);
  const norm = rowNorm(x, p);
  const scale = where(gt(norm, maxNorm), div(maxNorm, add(norm, 1e-7)), 1.0) as TensorView;
  const scaled = mul(x, scale);
  return scaled.dtype === rows.dtype ? scaled : cast(scaled, rows.dtype);
}
