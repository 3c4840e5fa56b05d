// Data-movement ops in the reference evaluator. Broadcast, squeeze, expand, permute, set and
// slice are views over the producer's storage (new sizes/strides/offset, no copy); reshape reads
// the producer in row-major order; pad, cat, full and iota build new tensors.

import { isComplexType } from '../ir/data-type.js';
import { EvaluationError } from '../ir/errors.js';
import type {
  BroadcastOp,
  CatOp,
  ExpandOp,
  FullOp,
  IotaOp,
  LoadStoreOp,
  PadOp,
  SliceOp,
  SqueezeOp,
  ViewOp,
} from '../ir/expr.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { EvalContext } from './evaluator.js';
import { HostTensor, writeStorage, type ElementValue } from './host-tensor.js';
import { forEachRow } from './strided.js';
import { castTo, toFloat, toInt } from './values.js';

type DataMovementExpr = BroadcastOp | SqueezeOp | ExpandOp | ViewOp | LoadStoreOp | SliceOp | PadOp | CatOp | FullOp | IotaOp;

export function evalDataMovement(ctx: EvalContext, expr: DataMovementExpr): void {
  const out = expr.out() as TensorView;
  switch (expr.kind) {
    case 'BroadcastOp': {
      const t = ctx.tensor(expr.in() as TensorView);
      const sizes: number[] = [];
      const strides: number[] = [];
      let k = 0;
      for (const isNew of expr.isBroadcastDim) {
        if (isNew) {
          sizes.push(1);
          strides.push(0);
        } else {
          sizes.push(t.sizes[k] as number);
          strides.push(t.strides[k] as number);
          k += 1;
        }
      }
      ctx.bind(out, new HostTensor(t.dtype, sizes, strides, t.data, t.offset));
      return;
    }
    case 'SqueezeOp': {
      const t = ctx.tensor(expr.in() as TensorView);
      const ids = (expr.in() as TensorView).domain.logicalNoReductions();
      const sizes: number[] = [];
      const strides: number[] = [];
      expr.isSqueezeDim.forEach((drop, d) => {
        if (drop) {
          // An expanded broadcast (stride 0, squeeze_expanded=True) holds one value per row; an
          // empty tensor holds none, whatever its strides (nvFuser's test_pad_expanded_empty).
          // An expanded broadcast of an intermediate is held densely here (pointwise results are
          // materialized) but its values are equal along the dim: the first is kept, as the
          // kernels read it (a reduction over an expanded dim squeezes it: fusion-ir reductionOp).
          const expanded = ids[d]?.isBroadcast() === true && ids[d]?.expandedExtent !== null;
          if ((t.sizes[d] as number) !== 1 && t.strides[d] !== 0 && t.numel !== 0 && !expanded) {
            throw new EvaluationError(`squeeze producing T${out.name}: dim ${d} has size ${t.sizes[d]}, not 1`);
          }
          return;
        }
        sizes.push(t.sizes[d] as number);
        strides.push(t.strides[d] as number);
      });
      ctx.bind(out, new HostTensor(t.dtype, sizes, strides, t.data, t.offset));
      return;
    }
    case 'ExpandOp': {
      const t = ctx.tensor(expr.in() as TensorView);
      const sizes = ctx.sizesOf(out);
      if (t.rank !== sizes.length || t.sizes.some((s, d) => s !== 1 && s !== sizes[d])) {
        throw new EvaluationError(`expand producing T${out.name}: input sizes [${t.sizes.join(', ')}] cannot expand to [${sizes.join(', ')}]`);
      }
      // A symbolic size given for a non-broadcast dim must be that dim's size (PyTorch's check).
      expr.expandedExtents().forEach((e, d) => {
        const want = Number(ctx.scalar(e));
        const have = t.sizes[d] as number;
        if (have !== 1 && want !== -1 && want !== have) {
          throw new EvaluationError(`expand producing T${out.name}: the expanded size of the tensor (${want}) must match the existing size (${have}) at non-singleton dimension ${d}`);
        }
      });
      const strides = sizes.map((s, d) => ((t.sizes[d] as number) === 1 && s !== 1 ? 0 : (t.strides[d] as number)));
      ctx.bind(out, new HostTensor(t.dtype, sizes, strides, t.data, t.offset));
      return;
    }
    case 'LoadStoreOp': {
      const t = ctx.tensor(expr.in() as TensorView);
      const perm = expr.permutation;
      if (perm === null) {
        ctx.bind(out, t);
        return;
      }
      ctx.bind(
        out,
        new HostTensor(t.dtype, perm.map((p) => t.sizes[p] as number), perm.map((p) => t.strides[p] as number), t.data, t.offset),
      );
      return;
    }
    case 'SliceOp': {
      const t = ctx.tensor(expr.in() as TensorView);
      let offset = t.offset;
      const sizes: number[] = [];
      const strides: number[] = [];
      expr.ranges.forEach((r, d) => {
        const size = t.sizes[d] as number;
        const step = ctx.extent(r.step);
        if (step <= 0) throw new EvaluationError(`slice producing T${out.name}: step must be positive, got ${step}`);
        const start = clampIndex(ctx.extent(r.start), size);
        const stop = Math.max(clampIndex(ctx.extent(r.stop), size), start);
        offset += start * (t.strides[d] as number);
        sizes.push(Math.ceil((stop - start) / step));
        strides.push((t.strides[d] as number) * step);
      });
      ctx.bind(out, new HostTensor(t.dtype, sizes, strides, t.data, offset));
      return;
    }
    case 'ViewOp': {
      const t = ctx.tensor(expr.in() as TensorView);
      // The sizes asked for (a symbolic one is known only now): the output's extents are derived
      // from the input's by the reshape's splits and would round a wrong request silently.
      const asked = expr.newSizes.map((s) => ctx.extent(s));
      const askedNumel = asked.reduce((a, b) => a * b, 1);
      const inNumel = expr.originalSizes.map((s) => ctx.extent(s)).reduce((a, b) => a * b, 1);
      if (askedNumel !== inNumel) {
        throw new EvaluationError(`reshape producing T${out.name}: shape [${asked.join(', ')}] is invalid for input of size ${inNumel} (sizes [${t.sizes.join(', ')}])`);
      }
      const sizes = ctx.sizesOf(out);
      const numel = sizes.reduce((a, b) => a * b, 1);
      if (numel !== t.numel) {
        throw new EvaluationError(
          `reshape producing T${out.name}: input has ${t.numel} elements (sizes [${t.sizes.join(', ')}]) but the new shape [${sizes.join(', ')}] has ${numel}`,
        );
      }
      const c = t.contiguous();
      ctx.bind(out, new HostTensor(c.dtype, sizes, contiguous(sizes), c.data, 0));
      return;
    }
    case 'PadOp': {
      const t = ctx.tensor(expr.in() as TensorView);
      const sizes = ctx.sizesOf(out);
      const rank = t.rank;
      const left = new Array<number>(rank).fill(0);
      for (let i = 0; i < expr.widths.length / 2; i += 1) {
        left[rank - 1 - i] = ctx.extent(expr.widths[2 * i] as Scalar);
      }
      const result = filled(out, sizes, castTo(ctx.scalar(expr.value), out.dtype));
      // The input region that survives (negative widths crop) and where it lands.
      const srcStart = left.map((l) => Math.max(0, -l));
      const dstStart = left.map((l) => Math.max(0, l));
      const count = t.sizes.map((s, d) =>
        Math.max(0, Math.min(s - (srcStart[d] as number), (sizes[d] as number) - (dstStart[d] as number))));
      const srcOffset = t.offset + srcStart.reduce((acc, i, d) => acc + i * (t.strides[d] as number), 0);
      const dstOffset = dstStart.reduce((acc, i, d) => acc + i * (result.strides[d] as number), 0);
      copyRegion(t, count, t.strides, srcOffset, result, dstOffset);
      ctx.bind(out, result);
      return;
    }
    case 'CatOp': {
      const sizes = ctx.sizesOf(out);
      const result = HostTensor.empty(out.dtype, sizes);
      let base = 0;
      for (const input of expr.inputs as TensorView[]) {
        const t = ctx.tensor(input);
        const expected = sizes.map((s, d) => (d === expr.axis ? (t.sizes[d] as number) : s));
        if (t.rank !== sizes.length || t.sizes.some((s, d) => s !== expected[d])) {
          throw new EvaluationError(
            `cat producing T${out.name}: T${input.name} has sizes [${t.sizes.join(', ')}], expected [${expected.join(', ')}] (all dims but ${expr.axis} must match)`,
          );
        }
        copyRegion(t, t.sizes, t.strides, t.offset, result, base * (result.strides[expr.axis] as number));
        base += t.sizes[expr.axis] as number;
      }
      ctx.bind(out, result);
      return;
    }
    case 'FullOp': {
      const sizes = ctx.sizesOf(out);
      ctx.bind(out, filled(out, sizes, castTo(ctx.scalar(expr.fillValue), out.dtype)));
      return;
    }
    case 'IotaOp': {
      const length = ctx.extent(expr.length);
      const result = HostTensor.empty(out.dtype, [length]);
      const start = ctx.scalar(expr.start);
      const step = ctx.scalar(expr.step);
      for (let i = 0; i < length; i += 1) {
        const v: ElementValue =
          typeof start === 'bigint' || typeof step === 'bigint'
            ? toInt(start) + BigInt(i) * toInt(step)
            : toFloat(start) + i * toFloat(step);
        writeStorage(out.dtype, result.data, i, castTo(v, out.dtype));
      }
      ctx.bind(out, result);
      return;
    }
    default: {
      const unreachable: never = expr;
      throw new Error(`unknown data movement expr ${String(unreachable)}`);
    }
  }
}

