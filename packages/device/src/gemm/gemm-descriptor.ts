// The descriptor of one GEMM as the runtime's library-call segment states it:
// D = epilogue(alpha · op(A) · op(B) + beta · C), every matrix row-major (PyTorch's default
// strides) with a leading dimension, an optional transposition of A and B, a batch with
// per-operand batch strides (0: one matrix broadcast over the batch), and one of cuBLASLt's
// epilogues. Invariant: this is data only; validate-gemm.ts decides whether cuBLASLt can run it
// and cublaslt-plan.ts says how (the column-major view), so no shape rule lives here.

import type { DataType } from '@tsfuser/fusion-ir';

/** Element types a GEMM operand may have (f32, bf16, fp16, and Hopper's two fp8 formats). */
export type GemmDtype = Extract<DataType, 'Float' | 'BFloat16' | 'Half' | 'Float8_e4m3fn' | 'Float8_e5m2'>;

export const GEMM_DTYPES: readonly GemmDtype[] = ['Float', 'BFloat16', 'Half', 'Float8_e4m3fn', 'Float8_e5m2'];

/** A row-major matrix in device memory (or a batch of them). */
export interface GemmMatrix {
  pointer: bigint;
  dtype: GemmDtype;
  /** Rows and columns as stored, before `transposed` is applied. */
  rows: number;
  cols: number;
  /** Elements from one row to the next (PyTorch's stride(-2)); at least `cols`. */
  ld: number;
  /** The GEMM reads the stored matrix transposed (op = T). Inputs only. */
  transposed?: boolean;
  /** Matrices in the batch; default 1. An input with 1 in a batched GEMM is broadcast. */
  batchCount?: number;
  /** Elements from one matrix of the batch to the next; 0 broadcasts one matrix. Default 0. */
  batchStride?: number;
}

/** A vector (bias, bias gradient) of one output dimension, one per batch entry. */
export interface GemmVector {
  pointer: bigint;
  dtype: GemmDtype;
  /** Elements between the batch's vectors; default 0 (one vector for every batch entry). */
  batchStride?: number;
}

/**
 * The epilogue's auxiliary matrix, laid out like D (m × n, row-major): the pre-activation
 * written by the `_AUX` forms and read by DRELU/DGELU. For RELU it is a bit mask (ld and
 * batchStride count bits, ld a multiple of 128); for GELU it has `dtype` (default D's) and ld
 * a multiple of 8.
 */
export interface GemmAux {
  pointer: bigint;
  ld: number;
  batchStride?: number;
  dtype?: GemmDtype;
}

/**
 * cuBLASLt's epilogues, named as cuBLASLt names them. Bias vectors have n entries (one per
 * output column: linear's bias). BGRADA writes the sum of op(A) over k (m entries), BGRADB the
 * sum of op(B) over k (n entries), DRELU_BGRAD / DGELU_BGRAD the sum of the result over its m
 * rows (n entries) — all in terms of this descriptor's A and B; the plan maps them onto
 * cuBLASLt's column-major operands (which swaps BGRADA and BGRADB).
 */
export type GemmEpilogue =
  | { kind: 'DEFAULT' }
  | { kind: 'RELU' }
  | { kind: 'GELU' }
  | { kind: 'BIAS'; bias: GemmVector }
  | { kind: 'RELU_BIAS'; bias: GemmVector }
  | { kind: 'GELU_BIAS'; bias: GemmVector }
  | { kind: 'RELU_AUX'; aux: GemmAux }
  | { kind: 'GELU_AUX'; aux: GemmAux }
  | { kind: 'RELU_AUX_BIAS'; bias: GemmVector; aux: GemmAux }
  | { kind: 'GELU_AUX_BIAS'; bias: GemmVector; aux: GemmAux }
  | { kind: 'DRELU'; aux: GemmAux }
  | { kind: 'DGELU'; aux: GemmAux }
  | { kind: 'DRELU_BGRAD'; aux: GemmAux; biasGradient: GemmVector }
  | { kind: 'DGELU_BGRAD'; aux: GemmAux; biasGradient: GemmVector }
  | { kind: 'BGRADA'; biasGradient: GemmVector }
  | { kind: 'BGRADB'; biasGradient: GemmVector };

export type GemmEpilogueKind = GemmEpilogue['kind'];

export const GEMM_EPILOGUE_KINDS: readonly GemmEpilogueKind[] = [
  'DEFAULT', 'RELU', 'GELU', 'BIAS', 'RELU_BIAS', 'GELU_BIAS', 'RELU_AUX', 'GELU_AUX', 'RELU_AUX_BIAS',
  'GELU_AUX_BIAS', 'DRELU', 'DGELU', 'DRELU_BGRAD', 'DGELU_BGRAD', 'BGRADA', 'BGRADB',
];

/** Per-tensor fp8 scales (device pointers to one f32 each), as Hopper's cuBLASLt fp8 path. */
export interface GemmScales {
  /** Multiplies A's values (dequantization); fp8 A only. */
  a?: bigint;
  /** Multiplies B's values; fp8 B only. */
  b?: bigint;
  /** Multiplies the result before it is stored (quantization); fp8 D only. */
  d?: bigint;
  /** Receives max |result| before the D scale; fp8 D only. */
  amaxD?: bigint;
}

export interface GemmDescriptor {
  a: GemmMatrix;
  b: GemmMatrix;
  /** The output: m × n (m = rows of op(A), n = cols of op(B)); rows/cols must say so. */
  d: GemmMatrix;
  /** Added as beta · C; default D itself (then beta accumulates into D's old values). */
  c?: GemmMatrix;
  /** Default 1. */
  alpha?: number;
  /** Default 0. */
  beta?: number;
  /** Default DEFAULT. */
  epilogue?: GemmEpilogue;
  /** Float inputs only: TF32 tensor cores (PyTorch's allow_tf32); default false, as PyTorch. */
  allowTf32?: boolean;
  scales?: GemmScales;
  /** fp8 only: cuBLASLt's fast accumulation (no periodic promotion); default false. */
  fastAccumulate?: boolean;
}
