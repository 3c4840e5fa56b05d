// Indexing ops in the reference evaluator: select, index_select, gather / take_along_axis,
// scatter, index_put_accumulate and embedding forward, with PyTorch's semantics. Every index
// value is checked: one outside [0, size) — or, for select only, outside [-size, size), which
// wraps as torch.select does — is an EvaluationError naming the op, the tensor, the dim, the
// value and where in the index it sits (PyTorch raises on the CPU and traps on the GPU; no
// value is ever read from outside a tensor). Reads copy storage elements as they are (no
// rounding); index_put_accumulate adds in float64 (exact int64 for integers) and rounds once.

import { isFloatingType } from '../ir/data-type.js';
import { EvaluationError } from '../ir/errors.js';
import type { EmbeddingFwdOp, GatherOp, IndexingExpr, IndexPutAccumulateOp, IndexSelectOp, ScatterOp, SelectOp } from '../ir/indexing-exprs.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { EvalContext } from './evaluator.js';
import { HostTensor, writeStorage } from './host-tensor.js';
import { broadcastStrides, readerFor } from './strided.js';
import { toFloat, toInt } from './values.js';

/** Calls fn(multiIndex) for every point of `sizes` in row-major order (the array is reused). */
function forEachPoint(sizes: readonly number[], fn: (at: number[]) => void): void {
  if (sizes.some((s) => s === 0)) return;
  const at = new Array<number>(sizes.length).fill(0);
  for (;;) {
    fn(at);
    let d = sizes.length - 1;
    while (d >= 0) {
      at[d] = (at[d] as number) + 1;
      if ((at[d] as number) < (sizes[d] as number)) break;
      at[d] = 0;
      d -= 1;
    }
    if (d < 0) return;
  }
}

function offsetOf(at: readonly number[], strides: readonly number[], base: number): number {
  let pos = base;
  for (let d = 0; d < at.length; d += 1) pos += (at[d] as number) * (strides[d] as number);
  return pos;
}

/** An index tensor's value at storage position `pos` as a JS integer. */
function indexReader(t: HostTensor): (pos: number) => number {
  const read = readerFor(t);
  return (pos) => Number(toInt(read(pos)));
}

function outOfRange(op: string, out: TensorView, value: number, dim: number, size: number, lookup: TensorView, at: readonly number[]): EvaluationError {
  return new EvaluationError(
    `${op} producing T${out.name}: index ${value} is out of bounds for dim ${dim} of T${lookup.name} with size ${size} (at index position [${at.join(', ')}])`,
  );
}

function checkSizes(op: string, out: TensorView, what: string, have: readonly number[], limit: readonly number[], skip: number, exact: boolean): void {
  have.forEach((s, d) => {
    if (d === skip) return;
    const l = limit[d] as number;
    const ok = exact ? s === l || s === 1 || l === 1 : s <= l;
    if (!ok) {
      throw new EvaluationError(
        `${op} producing T${out.name}: ${what} sizes [${have.join(', ')}] do not fit [${limit.join(', ')}] at dim ${d}${exact ? ' (sizes off the indexed dim must match)' : ''}`,
      );
    }
  });
}

function evalSelect(ctx: EvalContext, e: SelectOp): void {
  const out = e.outputs[0] as TensorView;
  const lookup = e.lookupTv();
  const t = ctx.tensor(lookup);
  const size = t.sizes[e.dim] as number;
  const raw = Number(toInt(ctx.scalar(e.indexScalar() as Scalar)));
  if (raw < -size || raw >= size) throw outOfRange('select', out, raw, e.dim, size, lookup, []);
  const index = raw < 0 ? raw + size : raw;
  const sizes = t.sizes.filter((_, d) => d !== e.dim);
  const strides = t.strides.filter((_, d) => d !== e.dim);
  // A view, as torch.select returns one.
  ctx.bind(out, new HostTensor(t.dtype, sizes, strides, t.data, t.offset + index * (t.strides[e.dim] as number)));
}

