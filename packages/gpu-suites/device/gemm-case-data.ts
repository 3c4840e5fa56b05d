// The host data of one GEMM suite case (device-gemm-suite): its operands, bias, aux and C drawn
// from the suite's seeded generator, encoded in their dtypes (so the float64 reference reads
// exactly what is uploaded), with the layouts the suite describes to the library (ld pads,
// batch strides, 16-byte alignment for fp8). No device: gemm-suite.ts uploads it, gemm-check.ts
// checks the outputs against it, and a CPU test regenerates the inputs of a logged GPU run.
// Invariant: the order and number of `rand` draws per case are those of the suite since
// 2026-12-01 (A, B, bias, aux input, then C), so a seed printed by any run replays its inputs.

import type { GemmDtype, GemmMatrix } from '@tsfuser/device';
import { isFp8, type GemmCase } from './gemm-cases.js';
import { decode, elementBytes, encode } from './gemm-host.js';

/** A stored matrix batch: row-major rows×cols at ld, its bytes and its decoded values. */
export interface HostMatrix {
  desc: Omit<GemmMatrix, 'pointer'>;
  bytes: Uint8Array;
  values: Float64Array;
}

export interface CaseData {
  A: HostMatrix;
  B: HostMatrix;
  /** D's layout (the suite poisons `bytes` of it before the call). */
  d: Omit<GemmMatrix, 'pointer'> & { bytes: number };
  /** Bias / bias gradient vectors: their dtype (D's, bf16 for fp8 inputs), length and batch stride. */
  vector: { dtype: GemmDtype; length: number; batchStride: number };
  bias: { bytes: Uint8Array; values: Float64Array };
  /** The aux: a ReLU bit mask (`relu`) or GELU pre-activations in D's dtype; `forward` epilogues write it. */
  aux: { relu: boolean; forward: boolean; ld: number; batchStride: number; bytes: number; input: Uint8Array; inputValues: Float64Array | undefined };
  /** fp8 per-tensor scales (1 without), D's only for an fp8 D. */
  scales: { a: number; b: number; d: number };
  /** DEFAULT_C: C (beta 0.5) in D's dtype (bf16 for an fp8 D). */
  c: HostMatrix | undefined;
  beta: number;
}

function hostMatrix(rand: () => number, dtype: GemmDtype, rows: number, cols: number, count: number, scale: number, transposed = false): HostMatrix {
  // fp8 rows must stay 16-byte aligned; others get a pad so ld ≠ cols is exercised.
  const ld = dtype.startsWith('Float8') ? cols : cols + (rand() < 0.5 ? 0 : 3);
  // fp8 kernels need 16-byte-aligned batches too (an 8-byte pad left every batched fp8 case
  // without an algorithm on the first GPU run).
  const stride = count > 1 ? rows * ld + (dtype.startsWith('Float8') ? 16 : 8) : 0;
  const elements = Math.max(1, count) * Math.max(stride, rows * ld);
  const { bytes, decoded } = encode(dtype, Array.from({ length: elements }, () => (rand() * 2 - 1) * scale));
  return { desc: { dtype, rows, cols, ld, transposed, batchCount: count, batchStride: stride }, bytes, values: decoded };
}

/** Element (r, c) of op(h) in batch b (a broadcast operand has one batch). */
export function at(h: HostMatrix, b: number, r: number, c: number): number {
  const batch = (h.desc.batchCount ?? 1) === 1 ? 0 : b;
  const [sr, sc] = h.desc.transposed === true ? [c, r] : [r, c];
  return h.values[batch * (h.desc.batchStride ?? 0) + sr * h.desc.ld + sc] as number;
}

/** The case's host data, drawn from `rand` (see the invariant). */
export function caseData(c: GemmCase, rand: () => number): CaseData {
  const { config, m, n, k, batch } = c;
  const fp8 = isFp8(config);
  const scale = fp8 ? 0.5 : 1;
  const countA = c.batchMode === 'batched' || c.batchMode === 'broadcastB' ? batch : 1;
  const countB = c.batchMode === 'batched' || c.batchMode === 'broadcastA' ? batch : 1;
  const A = c.transposeA ? hostMatrix(rand, config.a, k, m, countA, scale, true) : hostMatrix(rand, config.a, m, k, countA, scale);
  const B = c.transposeB ? hostMatrix(rand, config.b, n, k, countB, scale, true) : hostMatrix(rand, config.b, k, n, countB, scale);
  // An fp8 GEMM needs 16-byte-aligned C/D columns: its 16-bit D is padded by 8 elements (n + 1
  // left every e4m3→bf16 case without an algorithm on the first GPU run), its fp8 D not at all.
  const outLd = config.d.startsWith('Float8') ? n : fp8 ? n + 8 : n + 1;
  const dStride = batch > 1 ? m * outLd + (config.d.startsWith('Float8') ? 16 : 8) : 0;
  const dBytes = batch * Math.max(dStride, m * outLd) * elementBytes(config.d);
  const vectorDtype = fp8 ? 'BFloat16' : config.d;
  const biasLength = c.epilogue === 'BGRADA' ? m : n;
  const vectorStride = batch > 1 ? biasLength : 0;
  const bias = encode(vectorDtype, Array.from({ length: batch * biasLength }, () => rand() * 2 - 1));
  const relu = c.epilogue.startsWith('RELU_AUX') || c.epilogue.startsWith('DRELU');
  const auxLd = relu ? Math.ceil(n / 128) * 128 : Math.ceil(n / 8) * 8;
  const auxStride = batch > 1 ? m * auxLd : 0;
  const auxBytes = relu ? Math.ceil((batch * Math.max(auxStride, m * auxLd)) / 8) : batch * Math.max(auxStride, m * auxLd) * elementBytes(config.d);
  // Backward epilogues read an aux: a random ReLU mask, or GELU pre-activations in D's dtype.
  const auxIn = relu ? Uint8Array.from({ length: auxBytes }, () => Math.floor(rand() * 256)) : encode(config.d, Array.from({ length: auxBytes / elementBytes(config.d) }, () => rand() * 4 - 2)).bytes;
  const forward = c.epilogue === 'RELU_AUX' || c.epilogue === 'GELU_AUX' || c.epilogue === 'RELU_AUX_BIAS' || c.epilogue === 'GELU_AUX_BIAS';
  let cMatrix: HostMatrix | undefined;
  if (c.epilogue === 'DEFAULT_C') {
    const cDtype = config.d.startsWith('Float8') ? 'BFloat16' : config.d;
    const values = encode(cDtype, Array.from({ length: batch * Math.max(dStride, m * outLd) }, () => rand() * 2 - 1));
    cMatrix = { desc: { dtype: cDtype, rows: m, cols: n, ld: outLd, batchCount: batch, batchStride: dStride }, bytes: values.bytes, values: values.decoded };
  }
  return {
    A,
    B,
    d: { dtype: config.d, rows: m, cols: n, ld: outLd, batchCount: batch, batchStride: dStride, bytes: dBytes },
    vector: { dtype: vectorDtype, length: biasLength, batchStride: vectorStride },
    bias: { bytes: bias.bytes, values: bias.decoded },
    aux: { relu, forward, ld: auxLd, batchStride: auxStride, bytes: auxBytes, input: auxIn, inputValues: relu ? undefined : decode(config.d, auxIn) },
    scales: config.scaled ? { a: 0.75, b: 1.5, d: config.d.startsWith('Float8') ? 1.25 : 1 } : { a: 1, b: 1, d: 1 },
    c: cMatrix,
    beta: 0.5,
  };
}
