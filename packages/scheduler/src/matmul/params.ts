// The parameters of a GEMM segment (a library call, not a generated kernel): everything the
// runtime needs to hand one matmul / linear and its fused epilogue to cuBLASLt, computed once
// from the segment's fusion and the real layouts of its inputs — m, n, k, the batch, each
// operand as a row-major matrix with a leading dimension, a transposition and a batch stride
// (0: broadcast over the batch), the output's layout and dtype, and the epilogue with the
// segment inputs / outputs it reads and writes. Also their printing for the `scheduler_params`
// dump and `--explain`, in the layout of nvFuser's MatmulParams::toString.
// Invariant: the numbers here are the call — the runtime computes no shape or stride of its own;
// an operand cuBLASLt cannot read in place says so (`copy`) with the reason, and is then read
// from a dense copy of the layout `copy.sizes` states.

import type { DataType } from '@tsfuser/fusion-ir';

/** cuBLASLt's epilogues a GEMM segment uses, named as cuBLASLt names them (CUBLASLT_EPILOGUE_*). */
export type MatmulEpilogueKind = 'DEFAULT' | 'RELU' | 'GELU' | 'BIAS' | 'RELU_BIAS' | 'GELU_BIAS' | 'GELU_AUX' | 'GELU_AUX_BIAS' | 'DGELU' | 'DGELU_BGRAD' | 'BGRADA' | 'BGRADB';

/** The dtypes cuBLASLt runs matmul / linear in here (f32 accumulation). */
export type MatmulDtype = Extract<DataType, 'Float' | 'BFloat16' | 'Half'>;

/** Hopper's fp8 formats: scaled_mm's operands (and optionally its output). */
export type Float8Dtype = Extract<DataType, 'Float8_e4m3fn' | 'Float8_e5m2'>;

/** An operand's or D's element type: a matmul dtype, or fp8 (scaled_mm). */
export type GemmOperandDtype = MatmulDtype | Float8Dtype;

/** One input operand, as the row-major matrix (or batch of them) cuBLASLt reads. */
export interface MatmulOperandLayout {
  /** The segment fusion's input position. */
  input: number;
  /** Rows and columns as stored (before `transposed`). */
  rows: number;
  cols: number;
  /** Elements from one stored row to the next. */
  ld: number;
  /** The GEMM reads the stored matrix transposed. */
  transposed: boolean;
  /** Elements from one matrix of the batch to the next; 0 broadcasts one matrix. */
  batchStride: number;
  /**
   * Set when cuBLASLt cannot read the input's layout in place: the runtime first copies the input
   * into a dense row-major tensor of `sizes` (the batch, then rows and cols), which the fields
   * above then describe.
   */
  copy: { reason: string; sizes: readonly number[] } | null;
}

/** The output D: row-major m × n matrices, `batchStride` apart. */
export interface MatmulOutputLayout {
  /** The segment fusion's output position. */
  output: number;
  dtype: GemmOperandDtype;
  ld: number;
  batchStride: number;
}

export interface MatmulEpilogue {
  kind: MatmulEpilogueKind;
  /** BIAS forms: a contiguous vector of n entries (one per output column) at this segment input. */
  bias: { input: number; dtype: MatmulDtype } | null;
  /** _AUX forms: the pre-activation (matmul + bias) written to this segment output, laid out like D. */
  aux: { output: number; dtype: MatmulDtype; ld: number; batchStride: number } | null;
  /** C added with beta = 1 before the activation, at this segment input, laid out like D. */
  c: { input: number; dtype: MatmulDtype; ld: number; batchStride: number } | null;
  /** DGELU forms: the pre-activation read at this segment input, laid out like D. */
  auxInput: { input: number; dtype: MatmulDtype; ld: number; batchStride: number } | null;
  /**
   * DGELU_BGRAD: the sum of D over its rows (n entries); BGRADA: the sum of op(A) over k (m
   * entries); BGRADB: of op(B) over k (n entries). D's dtype, written to this segment output.
   */
  biasGradient: { output: number; dtype: MatmulDtype } | null;
}

/**
 * grouped_mm with offsets: per-group cuBLASLt calls (the offsets are read on the host first). The
 * params' a / b / d describe group 0's call with the cut dim at its full extent; group g covers
 * [offsets[g-1], offsets[g]) of the cut dim (M for 2d×3d, N for 3d×2d, K for 2d×2d). Strides in
 * elements: `cutStride` moves one step along the cut dim in that operand (0: not cut), and
 * `groupStride` one group along the operand's group dim (0: it has none).
 */
export interface GroupedMmLayout {
  cut: 'M' | 'N' | 'K';
  /** The segment input holding the Int32 offsets (G cumulative group ends). */
  offsets: number;
  groups: number;
  /** The cut dim's full extent (the last offset may be at most this). */
  extent: number;
  a: { cutStride: number; groupStride: number };
  b: { cutStride: number; groupStride: number };
  d: { cutStride: number; groupStride: number };
}