/**
 * out[p] = lookup[p with dim `dim` replaced by index[p]] for every point p of the output; the
 * index is read at p through broadcast strides, the lookup off `dim` through its own.
 */
function gatherRows(op: string, ctx: EvalContext, out: TensorView, lookupTv: TensorView, indexTv: TensorView, dim: number): void {
  const lookup = ctx.tensor(lookupTv);
  const index = ctx.tensor(indexTv);
  const sizes = ctx.sizesOf(out);
  const result = HostTensor.empty(out.dtype, sizes);
  const indexStrides = broadcastStrides(index, sizes);
  // The indexed dim is addressed by the index value; a size-1 (broadcast) lookup dim by 0.
  const lookupStrides = lookup.strides.map((s, d) => (d === dim || (lookup.sizes[d] as number) === 1 ? 0 : s));
  const size = lookup.sizes[dim] as number;
  const stride = lookup.strides[dim] as number;
  const readIndex = indexReader(index);
  const src = lookup.data;
  const dst = result.data;
  let linear = 0;
  forEachPoint(sizes, (at) => {
    const v = readIndex(offsetOf(at, indexStrides, index.offset));
    if (v < 0 || v >= size) throw outOfRange(op, out, v, dim, size, lookupTv, at);
    dst[linear] = src[offsetOf(at, lookupStrides, lookup.offset) + v * stride] as number & bigint;
    linear += 1;
  });
  ctx.bind(out, result);
}

function evalIndexSelect(ctx: EvalContext, e: IndexSelectOp): void {
  gatherRows('index_select', ctx, e.outputs[0] as TensorView, e.lookupTv(), e.indexTv(), e.dim);
}

function evalGather(ctx: EvalContext, e: GatherOp): void {
  const out = e.outputs[0] as TensorView;
  const op = e.exactSizes ? 'take_along_axis' : 'gather';
  const lookup = ctx.tensor(e.lookupTv());
  const index = ctx.tensor(e.indexTv());
  checkSizes(op, out, 'index', index.sizes, lookup.sizes, e.dim, e.exactSizes);
  gatherRows(op, ctx, out, e.lookupTv(), e.indexTv(), e.dim);
}

function evalEmbedding(ctx: EvalContext, e: EmbeddingFwdOp): void {
  const out = e.outputs[0] as TensorView;
  const weight = ctx.tensor(e.weightTv());
  const rows = weight.sizes[0] as number;
  if (e.paddingIdx !== null) {
    const p = Number(toInt(ctx.scalar(e.paddingIdx)));
    if (p < -rows || p >= rows) throw new EvaluationError(`embedding_fwd producing T${out.name}: padding_idx ${p} must be within num_embeddings ${rows}`);
  }
  const index = ctx.tensor(e.indexTv());
  const sizes = ctx.sizesOf(out);
  const result = HostTensor.empty(out.dtype, sizes);
  const cols = sizes[sizes.length - 1] as number;
  const readIndex = indexReader(index);
  let linear = 0;
  forEachPoint(index.sizes, (at) => {
    const v = readIndex(offsetOf(at, index.strides, index.offset));
    if (v < 0 || v >= rows) throw outOfRange('embedding_fwd', out, v, 0, rows, e.weightTv(), at);
    const base = weight.offset + v * (weight.strides[0] as number);
    for (let j = 0; j < cols; j += 1) {
      result.data[linear] = weight.data[base + j * (weight.strides[1] as number)] as number & bigint;
      linear += 1;
    }
  });
  ctx.bind(out, result);
}

