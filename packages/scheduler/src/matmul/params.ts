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
export type MatmulEpilogueKind = 'DEFAULT' | 'RELU' | 'GELU' | 'BIAS' | 'RELU_BIAS' | 'GELU_BIAS' | 'GELU_AUX' | 'GELU_AUX_BIAS';

/** The dtypes cuBLASLt runs here (f32 accumulation). */
export type MatmulDtype = Extract<DataType, 'Float' | 'BFloat16' | 'Half'>;

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
  dtype: MatmulDtype;
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
}

export interface MatmulParams {
  schedulerType: 'matmul';
  tag: string;
  /** The op the segment computes (nvFuser's python name). */
  op: 'matmul' | 'linear';
  m: number;
  n: number;
  k: number;
  /** Matrices in the batch (1: not batched; a batch folded into m counts 1). */
  batch: number;
  /** The leading dims of a linear's input / a matmul's left batch folded into m (ATen's fold). */
  foldedBatch: boolean;
  inputDtype: MatmulDtype;
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
  lines.push(`Dtypes: inputs ${p.inputDtype}, output ${p.d.dtype}, accumulation Float`);
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
  lines.push(`Fused: ${p.fused.length === 0 ? 'nothing' : p.fused.join(', ')}`);
  lines.push('====================================');
  return `${lines.join('\n')}\n`;
}
