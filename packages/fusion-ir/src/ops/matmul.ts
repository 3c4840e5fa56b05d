// matmul and linear as single expressions (nvFuser's csrc/ops/composite.cpp matmul / linear:
// one MatmulOp / LinearOp, not a broadcast-multiply-sum), with PyTorch's shapes and dtypes:
// the output has the inputs' dtype (accumulation is in float32 on the GPU, float64 in the
// reference, rounded once). The output's logical domain is nvFuser's newForMatmul: broadcast
// batch dims, M, N (those that exist for the ranks), then a Reduction ID for K unless K is a
// broadcast. When every size is a constant, a bad shape is refused here with PyTorch's message;
// symbolic sizes are checked by the evaluator with the same words (ops/matmul-shapes.ts).

import { isFloatingType, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { IterDomain } from '../ir/iter-domain.js';
import { LinearOp, MatmulOp } from '../ir/matmul-exprs.js';
import type { TensorView } from '../ir/tensor-view.js';
import { describe, requireTensor } from './operand.js';
import { linearDtypeCheck, linearOutputSizes, MatmulShapeError, matmulDtypeCheck, matmulOutputSizes } from './matmul-shapes.js';

/** Dtypes the matmul family takes: what cuBLASLt computes with f32 accumulation, and Double for the reference. */
const MATMUL_DTYPES: ReadonlySet<DataType> = new Set<DataType>(['Float', 'Half', 'BFloat16', 'Double']);

/** The constant sizes of `tv`'s logical dims (expanded broadcasts expanded), or null when one is symbolic. */
export function constantSizes(tv: TensorView): number[] | null {
  const sizes: number[] = [];
  for (const id of tv.domain.logicalNoReductions()) {
    const c = id.logicalExtent().constNumber();
    if (c === null) return null;
    sizes.push(c);
  }
  return sizes;
}

/** Runs a PyTorch shape rule, turning its refusal into a FusionIrError that names the op and operands. */
export function withShapeContext<T>(where: string, rule: () => T): T {
  try {
    return rule();
  } catch (e) {
    if (e instanceof MatmulShapeError) throw new FusionIrError(`${where}: ${e.message}`);
    throw e;
  }
}

export function checkMatmulDtype(op: string, tv: TensorView): void {
  if (!MATMUL_DTYPES.has(tv.dtype) || !isFloatingType(tv.dtype)) {
    throw new FusionIrError(`${op}: ${describe(tv)} must be Float, Half, BFloat16 or Double (a GEMM accumulating in float32)`);
  }
}

/** An output ID for dims that line up: the first non-broadcast one's extent, else a broadcast. */
function outputId(ids: readonly (IterDomain | undefined)[], fusion: TensorView['fusion']): IterDomain {
  const present = ids.filter((id): id is IterDomain => id !== undefined);
  const full = present.find((id) => !id.isBroadcast());
  if (full !== undefined) return fusion.newIterDomain(full.extent, 'Iteration');
  const expanded = present.find((id) => id.expandedExtent !== null);
  if (expanded !== undefined && expanded.expandedExtent !== null) return fusion.newIterDomain(expanded.expandedExtent, 'Iteration');
  const first = present[0];
  if (first === undefined) throw new Error('outputId: no ids');
  return fusion.newIterDomain(first.extent, 'Broadcast');
}

/** The reduction ID for K (null when K is a broadcast on both sides). */
function reductionId(aK: IterDomain, bK: IterDomain, fusion: TensorView['fusion']): IterDomain | null {
  const full = [aK, bK].find((id) => !id.isBroadcast());
  return full === undefined ? null : fusion.newIterDomain(full.extent, 'Reduction');
}

/**
 * torch.matmul(a, b): 1-D·1-D (a 0-dim result), 2-D·1-D, 1-D·2-D, 2-D·2-D, and N-D operands
 * whose batch dims (all but the last two; a 1-D operand has none) broadcast against each other.
 */
export function matmul(a: TensorView, b: TensorView): TensorView {
  requireTensor('matmul', a, 'arg1');
  requireTensor('matmul', b, 'arg2');
  if (a.fusion !== b.fusion) throw new FusionIrError('matmul: operands belong to different fusions');
  const where = `matmul(${describe(a)}, ${describe(b)})`;
  const ra = a.rank();
  const rb = b.rank();
  withShapeContext(where, () => {
    if (ra === 0 || rb === 0) matmulOutputSizes(ra === 0 ? [] : [1], rb === 0 ? [] : [1]);
    matmulDtypeCheck(ra, rb, a.dtype, b.dtype);
  });
  checkMatmulDtype('matmul', a);
  const as = constantSizes(a);
  const bs = constantSizes(b);
  if (as !== null && bs !== null) withShapeContext(where, () => matmulOutputSizes(as, bs));
  const fusion = a.fusion;
  const aIds = a.domain.logicalNoReductions();
  const bIds = b.domain.logicalNoReductions();
  const aK = aIds[ra - 1] as IterDomain;
  const bK = (rb > 1 ? bIds[rb - 2] : bIds[0]) as IterDomain;
  const aBatch = ra > 2 ? aIds.slice(0, ra - 2) : [];
  const bBatch = rb > 2 ? bIds.slice(0, rb - 2) : [];
  const batchRank = Math.max(aBatch.length, bBatch.length);
  const out: IterDomain[] = [];
  for (let i = 0; i < batchRank; i += 1) {
    out.push(outputId([aBatch[aBatch.length - batchRank + i], bBatch[bBatch.length - batchRank + i]], fusion));
  }
  if (ra > 1) out.push(outputId([aIds[ra - 2]], fusion));
  if (rb > 1) out.push(outputId([bIds[rb - 1]], fusion));
  const k = reductionId(aK, bK, fusion);
  if (k !== null) out.push(k);
  const result = fusion.newTensorFromDomain(out, a.dtype);
  new MatmulOp(fusion, result, a, b);
  return result;
}

/**
 * F.linear(x, weight, bias = null) = x @ weightᵀ + bias: x [..., K], weight [N, K] (or [K]:
 * no N dim), bias broadcasting to [..., N] (a 1-D [N] or [1], or a 0-dim tensor).
 */
export function linear(x: TensorView, weight: TensorView, bias: TensorView | null = null): TensorView {
  requireTensor('linear', x, 'arg1');
  requireTensor('linear', weight, 'arg2');
  if (bias !== null) requireTensor('linear', bias, 'bias');
  if (x.fusion !== weight.fusion || (bias !== null && bias.fusion !== x.fusion)) throw new FusionIrError('linear: operands belong to different fusions');
  const where = `linear(${describe(x)}, ${describe(weight)}${bias === null ? '' : `, ${describe(bias)}`})`;
  withShapeContext(where, () => {
    if (weight.rank() > 2 || weight.rank() === 0 || x.rank() === 0 || (bias !== null && weight.rank() === 1)) {
      linearOutputSizes(x.rank() === 0 ? [] : [1], weight.domain.logicalNoReductions().map(() => 1), bias === null ? null : []);
    }
    linearDtypeCheck(x.dtype, weight.dtype, bias?.dtype ?? null);
  });
  checkMatmulDtype('linear', x);
  if (bias !== null && bias.rank() > 2) throw new FusionIrError(`${where}: bias must have at most 2 dims`);
  const xs = constantSizes(x);
  const ws = constantSizes(weight);
  const bs = bias === null ? null : constantSizes(bias);
  if (xs !== null && ws !== null && (bias === null || bs !== null)) withShapeContext(where, () => linearOutputSizes(xs, ws, bs));
  const fusion = x.fusion;
  const xIds = x.domain.logicalNoReductions();
  const wIds = weight.domain.logicalNoReductions();
  const out: IterDomain[] = xIds.slice(0, -1).map((id) => outputId([id], fusion));
  if (wIds.length === 2) out.push(outputId([wIds[0]], fusion));
  const k = reductionId(xIds[xIds.length - 1] as IterDomain, wIds[wIds.length - 1] as IterDomain, fusion);
  if (k !== null) out.push(k);
  const result = fusion.newTensorFromDomain(out, x.dtype);
  new LinearOp(fusion, result, x, weight, bias);
  return result;
}
