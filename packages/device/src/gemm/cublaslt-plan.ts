// Lowers a validated GemmDescriptor to cuBLASLt's terms (the plan the addon's cublasLtHeuristic
// and cublasLtMatmul take), and the heuristic cache key of a plan.
//
// cuBLASLt is column-major. A row-major r×c matrix with leading dimension ld is, read
// column-major, its c×r transpose with the same ld, so D = op(A)·op(B) (row-major, m×n) is
// computed as Dᵀ = op(B)ᵀ·op(A)ᵀ (column-major, n×m): cuBLASLt's A is our B, its B is our A,
// each with rows/cols swapped and op = T where ours is transposed — no copy, as PyTorch's
// at::cuda::blas does. Consequences: bias vectors run along cuBLASLt's D rows, i.e. along our
// n (linear's bias); cuBLASLt's BGRADA/BGRADB and A/B scales swap; an aux matrix has D's
// layout. What cannot be expressed (and so is refused by validate-gemm.ts): a bias over D's m
// rows, a transposed or column-major D, non-unit element strides inside a row.
//
// Invariant: the plan holds everything that decides the algorithm (shapes, leading dimensions,
// batch strides, dtypes, epilogue, which optional pointers are set, pointer alignments), and the
// heuristic key is a function of exactly those, never of the pointer values themselves.

import { CUBLASLT_VALUES as V } from './cublaslt-constants.js';
import type { GemmDescriptor, GemmDtype, GemmEpilogueKind, GemmMatrix } from './gemm-descriptor.js';
import { isFloat8, validateGemm, type GemmShape } from './validate-gemm.js';

/** One matrix layout in cuBLASLt's column-major terms. */
export interface CublasLtLayout {
  dataType: number;
  rows: number;
  cols: number;
  ld: number;
  batchCount: number;
  batchStride: number;
}

/** What the addon's cublasLtHeuristic / cublasLtMatmul read (native/bind_gemm.cc). */
export interface CublasLtPlan {
  computeType: number;
  scaleType: number;
  transa: number;
  transb: number;
  epilogue: number;
  a: CublasLtLayout;
  b: CublasLtLayout;
  c: CublasLtLayout;
  d: CublasLtLayout;
  aPointer: bigint;
  bPointer: bigint;
  cPointer: bigint;
  dPointer: bigint;
  alpha: number;
  beta: number;
  /** 0n when the epilogue has none. */
  biasPointer: bigint;
  /** -1: cuBLASLt's default (D's type). */
  biasDataType: number;
  biasBatchStride: number;
  auxPointer: bigint;
  auxLd: number;
  auxBatchStride: number;
  auxDataType: number;
  aScalePointer: bigint;
  bScalePointer: bigint;
  dScalePointer: bigint;
  amaxDPointer: bigint;
  /** 1 for fp8 fast accumulation, else 0. */
  fastAccumulate: number;
  /** Largest power of two (≤ 256) dividing each operand's address, row pitch and batch pitch in bytes. */
  alignmentA: number;
  alignmentB: number;
  alignmentC: number;
  alignmentD: number;
}

export interface LoweredGemm {
  shape: GemmShape;
  plan: CublasLtPlan;
}

const ELEMENT_BYTES: Record<GemmDtype, number> = { Float: 4, BFloat16: 2, Half: 2, Float8_e4m3fn: 1, Float8_e5m2: 1 };

/** Bytes of one element of a GEMM dtype. */
export function gemmDtypeBytes(dtype: GemmDtype): number {
  return ELEMENT_BYTES[dtype];
}

export function cudaDataType(dtype: GemmDtype): number {
  switch (dtype) {
    case 'Float':
      return V.CUDA_R_32F;
    case 'BFloat16':
      return V.CUDA_R_16BF;
    case 'Half':
      return V.CUDA_R_16F;
    case 'Float8_e4m3fn':
      return V.CUDA_R_8F_E4M3;
    case 'Float8_e5m2':
      return V.CUDA_R_8F_E5M2;
    default: {
      const never: never = dtype;
      throw new Error(`no cudaDataType for ${String(never)}`);
    }
  }
}

