// embedding_fwd's max_norm, as nvFuser runs it (EmbeddingFwdOp::evaluate calls
// torch::nn::functional::embedding with max_norm, i.e. embedding_renorm_ then the lookup): every
// looked-up row whose p-norm (p = norm_type) exceeds max_norm is scaled by
// max_norm / (norm + 1e-7). The scale depends only on the row, so renormalizing the gathered rows
// gives the same output as renormalizing the weight first; tsfuser builds it from ordinary ops (a
// reduction over the embedding dim and pointwise math), which every backend runs.
// A norm_type given at run time (a symbolic scalar) selects among the same norms per row with
// where(): p = +inf / -inf (|p| > 1e308, so no infinite literal reaches a kernel: a max / min of
// |x|), else one sum of a per-element term selected by p (p = 0: x != 0; p = 2: x·x, then sqrt, the
// constant path's rounding; other p: |x|^p, then ^(1/p)); the unselected branches are discarded.
// Invariant: the output values are PyTorch's; unlike PyTorch, the weight input is not modified
// in place (fusion inputs are never written), which only a caller that reads the weight again sees.

import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { add, div, eq, gt, lt, mul, ne, pow } from './binary.js';
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

/** The row norm for a norm_type known only at run time: each constant-p form, selected by p. */
function rowNormSymbolic(x: TensorView, p: Scalar): TensorView {
  const last = [x.rank() - 1];
  const a = abs(x);
  // one sum serves p = 0 (count of nonzeros), p = 2 (squares, then sqrt) and any other finite p
  const term = where(eq(p, 0), cast(ne(x, 0), x.dtype), where(eq(p, 2), mul(x, x), pow(a, p)));
  const s = sum(term as TensorView, last, true);
  const finite = where(eq(p, 0), s, where(eq(p, 2), sqrt(s), pow(s, div(1.0, p))));
  const negInf = where(lt(p, -1e308), min(a, last, true), finite);
  return where(gt(p, 1e308), max(a, last, true), negInf) as TensorView;
}

/** `rows` (the gathered weight rows) renormalized to at most `maxNorm` in the `normType`-norm. */
export function renormEmbeddingRows(rows: TensorView, maxNorm: Scalar, normType: Scalar): TensorView {
  const p = normType.constNumber();
  const compute = rows.dtype === 'Double' ? 'Double' : 'Float';
  const x = rows.dtype === compute ? rows : cast(rows, compute);
  const norm = p === null ? rowNormSymbolic(x, cast(normType, 'Double')) : rowNorm(x, p);
  const scale = where(gt(norm, maxNorm), div(maxNorm, add(norm, 1e-7)), 1.0) as TensorView;
  const scaled = mul(x, scale);
  return scaled.dtype === rows.dtype ? scaled : cast(scaled, rows.dtype);
}
