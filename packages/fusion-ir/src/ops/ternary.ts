// Ternary pointwise ops: where, clamp, lerp, threshold.

import type { DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { TernaryOp } from '../ir/expr.js';
import type { TernaryOpType } from '../ir/op-types.js';
import type { TensorView } from '../ir/tensor-view.js';
import { describe, fusionOf, promotionOperand, toVal, type Operand, type TensorOrScalar } from './operand.js';
import { broadcastZeroDimOperands, pointwiseOutput } from './pointwise.js';
import { resultType } from './type-promotion.js';

export function ternaryOp(op: TernaryOpType, a0: TensorOrScalar, b0: TensorOrScalar, c0: TensorOrScalar, dtype: DataType): TensorOrScalar {
  const fusion = a0.fusion;
  const [a, b, c] = broadcastZeroDimOperands([a0, b0, c0] as const);
  const tv = pointwiseOutput(op, fusion, [a, b, c], dtype);
  const out: TensorOrScalar = tv ?? fusion.newSymbolicScalar(dtype);
  new TernaryOp(fusion, op, out, a, b, c);
  return out;
}

/** where(condition, x, y): x where condition is true, else y; the result promotes x and y. */
export function where(condition: Operand, x: Operand, y: Operand): TensorOrScalar {
  const fusion = fusionOf('where', [condition, x, y]);
  const [c, a, b] = [toVal(fusion, condition), toVal(fusion, x), toVal(fusion, y)];
  if (c.dtype !== 'Bool') throw new FusionIrError(`where: condition ${describe(c)} must be Bool`);
  return ternaryOp('where', c, a, b, resultType([promotionOperand(a), promotionOperand(b)]));
}

/** clamp(x, min, max) with NaN propagation as torch.clamp. */
export function clamp(x: TensorView, min: Operand, max: Operand): TensorView {
  const fusion = x.fusion;
  const [lo, hi] = [toVal(fusion, min), toVal(fusion, max)];
  const dtype = resultType([promotionOperand(x), promotionOperand(lo), promotionOperand(hi)]);
  return ternaryOp('clamp', x, lo, hi, dtype) as TensorView;
}

/** lerp(start, end, weight) = start + weight * (end - start). */
export function lerp(start: Operand, end: Operand, weight: Operand): TensorOrScalar {
  const fusion = fusionOf('lerp', [start, end, weight]);
  const vals = [toVal(fusion, start), toVal(fusion, end), toVal(fusion, weight)] as const;
  return ternaryOp('lerp', vals[0], vals[1], vals[2], resultType(vals.map(promotionOperand)));
}

/** threshold(x, threshold, value): x where x > threshold, else value (torch.nn.functional.threshold). */
export function threshold(x: TensorView, thresholdValue: Operand, value: Operand): TensorView {
  const fusion = x.fusion;
  return ternaryOp('threshold', x, toVal(fusion, thresholdValue), toVal(fusion, value), x.dtype) as TensorView;
}