export interface MatmulParams {
  schedulerType: 'matmul';
  tag: string;
  /** The op the segment computes (nvFuser's python name). */
  op: 'matmul' | 'linear' | 'scaled_mm' | 'grouped_mm';
  m: number;
  n: number;
  k: number;
  /** Matrices in the batch (1: not batched; a batch folded into m counts 1). */
  batch: number;
  /** The leading dims of a linear's input / a matmul's left batch folded into m (ATen's fold). */
  foldedBatch: boolean;
  /** A's dtype (and B's, except a scaled_mm of e4m3 × e5m2). */
  inputDtype: GemmOperandDtype;
  bDtype: GemmOperandDtype;
  /** scaled_mm: the segment inputs holding A's and B's per-tensor fp32 scales (one element each, on the device). */
  scales: { a: number; b: number } | null;
  /** grouped_mm with offsets (a 3d × 3d grouped_mm is a plain batched GEMM: null). */
  grouped: GroupedMmLayout | null;
  a: MatmulOperandLayout;
  b: MatmulOperandLayout;
  d: MatmulOutputLayout;
  epilogue: MatmulEpilogue;
  /** What the segment computes beyond the GEMM, in order (e.g. `bias add T4`, `gelu_tanh T6`). */
  fused: readonly string[];
}

function operandLine(name: string, o: MatmulOperandLayout): string {
  const layout = `${o.rows}x${o.cols} ld ${o.ld}${o.transposed ? ' transposed' : ''}, batch stride ${o.batchStride}`;
  const copy = o.copy === null ? '' : `, copied first to a dense [${o.copy.sizes.join(', ')}] (${o.copy.reason})`;
  return `  ${name}: input ${o.input}, ${layout}${copy}`;
}

/** The `scheduler_params` dump of a GEMM segment (nvFuser's MatmulParams::toString layout). */
export function matmulParamsToString(p: MatmulParams): string {
  const lines: string[] = [''];
  lines.push('===== Matmul Parameters ========');
  if (p.tag !== '') lines.push(`Tag: ${p.tag}`);
  lines.push(`Library call: cuBLASLt ${p.op} (no generated kernel)`);
  lines.push(`Problem: m ${p.m} n ${p.n} k ${p.k} batch ${p.batch}${p.foldedBatch ? ' (leading dims folded into m)' : ''}`);
  lines.push(`Dtypes: inputs ${p.inputDtype}${p.bDtype === p.inputDtype ? '' : ` × ${p.bDtype}`}, output ${p.d.dtype}, accumulation Float`);
  if (p.grouped !== null) {
    const g = p.grouped;
    lines.push(`Groups: ${g.groups}, cut along ${g.cut} (extent ${g.extent}) by the offsets at input ${g.offsets}: one cuBLASLt call per non-empty group`);
  }
  if (p.scales !== null) lines.push(`Scales (per tensor, fp32): A input ${p.scales.a}, B input ${p.scales.b}`);
  lines.push('Operands (row-major):');
  lines.push(operandLine('A', p.a));
  lines.push(operandLine('B', p.b));
  lines.push(`  D: output ${p.d.output}, ${p.m}x${p.n} ld ${p.d.ld}, batch stride ${p.d.batchStride}`);
  lines.push(`Epilogue: ${p.epilogue.kind}`);
  if (p.epilogue.bias !== null) lines.push(`  bias: input ${p.epilogue.bias.input} (${p.epilogue.bias.dtype}, ${p.n} entries)`);
  if (p.epilogue.c !== null) {
    const c = p.epilogue.c;
    lines.push(`  C (beta 1): input ${c.input} (${c.dtype}, ld ${c.ld}, batch stride ${c.batchStride})`);
  }
  if (p.epilogue.aux !== null) {
    const x = p.epilogue.aux;
    lines.push(`  aux (pre-activation): output ${x.output} (${x.dtype}, ld ${x.ld}, batch stride ${x.batchStride})`);
  }
  if (p.epilogue.auxInput !== null) {
    const x = p.epilogue.auxInput;
    lines.push(`  aux (pre-activation, read): input ${x.input} (${x.dtype}, ld ${x.ld}, batch stride ${x.batchStride})`);
  }
  if (p.epilogue.biasGradient !== null) {
    const entries = p.epilogue.kind === 'BGRADA' ? `${p.m} entries: op(A) summed over k` : p.epilogue.kind === 'BGRADB' ? `${p.n} entries: op(B) summed over k` : `${p.n} entries`;
    lines.push(`  bias gradient: output ${p.epilogue.biasGradient.output} (${p.epilogue.biasGradient.dtype}, ${entries})`);
  }
  lines.push(`Fused: ${p.fused.length === 0 ? 'nothing' : p.fused.join(', ')}`);
  lines.push('====================================');
  return `${lines.join('\n')}\n`;
}
