// Reductions and Welford in the reference evaluator. The output's logical domain lists every
// input dim, reduced ones as Reduction IDs; results are accumulated in float64 (or exact int64)
// starting from the op's init value, in row-major order of the input, and rounded to the output
// dtype once at the end. max/min propagate NaN as torch.amax/amin do.
//
// rFactor (a schedule) must not change values. Its partial tensor — a reduction output whose
// logical domain was derived from its root by Split/Merge — is evaluated as a pass-through of
// its input over the root domain, remembering which root dims are reductions; the final
// reduction then reduces exactly the original dims, in the original order, so a scheduled fusion
// gives bit-identical results to the unscheduled one.

import { EvaluationError } from '../ir/errors.js';
import type { ReductionOp, WelfordOp } from '../ir/expr.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { EvalContext } from './evaluator.js';
import { HostTensor, contiguousStrides, writeStorage } from './host-tensor.js';
import { forEachElement, forEachRow, gatherFloat64, readerFor } from './strided.js';
import { castTo, computeKindOf, storeFloat64, toComplex, toFloat, toInt } from './values.js';
import { Complex } from '../ir/complex-value.js';
import type { DataType } from '../ir/data-type.js';
import type { ElementValue } from './host-tensor.js';

/**
 * True for the partial tensor of an rFactor: a reduction output with a root domain (plain
 * reductions have none). Its logical domain may equal the root when the rFactored reduction IDs
 * were not split (transforms/rfactor.ts), so the root's presence is the criterion.
 */
export function isRFactorProducer(tv: TensorView): boolean {
  const def = tv.definition;
  return tv.domain.root !== null && def !== null && (def.kind === 'ReductionOp' || def.kind === 'WelfordOp');
}

/**
 * Which dims of the input value `input` reduces into `out`: the output's logical Reduction IDs,
 * or, for an input that is an rFactor pass-through, the reduction dims it carries.
 */
function reducedDims(ctx: EvalContext, out: TensorView, input: TensorView, value: HostTensor): readonly boolean[] {
  const carried = ctx.passThroughFlags(input);
  const flags = carried === null ? out.domain.logical.map((id) => id.isReduction()) : withLaterReductions(carried, input, out);
  if (flags.length !== value.rank) {
    throw new EvaluationError(`T${out.name}: reduction over ${flags.length} dims of an input value of rank ${value.rank} (T${input.name})`);
  }
  return flags;
}

/**
 * nvFuser's rFactor keeps a reduction ID that has no rFactored part as an Iteration ID of the
 * partial tensor P (root ID = logical ID) and lets the final reduction reduce it: such a root dim
 * is reduced when the final output's logical ID at its position among P's kept dims is a reduction.
 */
function withLaterReductions(carried: readonly boolean[], partial: TensorView, out: TensorView): boolean[] {
  const root = partial.domain.root ?? [];
  const kept = partial.domain.logicalNoReductions();
  return carried.map((f, d) => {
    if (f) return true;
    const k = kept.indexOf(root[d] as (typeof kept)[number]);
    return k >= 0 && out.domain.logical[k]?.isReduction() === true;
  });
}

/** Output position strides per input dim: row-major over the kept dims, 0 over reduced ones. */
function outputStrides(flags: readonly boolean[], inSizes: readonly number[], outSizes: readonly number[], where: string): number[] {
  const keptSizes = inSizes.filter((_, d) => !flags[d]);
  if (keptSizes.length !== outSizes.length || keptSizes.some((s, i) => s !== outSizes[i])) {
    throw new EvaluationError(`${where}: kept input sizes [${keptSizes.join(', ')}] differ from the output sizes [${outSizes.join(', ')}]`);
  }
  const strides = new Array<number>(inSizes.length).fill(0);
  let acc = 1;
  for (let d = inSizes.length - 1; d >= 0; d -= 1) {
    if (flags[d]) continue;
    strides[d] = acc;
    acc *= Math.max(inSizes[d] as number, 1);
  }
  return strides;
}

/** Binds a pass-through for an rFactor partial tensor; returns false when `out` is not one. */
function bindPassThrough(ctx: EvalContext, out: TensorView, input: TensorView): boolean {
  if (!isRFactorProducer(out)) return false;
  const root = out.domain.root ?? [];
  ctx.bindPassThrough(out, ctx.tensor(input), ctx.passThroughFlags(input) ?? root.map((id) => id.isReduction()));
  return true;
}

