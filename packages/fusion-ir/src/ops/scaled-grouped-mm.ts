// scaled_mm (torch._scaled_mm with per-tensor fp8 scales) and grouped_mm (torch._grouped_mm, the
// MoE layers' product of groups cut by an offsets tensor) as single expressions, nvFuser's
// ScaledMmaOp and GroupedMmaOp (csrc/ops/composite.cpp scaled_mm / grouped_mm). Shapes, dtypes
// and messages are PyTorch's where PyTorch checks them; the forms tsfuser does not compute —
// block-scaled (MX / NVFP4) scales, alpha, beta and quantized outputs — are refused here with
// the reason, not computed wrongly.
//
// Invariant: an accepted call has one meaning, the float64 product rounded once to `dtype`
// (eval/scaled-grouped-mm.ts).

import { isFloat8Type, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { IterDomain } from '../ir/iter-domain.js';
import { GroupedMmaOp, ScaledMmaOp } from '../ir/matmul-exprs.js';
import type { TensorView } from '../ir/tensor-view.js';
import { checkMatmulDtype, constantSizes } from './matmul.js';
import { atenDtypeName } from './matmul-shapes.js';
import { describe, requireTensor } from './operand.js';

export interface ScaledMmOptions {
  bias?: TensorView | null;
  /** Output dtype (nvFuser's default BFloat16). */
  dtype?: DataType;
  /** nvFuser's alpha / beta and output block scaling: refused (not computed by tsfuser). */
  alpha?: TensorView | null;
  beta?: TensorView | null;
  outputBlockScaleSize?: number;
  outputGamma?: boolean;
}

const SCALED_MM_OUT_DTYPES: ReadonlySet<DataType> = new Set<DataType>(['Float', 'Half', 'BFloat16', 'Float8_e4m3fn', 'Float8_e5m2']);

function dim(tv: TensorView, d: number): IterDomain {
  return tv.domain.logicalNoReductions()[d] as IterDomain;
}

function constExtent(id: IterDomain): number | null {
  return id.logicalExtent().constNumber();
}

function checkPerTensorScale(name: string, scale: TensorView): void {
  if (scale.dtype !== 'Float') throw new FusionIrError(`scaled_mm: ${name} ${describe(scale)} must be a Float tensor (a per-tensor fp32 scale)`);
  const sizes = constantSizes(scale);
  if (sizes === null || sizes.some((s) => s !== 1)) {
    throw new FusionIrError(
      `scaled_mm: ${name} ${describe(scale)} is not a per-tensor scale (one element); block-scaled and row-wise scales ` +
        '(MX / NVFP4 / per-row fp8) are not supported by tsfuser',
    );
  }
}

/**
 * scaled_mm(mat1 [M, K], mat2 [K, N], scale1, scale2, { bias, dtype }) = (mat1 · scale1) @
 * (mat2 · scale2) + bias in `dtype`; mat1 and mat2 fp8 (e4m3fn or e5m2, not both e5m2, as
 * cuBLASLt), scales 0-dim or one-element Float tensors, bias [N] (BFloat16, Half or Float).
 */
export function scaledMm(mat1: TensorView, mat2: TensorView, scale1: TensorView, scale2: TensorView, options: ScaledMmOptions = {}): TensorView {
  for (const [t, n] of [[mat1, 'mat1'], [mat2, 'mat2'], [scale1, 'scale1'], [scale2, 'scale2']] as const) requireTensor('scaled_mm', t, n);
  const bias = options.bias ?? null;
  const dtype = options.dtype ?? 'BFloat16';
  if ((options.alpha ?? null) !== null || (options.beta ?? null) !== null) {
    throw new FusionIrError('scaled_mm: alpha and beta (nvFuser\'s block-scaled epilogue) are not supported by tsfuser; scale the inputs or the result instead');
  }
  if ((options.outputBlockScaleSize ?? 0) !== 0 || (options.outputGamma ?? false)) {
    throw new FusionIrError('scaled_mm: block-scaled outputs (output_block_scale_size, output_gamma) are not supported by tsfuser');
  }
  if (mat1.rank() !== 2 || mat2.rank() !== 2) throw new FusionIrError(`scaled_mm: mat1 and mat2 must be matrices, got ${describe(mat1)} and ${describe(mat2)}`);
  for (const [t, n] of [[mat1, 'mat1'], [mat2, 'mat2']] as const) {
    if (!isFloat8Type(t.dtype) || t.dtype === 'Float8_e8m0fnu') {
      throw new FusionIrError(`scaled_mm: ${n} ${describe(t)} must be Float8_e4m3fn or Float8_e5m2 (per-tensor scaled fp8); other dtypes use matmul`);
    }
  }
  if (mat1.dtype === 'Float8_e5m2' && mat2.dtype === 'Float8_e5m2') throw new FusionIrError('scaled_mm: mat1 and mat2 cannot both be Float8_e5m2 (cuBLASLt has no e5m2 × e5m2 kernel)');
  if (!SCALED_MM_OUT_DTYPES.has(dtype)) throw new FusionIrError(`scaled_mm: output dtype ${dtype} is not one of Float, Half, BFloat16, Float8_e4m3fn, Float8_e5m2`);
  checkPerTensorScale('scale1', scale1);
  checkPerTensorScale('scale2', scale2);
  const k1 = constExtent(dim(mat1, 1));
  const k2 = constExtent(dim(mat2, 0));
  if (k1 !== null && k2 !== null && k1 !== k2) {
    const m = constExtent(dim(mat1, 0)) ?? dim(mat1, 0).extent.symbolicName();
    const n = constExtent(dim(mat2, 1)) ?? dim(mat2, 1).extent.symbolicName();
    throw new FusionIrError(`scaled_mm(${describe(mat1)}, ${describe(mat2)}): mat_a and mat_b shapes cannot be multiplied (${m}x${k1} and ${k2}x${n})`);
  }
  if (bias !== null) {
    requireTensor('scaled_mm', bias, 'bias');
    if (bias.rank() !== 1) throw new FusionIrError(`scaled_mm: bias ${describe(bias)} must be 1-D [N]`);
    if (!['BFloat16', 'Half', 'Float'].includes(bias.dtype)) throw new FusionIrError(`scaled_mm: bias ${describe(bias)} must be BFloat16, Half or Float`);
    const nb = constExtent(dim(bias, 0));
    const n = constExtent(dim(mat2, 1));
    if (nb !== null && n !== null && nb !== n) throw new FusionIrError(`scaled_mm: bias ${describe(bias)} must have N = ${n} elements`);
  }
  const fusion = mat1.fusion;
  const k = [dim(mat1, 1), dim(mat2, 0)].find((id) => !id.isBroadcast());
  const out = [fusion.newIterDomain(dim(mat1, 0).extent, dim(mat1, 0).isBroadcast() ? 'Broadcast' : 'Iteration'), fusion.newIterDomain(dim(mat2, 1).extent, dim(mat2, 1).isBroadcast() ? 'Broadcast' : 'Iteration')];
  if (k !== undefined) out.push(fusion.newIterDomain(k.extent, 'Reduction'));
  const result = fusion.newTensorFromDomain(out, dtype);
  new ScaledMmaOp(fusion, result, mat1, mat2, scale1, scale2, bias);
  return result;
}

/**
 * grouped_mm(mat1, mat2, offsets, dtype = mat1's): torch._grouped_mm. `offsets` (Int32 [G],
 * cumulative group ends) cuts M for mat1 [M, K] × mat2 [G, K, N] → [M, N], N for mat1 [G, M, K]
 * × mat2 [K, N] → [M, N], K for mat1 [M, K] × mat2 [K, N] → [G, M, N]; mat1 [G, M, K] × mat2
 * [G, K, N] takes no offsets (→ [G, M, N]).
 */
export function groupedMm(mat1: TensorView, mat2: TensorView, offsets: TensorView | null, dtype: DataType | null = null): TensorView {
  requireTensor('grouped_mm', mat1, 'mat1');
  requireTensor('grouped_mm', mat2, 'mat2');
  const where = `grouped_mm(${describe(mat1)}, ${describe(mat2)})`;
  if (mat1.dtype !== mat2.dtype) throw new FusionIrError(`${where}: expected m1 and m2 to have the same dtype, but got: ${atenDtypeName(mat1.dtype)} != ${atenDtypeName(mat2.dtype)}`);
  checkMatmulDtype('grouped_mm', mat1);
  const r1 = mat1.rank();
  const r2 = mat2.rank();
  if ((r1 !== 2 && r1 !== 3) || (r2 !== 2 && r2 !== 3)) throw new FusionIrError(`${where}: mat1 and mat2 must be 2-D or 3-D`);
  const both3d = r1 === 3 && r2 === 3;
  if (both3d === (offsets !== null)) throw new FusionIrError(`${where}: Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d`);
  if (offsets !== null) {
    requireTensor('grouped_mm', offsets, 'offsets');
    if (offsets.dtype !== 'Int32') throw new FusionIrError(`${where}: Offsets have to be int32, got ${describe(offsets)}`);
    if (offsets.rank() !== 1) throw new FusionIrError(`${where}: offsets ${describe(offsets)} must be 1-D [G]`);
  }
  const k1 = constExtent(dim(mat1, r1 - 1));
  const k2 = constExtent(dim(mat2, r2 - 2));
  if (k1 !== null && k2 !== null && k1 !== k2) throw new FusionIrError(`${where}: contraction dimension of mat_a and mat_b must match`);
  const groups = offsets === null ? null : dim(offsets, 0);
  if (r1 === 3 && r2 === 3) {
    const g1 = constExtent(dim(mat1, 0));
    const g2 = constExtent(dim(mat2, 0));
    if (g1 !== null && g2 !== null && g1 !== g2) throw new FusionIrError(`${where}: matrix batch sizes have to match`);
  } else if (groups !== null && (r1 === 3 || r2 === 3)) {
    const g = constExtent(dim(r1 === 3 ? mat1 : mat2, 0));
    const go = constExtent(groups);
    if (g !== null && go !== null && g !== go) throw new FusionIrError(`${where}: matrix batch sizes have to match`);
  }
  const fusion = mat1.fusion;
  const iter = (id: IterDomain): IterDomain => fusion.newIterDomain(id.extent, 'Iteration');
  let out: IterDomain[];
  if (r1 === 2 && r2 === 3) out = [iter(dim(mat1, 0)), iter(dim(mat2, 2))];
  else if (r1 === 3 && r2 === 2) out = [iter(dim(mat1, 1)), iter(dim(mat2, 1))];
  else if (r1 === 2 && r2 === 2) out = [iter(groups as IterDomain), iter(dim(mat1, 0)), iter(dim(mat2, 1))];
  else out = [iter(dim(mat1, 0)), iter(dim(mat1, 1)), iter(dim(mat2, 2))];
  const result = fusion.newTensorFromDomain(out, dtype ?? mat1.dtype);
  new GroupedMmaOp(fusion, result, mat1, mat2, offsets);
  return result;
}
