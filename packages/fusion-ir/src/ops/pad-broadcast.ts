// pad along a broadcast dim, without a resize of that dim: torch.nn.functional.pad of a size-1
// broadcast dim gives a real dim of l + 1 + r elements in which element l is the broadcast value
// and the others the pad value; of an expanded broadcast (stride 0, extent E) l + E + r elements,
// elements [l, l + E) the broadcast value (nvFuser materializes it: test_pad_expanded_empty pads
// a [2, 0, 3] all-stride-0 tensor). An expanded dim is squeezed and broadcast again first, since
// an expanded broadcast cannot be expanded again. pad() builds that as
// expand(x) to the new size and a where() on an iota mask, so the result is ordinary pointwise
// work every scheduler takes (the pointwise scheduler refuses a resize of a broadcast ID, as the
// indexing of a resized broadcast has no loop to follow); the dims that are not broadcast are
// padded by the PadOp as before. Negative widths crop as in PyTorch (an empty or all-pad dim).
// A pad whose widths are known only at run time (scalar inputs) is built likewise, as an
// index_select of the shifted, clamped positions and a where (padRuntimeWidthDims).
// Invariant: values equal PadOp's on the same input (the reference evaluator's pad semantics).

import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { ge, logicalAnd, lt, maximum, minimum, sub } from './binary.js';
import { indexSelect } from './indexing.js';
import { broadcast } from './broadcast.js';
import { iota } from './creation.js';
import { expand, squeeze } from './alias.js';
import { extentOp, type SizeOperand } from './shape.js';
import { where } from './ternary.js';

/**
 * `tv` with its padded broadcast dims padded (`w` as pad() reads it: [left, right] pairs from the
 * last dim), and the widths left for a PadOp (those dims' widths set to 0); null when no padded
 * dim is a broadcast.
 */
export function padBroadcastDims(tv: TensorView, w: readonly Scalar[], value: Scalar): { tv: TensorView; widths: Scalar[] } | null {
  const fusion = tv.fusion;
  const ids = tv.domain.logicalNoReductions();
  const rank = ids.length;
  const padded = ids.flatMap((id, d) => {
    const k = rank - 1 - d;
    return 2 * k < w.length && id.isBroadcast() ? [{ d, left: w[2 * k] as Scalar, right: w[2 * k + 1] as Scalar, extent: id.logicalExtent(), k }] : [];
  });
  if (padded.length === 0) return null;
  // Padded expanded broadcasts become plain (extent-1) broadcasts, which expand() takes.
  const expanded = padded.filter((p) => (ids[p.d] as IterDomain).expandedExtent !== null).map((p) => p.d);
  const base = expanded.length === 0 ? tv : broadcast(squeeze(tv, expanded, { squeezeExpanded: true }), ids.map((_, d) => expanded.includes(d)));
  const sizes: SizeOperand[] = ids.map(() => -1);
  let mask: TensorView | null = null;
  for (const p of padded) {
    const size = extentOp('add', extentOp('add', p.left, p.extent), p.right);
    sizes[p.d] = size;
    const index = broadcast(iota(fusion, size), ids.map((_, d) => d !== p.d));
    const inside = logicalAnd(ge(index, p.left), lt(index, extentOp('add', p.left, p.extent)));
    mask = mask === null ? inside : logicalAnd(mask, inside);
  }
  const widths = [...w];
  for (const p of padded) {
    widths[2 * p.k] = fusion.index(0);
    widths[2 * p.k + 1] = fusion.index(0);
  }
  const filled = where(mask as TensorView, expand(base, sizes), value) as TensorView;
  return { tv: filled, widths };
}

/**
 * `tv` with the dims whose pad widths are known only at run time padded by a gather: element i
 * of the new dim reads x[i - left] (the index clamped into range) where 0 <= i - left < n, else
 * the pad value — an index_select and a where, which the pointwise scheduler takes (it needs
 * constant widths for a PadOp). The widths left for a PadOp have those dims' widths set to 0;
 * null when every width is a constant.
 */
export function padRuntimeWidthDims(tv: TensorView, w: readonly Scalar[], value: Scalar): { tv: TensorView; widths: Scalar[] } | null {
  const fusion = tv.fusion;
  const rank = tv.domain.logicalNoReductions().length;
  const dims = [...Array(rank).keys()].filter((d) => {
    const k = rank - 1 - d;
    return 2 * k < w.length && ((w[2 * k] as Scalar).constNumber() === null || (w[2 * k + 1] as Scalar).constNumber() === null);
  });
  if (dims.length === 0) return null;
  let out = tv;
  const widths = [...w];
  for (const d of dims) {
    const k = rank - 1 - d;
    const left = w[2 * k] as Scalar;
    const extent = (out.domain.logicalNoReductions()[d] as IterDomain).logicalExtent();
    const size = extentOp('add', extentOp('add', left, extent), w[2 * k + 1] as Scalar);
    const source = sub(iota(fusion, size), left);
    const clamped = minimum(maximum(source, 0), extentOp('maximum', extentOp('sub', extent, fusion.index(1)), fusion.index(0)));
    const gathered = indexSelect(out, d, clamped);
    const inside = broadcast(logicalAnd(ge(source, 0), lt(source, extent)), [...Array(rank).keys()].map((e) => e !== d));
    out = where(inside, gathered, value) as TensorView;
    widths[2 * k] = fusion.index(0);
    widths[2 * k + 1] = fusion.index(0);
  }
  return { tv: out, widths };
}