export function evalReduction(ctx: EvalContext, expr: ReductionOp): void {
  const inTv = expr.in() as TensorView;
  const out = expr.out() as TensorView;
  if (bindPassThrough(ctx, out, inTv)) return;
  const input = ctx.tensor(inTv);
  const where = `${expr.op} reduction producing T${out.name}`;
  const outSizes = ctx.sizesOf(out);
  const numOut = outSizes.reduce((a, b) => a * b, 1);
  const kind = computeKindOf(out.dtype);
  const init = castTo(ctx.scalar(expr.init), out.dtype);
  const strides = outputStrides(reducedDims(ctx, out, inTv, input), input.sizes, outSizes, where);
  if (kind === 'float') {
    const acc = new Float64Array(numOut).fill(toFloat(init));
    reduceFloat(expr.op, gatherFloat64(input, input.sizes), input.sizes, strides, acc);
    ctx.bind(out, new HostTensor(out.dtype, outSizes, contiguousStrides(outSizes), storeFloat64(out.dtype, acc)));
    return;
  }
  if (kind === 'complex') {
    ctx.bind(out, reduceComplex(expr.op, input, strides, outSizes, init, out.dtype, where));
    return;
  }
  const result = HostTensor.empty(out.dtype, outSizes);
  const acc = new Array<bigint>(numOut).fill(toInt(init));
  const read = readerFor(input);
  const op = expr.op;
  forEachElement(input.sizes, [{ strides: input.strides, offset: input.offset }, { strides, offset: 0 }], (_l, offsets) => {
    const x = toInt(read(offsets[0] as number));
    const o = offsets[1] as number;
    const a = acc[o] as bigint;
    acc[o] = op === 'add' ? a + x : op === 'mul' ? a * x : op === 'max' ? (x > a ? x : a) : x < a ? x : a;
  });
  for (let i = 0; i < numOut; i += 1) writeStorage(out.dtype, result.data, i, castTo(acc[i] as bigint, out.dtype));
  ctx.bind(out, result);
}

/** Complex sums (the one reduction PyTorch defines on complex): (re, im) accumulated in float64. */
function reduceComplex(
  op: ReductionOp['op'],
  input: HostTensor,
  strides: readonly number[],
  outSizes: readonly number[],
  init: ElementValue,
  dtype: DataType,
  where: string,
): HostTensor {
  if (op !== 'add') throw new EvaluationError(`${where}: ${op} is not defined on complex values`);
  const result = HostTensor.empty(dtype, outSizes);
  const start = toComplex(init);
  const re = new Float64Array(result.numel).fill(start.re);
  const im = new Float64Array(result.numel).fill(start.im);
  const read = readerFor(input);
  forEachElement(input.sizes, [{ strides: input.strides, offset: input.offset }, { strides, offset: 0 }], (_l, offsets) => {
    const z = toComplex(read(offsets[0] as number));
    const o = offsets[1] as number;
    re[o] = (re[o] as number) + z.re;
    im[o] = (im[o] as number) + z.im;
  });
  for (let i = 0; i < result.numel; i += 1) writeStorage(dtype, result.data, i, castTo(new Complex(re[i] as number, im[i] as number), dtype));
  return result;
}

/** acc[out(i)] ⊕= x[i] over the dense row-major input x. */
function reduceFloat(op: ReductionOp['op'], x: Float64Array, sizes: readonly number[], strides: readonly number[], acc: Float64Array): void {
  const inner = sizes.length === 0 ? 0 : (strides[sizes.length - 1] as number);
  forEachRow(sizes, [{ strides, offset: 0 }], (linear, offsets, n) => {
    let o = offsets[0] as number;
    switch (op) {
      case 'add':
        for (let j = 0; j < n; j += 1, o += inner) acc[o] = (acc[o] as number) + (x[linear + j] as number);
        return;
      case 'mul':
        for (let j = 0; j < n; j += 1, o += inner) acc[o] = (acc[o] as number) * (x[linear + j] as number);
        return;
      case 'max':
        for (let j = 0; j < n; j += 1, o += inner) {
          const v = x[linear + j] as number;
          const a = acc[o] as number;
          if (v > a || v !== v) acc[o] = v; // NaN sticks: NaN > v is false for every later v
        }
        return;
      case 'min':
        for (let j = 0; j < n; j += 1, o += inner) {
          const v = x[linear + j] as number;
          const a = acc[o] as number;
          if (v < a || v !== v) acc[o] = v;
        }
        return;
      default: {
        const unreachable: never = op;
        throw new Error(`unknown reduction ${String(unreachable)}`);
      }
    }
  });
}