/** cuBLASLt's epilogue value for this descriptor's epilogue (BGRADA/BGRADB swap, see above). */
export function cublasLtEpilogue(kind: GemmEpilogueKind): number {
  switch (kind) {
    case 'DEFAULT':
      return V.CUBLASLT_EPILOGUE_DEFAULT;
    case 'RELU':
      return V.CUBLASLT_EPILOGUE_RELU;
    case 'GELU':
      return V.CUBLASLT_EPILOGUE_GELU;
    case 'BIAS':
      return V.CUBLASLT_EPILOGUE_BIAS;
    case 'RELU_BIAS':
      return V.CUBLASLT_EPILOGUE_RELU_BIAS;
    case 'GELU_BIAS':
      return V.CUBLASLT_EPILOGUE_GELU_BIAS;
    case 'RELU_AUX':
      return V.CUBLASLT_EPILOGUE_RELU_AUX;
    case 'GELU_AUX':
      return V.CUBLASLT_EPILOGUE_GELU_AUX;
    case 'RELU_AUX_BIAS':
      return V.CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
    case 'GELU_AUX_BIAS':
      return V.CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    case 'DRELU':
      return V.CUBLASLT_EPILOGUE_DRELU;
    case 'DGELU':
      return V.CUBLASLT_EPILOGUE_DGELU;
    case 'DRELU_BGRAD':
      return V.CUBLASLT_EPILOGUE_DRELU_BGRAD;
    case 'DGELU_BGRAD':
      return V.CUBLASLT_EPILOGUE_DGELU_BGRAD;
    case 'BGRADA':
      return V.CUBLASLT_EPILOGUE_BGRADB;
    case 'BGRADB':
      return V.CUBLASLT_EPILOGUE_BGRADA;
    default: {
      const never: never = kind;
      throw new Error(`no cuBLASLt epilogue for ${String(never)}`);
    }
  }
}

function powerOfTwoDividing(value: bigint): number {
  if (value === 0n) return 256;
  let alignment = 1;
  while (alignment < 256 && value % BigInt(alignment * 2) === 0n) alignment *= 2;
  return alignment;
}

function alignment(matrix: GemmMatrix, batched: boolean): number {
  const bytes = BigInt(ELEMENT_BYTES[matrix.dtype]);
  const pitches = [matrix.pointer, BigInt(matrix.ld) * bytes];
  if (batched && (matrix.batchStride ?? 0) !== 0) pitches.push(BigInt(matrix.batchStride ?? 0) * bytes);
  return Math.min(...pitches.map(powerOfTwoDividing));
}

/** The column-major layout of a row-major matrix as stored (rows/cols swap, ld stays). */
function columnMajor(matrix: GemmMatrix, batch: number): CublasLtLayout {
  const broadcast = (matrix.batchCount ?? 1) === 1;
  return {
    dataType: cudaDataType(matrix.dtype),
    rows: matrix.cols,
    cols: matrix.rows,
    ld: matrix.ld,
    batchCount: batch,
    batchStride: broadcast ? 0 : (matrix.batchStride ?? 0),
  };
}

