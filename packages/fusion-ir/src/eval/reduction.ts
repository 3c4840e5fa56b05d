// Reductions and Welford in the reference evaluator. The output's logical domain lists every
// input dim, reduced ones as Reduction IDs; results are accumulated in float64 (or exact int64)
// starting from the op's init value and rounded to the output dtype once at the end. max/min
// propagate NaN as torch.amax/amin do.

import { EvaluationError } from '../ir/errors.js';
import type { ReductionOp, WelfordOp } from '../ir/expr.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { EvalContext } from './evaluator.js';
import { HostTensor, writeStorage, type ElementValue } from './host-tensor.js';
import { forEachElement, readerFor } from './strided.js';
import { castTo, computeKindOf, toFloat, toInt } from './values.js';

/** Maps each input element to its output position: strides over the kept dims, 0 over reduced ones. */
function outputStrides(out: TensorView, inputRank: number, outSizes: readonly number[]): number[] {
  const logical = out.domain.logical;
  if (logical.length !== inputRank) {
    throw new EvaluationError(`T${out.name}: reduction output has ${logical.length} dims for an input of rank ${inputRank}`);
  }
  const strides = new Array<number>(inputRank).fill(0);
  let acc = 1;
  let k = outSizes.length - 1;
  for (let d = inputRank - 1; d >= 0; d -= 1) {
    if ((logical[d] as { isReduction(): boolean }).isReduction()) continue;
    strides[d] = acc;
    acc *= Math.max(outSizes[k] as number, 1);
    k -= 1;
  }
  return strides;
}

export function evalReduction(ctx: EvalContext, expr: ReductionOp): void {
  const input = ctx.tensor(expr.in() as TensorView);
  const out = expr.out() as TensorView;
  const outSizes = ctx.sizesOf(out);
  const numOut = outSizes.reduce((a, b) => a * b, 1);
  const kind = computeKindOf(out.dtype);
  const init = castTo(ctx.scalar(expr.init), out.dtype);
  const strides = outputStrides(out, input.rank, outSizes);
  const read = readerFor(input);
  const op = expr.op;
  const result = HostTensor.empty(out.dtype, outSizes);
  if (kind === 'float') {
    const acc = new Float64Array(numOut).fill(toFloat(init));
    forEachElement(input.sizes, [{ strides: input.strides, offset: input.offset }, { strides, offset: 0 }], (_l, offsets) => {
      const x = toFloat(read(offsets[0] as number));
      const o = offsets[1] as number;
      const a = acc[o] as number;
      switch (op) {
        case 'add':
          acc[o] = a + x;
          break;
        case 'mul':
          acc[o] = a * x;
          break;
        case 'max':
          acc[o] = Number.isNaN(a) || Number.isNaN(x) ? NaN : x > a ? x : a;
          break;
        case 'min':
          acc[o] = Number.isNaN(a) || Number.isNaN(x) ? NaN : x < a ? x : a;
          break;
      }
    });
    for (let i = 0; i < numOut; i += 1) writeStorage(out.dtype, result.data, i, castTo(acc[i] as number, out.dtype));
  } else {
    const acc = new Array<bigint>(numOut).fill(toInt(init));
    forEachElement(input.sizes, [{ strides: input.strides, offset: input.offset }, { strides, offset: 0 }], (_l, offsets) => {
      const x = toInt(read(offsets[0] as number));
      const o = offsets[1] as number;
      const a = acc[o] as bigint;
      switch (op) {
        case 'add':
          acc[o] = a + x;
          break;
        case 'mul':
          acc[o] = a * x;
          break;
        case 'max':
          acc[o] = x > a ? x : a;
          break;
        case 'min':
          acc[o] = x < a ? x : a;
          break;
      }
    });
    for (let i = 0; i < numOut; i += 1) writeStorage(out.dtype, result.data, i, castTo(acc[i] as bigint, out.dtype));
  }
  ctx.bind(out, result);
}

/**
 * Welford over the output's reduction dims. Raw inputs update (n, mean, M2) one element at a
 * time; partial states (avg, var_sum, N tensors) merge with
 * n = na + nb; δ = mean_b − mean_a; mean = mean_a + δ·nb/n; M2 = M2a + M2b + δ²·na·nb/n.
 */
export function evalWelford(ctx: EvalContext, expr: WelfordOp): void {
  const outAvg = expr.outAvg();
  const outSizes = ctx.sizesOf(outAvg);
  const numOut = outSizes.reduce((a, b) => a * b, 1);
  const avgIn = ctx.tensor(expr.inAvg());
  const strides = outputStrides(outAvg, avgIn.rank, outSizes);
  const mean = new Float64Array(numOut);
  const m2 = new Float64Array(numOut);
  const count = new Float64Array(numOut);
  const varSumTv = expr.inVarSum();
  const nVal = expr.inN();
  const readAvg = readerFor(avgIn);
  const varIn = varSumTv === null ? null : ctx.tensor(varSumTv);
  const readVar = varIn === null ? null : readerFor(varIn);
  const nIn = nVal.kind === 'tensorView' ? ctx.tensor(nVal) : null;
  const readN = nIn === null ? null : readerFor(nIn);
  const nConst = nVal.kind === 'scalar' ? toFloat(ctx.scalar(nVal as Scalar)) : 1;
  const operands = [{ strides: avgIn.strides, offset: avgIn.offset }, { strides, offset: 0 }];
  if (varIn !== null) operands.push({ strides: varIn.strides, offset: varIn.offset });
  if (nIn !== null) operands.push({ strides: nIn.strides, offset: nIn.offset });
  forEachElement(avgIn.sizes, operands, (_l, offsets) => {
    const o = offsets[1] as number;
    const xb = toFloat(readAvg(offsets[0] as number));
    const m2b = readVar === null ? 0 : toFloat(readVar(offsets[2] as number));
    const nb = readN === null ? nConst : toFloat(readN(offsets[varIn === null ? 2 : 3] as number));
    if (nb === 0) return;
    const na = count[o] as number;
    const n = na + nb;
    const delta = xb - (mean[o] as number);
    mean[o] = (mean[o] as number) + (delta * nb) / n;
    m2[o] = (m2[o] as number) + m2b + (delta * delta * na * nb) / n;
    count[o] = n;
  });
  const avg = HostTensor.empty(outAvg.dtype, outSizes);
  const varSum = HostTensor.empty(expr.outVarSum().dtype, outSizes);
  const nOut = HostTensor.empty(expr.outN().dtype, outSizes);
  for (let i = 0; i < numOut; i += 1) {
    const c = count[i] as number;
    writeStorage(avg.dtype, avg.data, i, castTo(c === 0 ? NaN : (mean[i] as number), avg.dtype));
    writeStorage(varSum.dtype, varSum.data, i, castTo(c === 0 ? NaN : (m2[i] as number), varSum.dtype));
    writeStorage(nOut.dtype, nOut.data, i, castTo(c, nOut.dtype) as ElementValue);
  }
  ctx.bind(outAvg, avg);
  ctx.bind(expr.outVarSum(), varSum);
  ctx.bind(expr.outN(), nOut);
}