/** A new contiguous tensor of `out`'s dtype with every element `value`. */
function filled(out: TensorView, sizes: readonly number[], value: ElementValue): HostTensor {
  const result = HostTensor.empty(out.dtype, sizes);
  if (result.numel === 0) return result;
  writeStorage(out.dtype, result.data, 0, value);
  if (isComplexType(out.dtype)) {
    for (let i = 1; i < result.numel; i += 1) writeStorage(out.dtype, result.data, i, value);
    return result;
  }
  const data = result.data;
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) data.fill(data[0] as bigint);
  else data.fill(data[0] as number);
  return result;
}

/**
 * Copies the `sizes` region of `src` (read with `strides` from `srcOffset`) into the contiguous
 * tensor `dst` at `dstOffset`, element for element (both have the same dtype).
 */
function copyRegion(
  src: HostTensor,
  sizes: readonly number[],
  strides: readonly number[],
  srcOffset: number,
  dst: HostTensor,
  dstOffset: number,
): void {
  if (src.dtype !== dst.dtype) throw new EvaluationError(`internal: copy from ${src.dtype} to ${dst.dtype}`);
  const inner = sizes.length === 0 ? 0 : (strides[sizes.length - 1] as number);
  const dstInner = sizes.length === 0 ? 0 : (dst.strides[sizes.length - 1] as number);
  const from = src.data as Float64Array; // element copies are the same for every typed array kind
  const to = dst.data as Float64Array;
  if (isComplexType(src.dtype)) {
    // Interleaved (re, im) pairs: element p occupies slots 2p and 2p + 1.
    forEachRow(sizes, [{ strides, offset: srcOffset }, { strides: dst.strides, offset: dstOffset }], (_l, offsets, n) => {
      let p = offsets[0] as number;
      let q = offsets[1] as number;
      for (let j = 0; j < n; j += 1, p += inner, q += dstInner) {
        to[2 * q] = from[2 * p] as number;
        to[2 * q + 1] = from[2 * p + 1] as number;
      }
    });
    return;
  }
  forEachRow(sizes, [{ strides, offset: srcOffset }, { strides: dst.strides, offset: dstOffset }], (_l, offsets, n) => {
    let p = offsets[0] as number;
    let q = offsets[1] as number;
    for (let j = 0; j < n; j += 1, p += inner, q += dstInner) to[q] = from[p] as number;
  });
}

function clampIndex(i: number, size: number): number {
  const j = i < 0 ? i + size : i;
  return Math.min(Math.max(j, 0), size);
}

function contiguous(sizes: readonly number[]): number[] {
  const strides = new Array<number>(sizes.length);
  let acc = 1;
  for (let d = sizes.length - 1; d >= 0; d -= 1) {
    strides[d] = acc;
    acc *= Math.max(sizes[d] as number, 1);
  }
  return strides;
}