function evalScatter(ctx: EvalContext, e: ScatterOp): void {
  const out = e.outputs[0] as TensorView;
  const self = ctx.tensor(e.selfTv()).contiguous();
  const index = ctx.tensor(e.indexTv());
  const srcVal = e.src();
  const src = srcVal.kind === 'tensorView' ? ctx.tensor(srcVal) : null;
  checkSizes('scatter', out, 'index', index.sizes, self.sizes, e.dim, false);
  if (src !== null) checkSizes('scatter', out, 'index', index.sizes, src.sizes, -1, false);
  const result = HostTensor.empty(out.dtype, self.sizes);
  // Same dtype, so the same storage kind: a raw copy.
  (result.data as Float64Array).set(self.data as unknown as Float64Array);
  const size = self.sizes[e.dim] as number;
  const stride = result.strides[e.dim] as number;
  const outStrides = result.strides.map((s, d) => (d === e.dim ? 0 : s));
  const readIndex = indexReader(index);
  const scalar = src === null ? ctx.scalar(srcVal as Scalar) : null;
  forEachPoint(index.sizes, (at) => {
    const v = readIndex(offsetOf(at, index.strides, index.offset));
    if (v < 0 || v >= size) throw outOfRange('scatter', out, v, e.dim, size, e.selfTv(), at);
    const pos = offsetOf(at, outStrides, 0) + v * stride;
    // Duplicate indices: the last write in row-major order of the index wins (PyTorch's CPU order).
    if (src === null) writeStorage(out.dtype, result.data, pos, scalar as number);
    else result.data[pos] = src.data[offsetOf(at, src.strides, src.offset)] as number & bigint;
  });
  ctx.bind(out, result);
}

function evalIndexPutAccumulate(ctx: EvalContext, e: IndexPutAccumulateOp): void {
  const out = e.outputs[0] as TensorView;
  const acc = ctx.tensor(e.accTv());
  const index = ctx.tensor(e.indexTv());
  const value = ctx.tensor(e.valueTv());
  const rows = index.sizes[0] as number;
  const expected = [rows, ...acc.sizes.slice(1)];
  const valueStrides = broadcastStrides(value, expected);
  if (value.rank !== expected.length || value.sizes.some((s, d) => s !== expected[d] && s !== 1)) {
    throw new EvaluationError(`index_put_accumulate producing T${out.name}: value sizes [${value.sizes.join(', ')}] must be [${expected.join(', ')}]`);
  }
  const size = acc.sizes[0] as number;
  const inner = acc.sizes.slice(1);
  const innerCount = inner.reduce((a, b) => a * b, 1);
  const float = isFloatingType(out.dtype);
  const sums: (number | bigint)[] = new Array<number | bigint>(acc.numel);
  for (let i = 0; i < acc.numel; i += 1) sums[i] = float ? toFloat(acc.get(i)) : toInt(acc.get(i));
  const readIndex = indexReader(index);
  const readValue = readerFor(value);
  for (let m = 0; m < rows; m += 1) {
    const v = readIndex(index.offset + m * (index.strides[0] as number));
    if (v < 0 || v >= size) throw outOfRange('index_put_accumulate', out, v, 0, size, e.accTv(), [m]);
    let k = 0;
    forEachPoint(inner, (at) => {
      const x = readValue(offsetOf([m, ...at], valueStrides, value.offset));
      const slot = v * innerCount + k;
      sums[slot] = float ? (sums[slot] as number) + toFloat(x) : BigInt.asIntN(64, (sums[slot] as bigint) + toInt(x));
      k += 1;
    });
  }
  const result = HostTensor.empty(out.dtype, acc.sizes);
  sums.forEach((s, i) => writeStorage(out.dtype, result.data, i, s));
  ctx.bind(out, result);
}

export function evalIndexing(ctx: EvalContext, e: IndexingExpr): void {
  switch (e.kind) {
    case 'SelectOp':
      evalSelect(ctx, e);
      return;
    case 'IndexSelectOp':
      evalIndexSelect(ctx, e);
      return;
    case 'GatherOp':
      evalGather(ctx, e);
      return;
    case 'ScatterOp':
      evalScatter(ctx, e);
      return;
    case 'IndexPutAccumulateOp':
      evalIndexPutAccumulate(ctx, e);
      return;
    case 'EmbeddingFwdOp':
      evalEmbedding(ctx, e);
      return;
    default: {
      const unreachable: never = e;
      throw new Error(`unknown indexing expr ${String(unreachable)}`);
    }
  }
}