/**
 * Welford over the output's reduction dims. Raw inputs update (n, mean, M2) one element at a
 * time; partial states (avg, var_sum, N tensors) merge with
 * n = na + nb; δ = mean_b − mean_a; mean = mean_a + δ·nb/n; M2 = M2a + M2b + δ²·na·nb/n
 * (a raw element is the state (x, 0, 1)). An empty reduction gives avg = M2 = NaN, N = 0.
 */
export function evalWelford(ctx: EvalContext, expr: WelfordOp): void {
  const outAvg = expr.outAvg();
  const avgTv = expr.inAvg();
  const varSumTv = expr.inVarSum();
  const nVal = expr.inN();
  if (isRFactorProducer(outAvg)) {
    const avgIn = ctx.tensor(avgTv);
    const flags = ctx.passThroughFlags(avgTv) ?? (outAvg.domain.root ?? []).map((id) => id.isReduction());
    const zeros = (dtype: TensorView['dtype'], value: number): HostTensor => {
      const one = HostTensor.empty(dtype, []);
      writeStorage(dtype, one.data, 0, castTo(value, dtype));
      return new HostTensor(dtype, avgIn.sizes, avgIn.sizes.map(() => 0), one.data, 0);
    };
    ctx.bindPassThrough(outAvg, avgIn, flags);
    ctx.bindPassThrough(expr.outVarSum(), varSumTv === null ? zeros(expr.outVarSum().dtype, 0) : ctx.tensor(varSumTv), flags);
    const nTensor = nVal.kind === 'tensorView' ? ctx.tensor(nVal) : zeros(expr.outN().dtype, toFloat(ctx.scalar(nVal)));
    ctx.bindPassThrough(expr.outN(), nTensor, flags);
    return;
  }
  const where = `welford producing T${outAvg.name}`;
  const outSizes = ctx.sizesOf(outAvg);
  const numOut = outSizes.reduce((a, b) => a * b, 1);
  const avgIn = ctx.tensor(avgTv);
  const sizes = avgIn.sizes;
  const strides = outputStrides(reducedDims(ctx, outAvg, avgTv, avgIn), sizes, outSizes, where);
  const xs = gatherFloat64(avgIn, sizes);
  const m2s = varSumTv === null ? null : gatherFloat64(ctx.tensor(varSumTv), sizes);
  const ns = nVal.kind === 'tensorView' ? gatherFloat64(ctx.tensor(nVal), sizes) : null;
  const nConst = nVal.kind === 'scalar' ? toFloat(ctx.scalar(nVal)) : 1;
  const mean = new Float64Array(numOut);
  const m2 = new Float64Array(numOut);
  const count = new Float64Array(numOut);
  const inner = sizes.length === 0 ? 0 : (strides[sizes.length - 1] as number);
  forEachRow(sizes, [{ strides, offset: 0 }], (linear, offsets, n) => {
    let o = offsets[0] as number;
    for (let j = 0; j < n; j += 1, o += inner) {
      const i = linear + j;
      const nb = ns === null ? nConst : (ns[i] as number);
      if (nb === 0) continue;
      const na = count[o] as number;
      const x = xs[i] as number;
      const m2b = m2s === null ? 0 : (m2s[i] as number);
      if (na === 0) {
        // Copy the first state (the merge formula's δ²·0 would overflow to NaN for a huge finite
        // x); its M2 is NaN when x is Inf or NaN, as torch.var_mean of [inf] or [nan].
        mean[o] = x;
        m2[o] = m2b + (x - x);
        count[o] = nb;
        continue;
      }
      const total = na + nb;
      const delta = x - (mean[o] as number);
      mean[o] = (mean[o] as number) + (delta * nb) / total;
      m2[o] = (m2[o] as number) + m2b + (delta * delta * na * nb) / total;
      count[o] = total;
    }
  });
  for (let i = 0; i < numOut; i += 1) {
    if (count[i] === 0) {
      mean[i] = NaN;
      m2[i] = NaN;
    }
  }
  const make = (tv: TensorView, values: Float64Array): HostTensor =>
    new HostTensor(tv.dtype, outSizes, contiguousStrides(outSizes), storeFloat64(tv.dtype, values));
  ctx.bind(outAvg, make(outAvg, mean));
  ctx.bind(expr.outVarSum(), make(expr.outVarSum(), m2));
  ctx.bind(expr.outN(), make(expr.outN(), count));
}