/** Validates `desc` (GemmError on a bad one) and lowers it to cuBLASLt's column-major plan. */
export function lowerGemm(desc: GemmDescriptor): LoweredGemm {
  const shape = validateGemm(desc);
  const epilogue = desc.epilogue ?? { kind: 'DEFAULT' };
  const c = desc.c ?? desc.d;
  const fp8 = isFloat8(desc.a.dtype);
  const bias = 'bias' in epilogue ? epilogue.bias : 'biasGradient' in epilogue ? epilogue.biasGradient : undefined;
  const aux = 'aux' in epilogue ? epilogue.aux : undefined;
  const batched = shape.batch > 1;
  const plan: CublasLtPlan = {
    computeType: desc.allowTf32 === true ? V.CUBLAS_COMPUTE_32F_FAST_TF32 : V.CUBLAS_COMPUTE_32F,
    scaleType: V.CUDA_R_32F,
    transa: desc.b.transposed === true ? V.CUBLAS_OP_T : V.CUBLAS_OP_N,
    transb: desc.a.transposed === true ? V.CUBLAS_OP_T : V.CUBLAS_OP_N,
    epilogue: cublasLtEpilogue(epilogue.kind),
    a: columnMajor(desc.b, shape.batch),
    b: columnMajor(desc.a, shape.batch),
    // cuBLASLt never takes an fp8 C: without a C (beta is 0 then, validateGemm says so), an
    // fp8 D's C layout is described as the bias type or BFloat16, as PyTorch's scaled_gemm does.
    c: desc.c === undefined && isFloat8(desc.d.dtype)
      ? { ...columnMajor(c, shape.batch), dataType: cudaDataType(bias?.dtype ?? 'BFloat16') }
      : columnMajor(c, shape.batch),
    d: columnMajor(desc.d, shape.batch),
    aPointer: desc.b.pointer,
    bPointer: desc.a.pointer,
    cPointer: c.pointer,
    dPointer: desc.d.pointer,
    alpha: desc.alpha ?? 1,
    beta: desc.beta ?? 0,
    biasPointer: bias?.pointer ?? 0n,
    // fp8 GEMMs name the bias type explicitly (it differs from D's there); elsewhere it is D's.
    biasDataType: bias !== undefined && fp8 ? cudaDataType(bias.dtype) : -1,
    biasBatchStride: bias?.batchStride ?? 0,
    auxPointer: aux?.pointer ?? 0n,
    auxLd: aux?.ld ?? 0,
    auxBatchStride: aux?.batchStride ?? 0,
    auxDataType: aux?.dtype !== undefined ? cudaDataType(aux.dtype) : -1,
    aScalePointer: desc.scales?.b ?? 0n,
    bScalePointer: desc.scales?.a ?? 0n,
    dScalePointer: desc.scales?.d ?? 0n,
    amaxDPointer: desc.scales?.amaxD ?? 0n,
    fastAccumulate: desc.fastAccumulate === true ? 1 : 0,
    alignmentA: alignment(desc.b, batched),
    alignmentB: alignment(desc.a, batched),
    alignmentC: alignment(c, batched),
    alignmentD: alignment(desc.d, batched),
  };
  return { shape, plan };
}

function layoutKey(layout: CublasLtLayout): string {
  return `${layout.dataType}:${layout.rows}x${layout.cols}:ld${layout.ld}:b${layout.batchCount}s${layout.batchStride}`;
}

/**
 * The heuristic cache key: shapes, strides, dtypes, epilogue, which optional pointers are set
 * and the alignments — the inputs of cublasLtMatmulAlgoGetHeuristic — plus the workspace limit.
 * Two plans with one key get the same algorithm.
 */
export function gemmHeuristicKey(plan: CublasLtPlan, maxWorkspaceBytes: number): string {
  // Unset, or set with this alignment (cuBLASLt reads bias/aux alignment from the pointer).
  const set = (pointer: bigint): string => (pointer === 0n ? '0' : `@${powerOfTwoDividing(pointer)}`);
  return [
    `ct${plan.computeType}`,
    `st${plan.scaleType}`,
    `op${plan.transa}${plan.transb}`,
    `ep${plan.epilogue}`,
    `A${layoutKey(plan.a)}`,
    `B${layoutKey(plan.b)}`,
    `C${layoutKey(plan.c)}`,
    `D${layoutKey(plan.d)}`,
    `inplace${plan.cPointer === plan.dPointer ? 1 : 0}`,
    `beta${plan.beta === 0 ? 0 : 1}`,
    `bias${set(plan.biasPointer)}t${plan.biasDataType}s${plan.biasBatchStride}`,
    `aux${set(plan.auxPointer)}ld${plan.auxLd}s${plan.auxBatchStride}t${plan.auxDataType}`,
    `scales${[plan.aScalePointer, plan.bScalePointer, plan.dScalePointer, plan.amaxDPointer].map((p) => (p === 0n ? 0 : 1)).join('')}`,
    `fast${plan.fastAccumulate}`,
    `align${plan.alignmentA},${plan.alignmentB},${plan.alignmentC},${plan.alignmentD}`,
    `ws${maxWorkspaceBytes}`,
  ].join('|');
}
