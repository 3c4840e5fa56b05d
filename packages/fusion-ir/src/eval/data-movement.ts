// Data-movement ops in the reference evaluator. Broadcast, squeeze, expand, permute, set and
// slice are views over the producer's storage (new sizes/strides/offset, no copy); reshape reads
// the producer in row-major order; pad, cat, full and iota build new tensors.

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
import { forEachElement, readerFor } from './strided.js';
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
      const sizes: number[] = [];
      const strides: number[] = [];
      expr.isSqueezeDim.forEach((drop, d) => {
        if (drop) {
          if ((t.sizes[d] as number) !== 1) {
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
        const d = rank - 1 - i;
        left[d] = Number(ctx.scalar(expr.widths[2 * i] as Scalar));
      }
      const value = castTo(ctx.scalar(expr.value), out.dtype);
      const result = HostTensor.empty(out.dtype, sizes);
      const read = readerFor(t);
      for (let i = 0; i < result.numel; i += 1) writeStorage(out.dtype, result.data, i, value);
      const outStrides = contiguous(sizes);
      forEachElement(t.sizes, [{ strides: t.strides, offset: t.offset }], (linear, offsets) => {
        let rem = linear;
        let pos = 0;
        for (let d = rank - 1; d >= 0; d -= 1) {
          const size = t.sizes[d] as number;
          const idx = rem % size;
          rem = (rem - idx) / size;
          const o = idx + (left[d] as number);
          if (o < 0 || o >= (sizes[d] as number)) return; // cropped by a negative width
          pos += o * (outStrides[d] as number);
        }
        writeStorage(out.dtype, result.data, pos, castTo(read(offsets[0] as number), out.dtype));
      });
      ctx.bind(out, result);
      return;
    }
    case 'CatOp': {
      const sizes = ctx.sizesOf(out);
      const result = HostTensor.empty(out.dtype, sizes);
      const outStrides = contiguous(sizes);
      let base = 0;
      for (const input of expr.inputs as TensorView[]) {
        const t = ctx.tensor(input);
        const read = readerFor(t);
        const shift = base * (outStrides[expr.axis] as number);
        const dstStrides = outStrides.slice(0, t.rank);
        forEachElement(t.sizes, [{ strides: t.strides, offset: t.offset }, { strides: dstStrides, offset: shift }], (_l, offsets) => {
          writeStorage(out.dtype, result.data, offsets[1] as number, castTo(read(offsets[0] as number), out.dtype));
        });
        base += t.sizes[expr.axis] as number;
      }
      ctx.bind(out, result);
      return;
    }
    case 'FullOp': {
      const sizes = ctx.sizesOf(out);
      const value = castTo(ctx.scalar(expr.fillValue), out.dtype);
      const result = HostTensor.empty(out.dtype, sizes);
      for (let i = 0; i < result.numel; i += 1) writeStorage(out.dtype, result.data, i, value);
      ctx.bind(out, result);
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
