// reshape(tv, newShape): the elements of `tv` in row-major order, laid out in a new shape
// (torch.reshape on a contiguous tensor). Built as nvFuser does: size-1 broadcast dims of the input
// are squeezed, a ViewOp reshapes the remaining dims, and size-1 output dims are added back with a
// BroadcastOp. The ViewOp output has a root domain (copies of the input IDs) and a logical domain
// derived from it by Merge/Split exprs (all root IDs merged, then split from the innermost output
// dim outwards), every logical ID marked isRFactorProduct. When that derivation is impossible
// (no input dims left, or a size-0 dim) the logical IDs are fresh IDs with the new extents.

import { FusionIrError } from '../ir/errors.js';
import { Merge, Split, ViewOp } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import { TensorDomain } from '../ir/tensor-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import { squeeze } from './alias.js';
import { broadcast } from './broadcast.js';
import { extentOp, productOfExtents, shape, sizesText, toExtent, type SizeOperand } from './shape.js';

/**
 * reshape(tv, newShape): one entry may be -1 (inferred from the element count). With constant
 * sizes the element counts must agree; symbolic sizes are checked when the fusion runs.
 */
export function reshape(tv: TensorView, newShape: readonly SizeOperand[]): TensorView {
  const fusion = tv.fusion;
  const inSizes = shape(tv);
  const total = productOfExtents(fusion, inSizes);
  const inferAt = newShape.flatMap((s, d) => (s === -1 ? [d] : []));
  if (inferAt.length > 1) throw new FusionIrError(`reshape of T${tv.name}: only one size may be -1, got [${newShape.join(', ')}]`);
  for (const s of newShape) {
    if (typeof s === 'number' && s < -1) throw new FusionIrError(`reshape of T${tv.name}: invalid size ${s} in [${newShape.join(', ')}]`);
  }
  const given = newShape.map((s) => (s === -1 ? null : toExtent(fusion, 'reshape', s)));
  const known = productOfExtents(fusion, given.filter((s): s is Scalar => s !== null));
  const shapeText = `[${given.map((s) => (s === null ? '-1' : sizesText([s]).slice(1, -1))).join(', ')}]`;
  const mismatch = (): FusionIrError =>
    new FusionIrError(
      `reshape: T${tv.name} has sizes ${sizesText(inSizes)} (${total.constNumber() ?? total.symbolicName()} elements), which cannot be viewed as ${shapeText}`,
    );
  const totalC = total.constNumber();
  const knownC = known.constNumber();
  let outSizes: Scalar[];
  if (inferAt.length === 1) {
    if (knownC === 0) throw mismatch();
    if (totalC !== null && knownC !== null && totalC % knownC !== 0) throw mismatch();
    const inferred = extentOp('div', total, known);
    outSizes = given.map((s) => s ?? inferred);
  } else {
    if (totalC !== null && knownC !== null && totalC !== knownC) throw mismatch();
    outSizes = given as Scalar[];
  }
  return reshapeTo(tv, outSizes);
}

function reshapeTo(tv: TensorView, outSizes: readonly Scalar[]): TensorView {
  const ids = tv.domain.logicalNoReductions();
  const squeezeDims = ids.flatMap((id, d) => (id.isBroadcast() && id.expandedExtent === null ? [d] : []));
  const ones = outSizes.map((s) => s.constNumber() === 1);
  const coreIn = ids.filter((_, d) => !squeezeDims.includes(d)).map((id) => id.logicalExtent());
  const coreOut = outSizes.filter((_, d) => !(ones[d] as boolean));
  let t = squeezeDims.length > 0 ? squeeze(tv, squeezeDims) : tv;
  if (!sameSizes(coreIn, coreOut)) t = view(t, coreOut);
  if (ones.some((o) => o)) t = broadcast(t, ones);
  if (t === tv) return view(tv, coreOut); // an identity reshape still yields a new tensor
  return t;
}

function sameSizes(a: readonly Scalar[], b: readonly Scalar[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i] as Scalar;
      return x === y || (x.constNumber() !== null && x.constNumber() === y.constNumber());
    })
  );
}

/** The ViewOp itself: input without broadcast dims to `newSizes` (no size-1 broadcast dims either). */
function view(tv: TensorView, newSizes: readonly Scalar[]): TensorView {
  const fusion = tv.fusion;
  const inIds = tv.domain.logicalNoReductions();
  const originalSizes = inIds.map((id) => id.logicalExtent());
  const root = originalSizes.map((e) => fusion.newIterDomain(e, 'Iteration'));
  const derivable = root.length > 0 && newSizes.length > 0 && ![...originalSizes, ...newSizes].some((s) => s.constNumber() === 0);
  const logical = derivable ? splitFromMerged(root, newSizes) : newSizes.map((e) => fusion.newIterDomain(e, 'Iteration', { isRFactorProduct: true }));
  const out = fusion.newTensorView(new TensorDomain({ root, logical }), tv.dtype);
  new ViewOp(fusion, out, tv, originalSizes, newSizes);
  return out;
}

function splitFromMerged(root: readonly IterDomain[], newSizes: readonly Scalar[]): IterDomain[] {
  const fusion = (root[0] as IterDomain).fusion;
  let cur = root[0] as IterDomain;
  for (const next of root.slice(1)) {
    const merged = fusion.newIterDomain(extentOp('mul', cur.extent, next.extent), 'Iteration', { isRFactorProduct: true });
    new Merge(fusion, merged, cur, next);
    cur = merged;
  }
  const logical: IterDomain[] = new Array<IterDomain>(newSizes.length);
  for (let d = newSizes.length - 1; d >= 1; d -= 1) {
    const factor = newSizes[d] as Scalar;
    const inner = fusion.newIterDomain(factor, 'Iteration', { isRFactorProduct: true });
    const outer = fusion.newIterDomain(extentOp('ceilDiv', cur.extent, factor), 'Iteration', { isRFactorProduct: true });
    new Split(fusion, outer, inner, cur, factor, true);
    logical[d] = inner;
    cur = outer;
  }
  if (!cur.isRFactorProduct) {
    // Single input dim reshaped to a single output dim: mark the logical ID as a reshape product.
    const only = fusion.newIterDomain(newSizes[0] as Scalar, 'Iteration', { isRFactorProduct: true });
    logical[0] = only;
    return logical;
  }
  logical[0] = cur;
  return logical;
}
