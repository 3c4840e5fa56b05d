// Ops that change extents by selecting or adding elements: slice, pad, cat (nvFuser's resize ops).
// Output extents fold to constants when everything is known and are scalar expressions otherwise.

import type { DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { CatOp, PadOp, SliceOp, type SliceRange } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { describe, promotionOperand } from './operand.js';
import { extentOp, normalizeDim, shape, sizesText, toExtent, type SizeOperand } from './shape.js';
import { where } from './ternary.js';
import { lt } from './binary.js';
import { categoryOf, resultType } from './type-promotion.js';
import { cast } from './unary.js';
import { padBroadcastDims, padRuntimeWidthDims } from './pad-broadcast.js';

/**
 * slice(tv, starts, stops, steps?) — per dim, elements start, start+step, … < stop, with torch's
 * rules: negative start/stop count from the end, both are clamped to [0, size], an empty range
 * gives size 0; steps must be positive (default 1). Output size: max(0, ceil((stop-start)/step)).
 * `manualNormalization` skips the normalization (nvFuser's keyword of the same name).
 */
export function slice(
  tv: TensorView,
  starts: readonly SizeOperand[],
  stops: readonly SizeOperand[],
  steps?: readonly SizeOperand[],
  options: { manualNormalization?: boolean } = {},
): TensorView {
  const fusion = tv.fusion;
  const ids = tv.domain.logicalNoReductions();
  const rank = ids.length;
  const st = steps ?? new Array<SizeOperand>(rank).fill(1);
  if (starts.length !== rank || stops.length !== rank || st.length !== rank) {
    throw new FusionIrError(
      `slice: ${describe(tv)} has rank ${rank} but got ${starts.length} starts, ${stops.length} stops and ${st.length} steps`,
    );
  }
  const ranges: SliceRange[] = [];
  const logical = ids.map((id, d) => {
    const size = id.logicalExtent();
    const start = toExtent(fusion, 'slice', starts[d] as SizeOperand);
    const stop = toExtent(fusion, 'slice', stops[d] as SizeOperand);
    const step = toExtent(fusion, 'slice', st[d] as SizeOperand);
    const stepC = step.constNumber();
    if (stepC !== null && stepC <= 0) throw new FusionIrError(`slice: step of dim ${d} of ${describe(tv)} must be positive, got ${stepC}`);
    ranges.push({ start, stop, step });
    // The whole dim (start 0, step 1, stop = its size or beyond): the extent stays the dim's own
    // (nvFuser skips the resize too), so the dim keeps mapping exactly to its producer's.
    const stopC = stop.constNumber();
    const sizeC = size.constNumber();
    const whole = start.constNumber() === 0 && stepC === 1 && (stop === size || (stopC !== null && sizeC !== null && stopC >= sizeC));
    if (whole && id.isIteration()) return fusion.newIterDomain(id.extent, 'Iteration');
    // manualNormalization (nvFuser's manual_normalization=True): the caller promises
    // 0 <= start <= stop <= size, so the indices are used as they are.
    const manual = options.manualNormalization === true;
    const a = manual ? start : normalizeIndex(start, size);
    const b = manual ? stop : extentOp('maximum', normalizeIndex(stop, size), a);
    const extent = extentOp('ceilDiv', extentOp('sub', b, a), step);
    if (id.isBroadcast() && extent.constNumber() === 1 && id.expandedExtent === null) return fusion.newIterDomain(extent, 'Broadcast');
    return fusion.newIterDomain(extent, 'Iteration');
  });
  const out = fusion.newTensorFromDomain(logical, tv.dtype);
  new SliceOp(fusion, out, tv, ranges);
  return out;
}

/** torch's index normalization: i < 0 counts from the end; the result is clamped to [0, size]. */
function normalizeIndex(i: Scalar, size: Scalar): Scalar {
  const c = i.constNumber();
  const s = size.constNumber();
  let shifted: Scalar;
  if (c !== null) shifted = c < 0 ? extentOp('add', i, size) : i;
  else shifted = where(lt(i, 0), extentOp('add', i, size), i) as Scalar;
  if (shifted.constNumber() !== null && s !== null) return i.fusion.index(Math.min(Math.max(shifted.constNumber() as number, 0), s));
  return extentOp('minimum', extentOp('maximum', shifted, i.fusion.index(0)), size);
}

/**
 * pad(tv, widths, value = 0) — torch.nn.functional.pad: widths = [left, right] pairs starting
 * from the last dim ([l_last, r_last, l_prev, r_prev, …]); negative widths crop. New elements
 * are `value` cast to the tensor's dtype.
 */
export function pad(tv: TensorView, widths: readonly SizeOperand[], value: Scalar | number | boolean = 0): TensorView {
  const fusion = tv.fusion;
  const ids = tv.domain.logicalNoReductions();
  const rank = ids.length;
  if (widths.length % 2 !== 0 || widths.length > 2 * rank) {
    throw new FusionIrError(`pad: ${widths.length} widths for ${describe(tv)}; expected an even number, at most ${2 * rank}`);
  }
  const w = widths.map((x) => toExtent(fusion, 'pad', x));
  const v = typeof value === 'object' ? (value.dtype === tv.dtype ? value : cast(value, tv.dtype)) : fusion.constant(padValue(value, tv.dtype), tv.dtype);
  // A padded broadcast dim becomes a real dim through expand + where (pad-broadcast.ts); the PadOp pads the others.
  const viaMask = padBroadcastDims(tv, w, v);
  if (viaMask !== null) return viaMask.widths.every((x) => x.constNumber() === 0) ? viaMask.tv : pad(viaMask.tv, viaMask.widths, v);
  // Widths known only at run time: a gather and a where (pad-broadcast.ts); the PadOp keeps the constant ones.
  const viaGather = padRuntimeWidthDims(tv, w, v);
  if (viaGather !== null) return viaGather.widths.every((x) => x.constNumber() === 0) ? viaGather.tv : pad(viaGather.tv, viaGather.widths, v);
  const logical = ids.map((id, d) => {
    const k = rank - 1 - d; // pair index: the last dim comes first
    if (2 * k >= w.length) return fusion.newIterDomain(id.extent, id.isBroadcast() ? 'Broadcast' : 'Iteration', { expandedExtent: id.expandedExtent });
    const extent = extentOp('add', extentOp('add', id.logicalExtent(), w[2 * k] as Scalar), w[2 * k + 1] as Scalar);
    const c = extent.constNumber();
    if (c !== null && c < 0) {
      throw new FusionIrError(`pad: dim ${d} of ${describe(tv)} would get negative size ${c} from widths [${widths.join(', ')}]`);
    }
    return fusion.newIterDomain(extent, 'Iteration');
  });
  const out = fusion.newTensorFromDomain(logical, tv.dtype);
  new PadOp(fusion, out, tv, w, v);
  return out;
}

function padValue(value: number | boolean, dtype: DataType): number | boolean {
  if (dtype === 'Bool') return Boolean(value);
  const n = Number(value);
  return categoryOf(dtype) === 1 ? Math.trunc(n) : n;
}

/**
 * cat(tensors, dim) — torch.cat: all tensors have the same rank and the same sizes except along
 * `dim`; the output dtype promotes the inputs' dtypes (inputs of another dtype are cast first).
 */
export function cat(tensors: readonly TensorView[], dim: number): TensorView {
  const first = tensors[0];
  if (first === undefined) throw new FusionIrError('cat: needs at least one tensor');
  const fusion = first.fusion;
  const rank = first.rank();
  const axis = normalizeDim('cat', first, dim);
  const shapes = tensors.map(shape);
  tensors.forEach((t, i) => {
    if (t.fusion !== fusion) throw new FusionIrError(`cat: T${t.name} belongs to another fusion`);
    const s = shapes[i] as Scalar[];
    const bad =
      s.length !== rank ||
      s.some((e, d) => {
        if (d === axis) return false;
        const a = e.constNumber();
        const b = ((shapes[0] as Scalar[])[d] as Scalar).constNumber();
        return a !== null && b !== null && a !== b;
      });
    if (bad) {
      throw new FusionIrError(
        `cat along dim ${axis}: T${t.name} has sizes ${sizesText(s)} but T${first.name} has ${sizesText(shapes[0] as Scalar[])}; sizes must match except in dim ${axis}`,
      );
    }
  });
  const dtype = resultType(tensors.map(promotionOperand));
  // An input that is a broadcast along the cat dim gets a real dim first (a zero-width pad:
  // pad-broadcast.ts), so the CatOp never resizes a broadcast ID.
  const zeroWidths = new Array<number>(2 * (rank - axis)).fill(0);
  const inputs = tensors.map((t) => (t.dtype === dtype ? t : cast(t, dtype))).map((t) => ((t.domain.logicalNoReductions()[axis] as IterDomain).isBroadcast() ? pad(t, zeroWidths) : t));
  let axisExtent = fusion.index(0);
  for (const s of shapes) axisExtent = extentOp('add', axisExtent, s[axis] as Scalar);
  const logical: IterDomain[] = [];
  for (let d = 0; d < rank; d += 1) {
    if (d === axis) {
      logical.push(fusion.newIterDomain(axisExtent, 'Iteration'));
      continue;
    }
    const ids = tensors.map((t) => t.domain.logicalNoReductions()[d] as IterDomain);
    const concrete = ids.find((id) => !id.isBroadcast());
    if (concrete !== undefined) logical.push(fusion.newIterDomain(concrete.logicalExtent(), 'Iteration'));
    else logical.push(fusion.newIterDomain(fusion.index(1), 'Broadcast'));
  }
  const out = fusion.newTensorFromDomain(logical, dtype);
  new CatOp(fusion, out, inputs, axis);
  return out;
}
