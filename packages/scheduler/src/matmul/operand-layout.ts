// From the real sizes and strides of a matmul's / linear's operands to the GEMM cuBLASLt runs:
// m, n, k, the batch, and each operand as a row-major matrix (rows, cols, leading dimension,
// transposed or not) with one batch stride. torch.matmul's batch dims broadcast (a missing or
// size-1 batch dim of one operand reads with stride 0); several batch dims become one when their
// strides nest (stride[i] = stride[i+1] · size[i+1]); a batch that B broadcasts and that nests
// with A's rows is folded into m (ATen's fold of an N-D left operand: one large GEMM, no batch).
// A layout neither row- nor column-major in its last two dims (both strides ≠ 1, an expanded
// row), or a batch whose strides do not nest, cannot be described to cuBLASLt: that operand is
// copied into a dense tensor first, and the layout says so and why.
// Invariant: every returned layout reads exactly the operand's elements at their logical
// positions (op(A) is m × k, op(B) is k × n, per batch entry), and D is the dense row-major
// output [batch…, m, n] (ld n, batch stride m·n).

import { contiguousStrides } from '@tsfuser/fusion-ir';
import type { MatmulOperandLayout } from './params.js';

/** One logical dim of an operand: its size and stride in elements. */
interface Dim {
  size: number;
  stride: number;
}

/** An operand as the GEMM sees it: batch dims aligned with the output's, then op(X)'s rows and cols. */
interface OperandDims {
  batch: Dim[];
  rows: Dim;
  cols: Dim;
}

/** A segment input's real layout. */
export interface OperandInfo {
  input: number;
  sizes: readonly number[];
  strides: readonly number[];
}

/** Which operand of which op: fixes how its logical dims map to rows, cols and batch. */
export type OperandRole = 'matmulA' | 'matmulB' | 'linearInput' | 'linearWeight';

export interface GemmLayout {
  m: number;
  n: number;
  k: number;
  batch: number;
  foldedBatch: boolean;
  /** The output's batch sizes (torch.matmul's broadcast; empty when not batched). */
  outputBatch: number[];
  a: MatmulOperandLayout;
  b: MatmulOperandLayout;
  d: { ld: number; batchStride: number };
}

const UNIT: Dim = { size: 1, stride: 0 };

function dimsOf(role: OperandRole, sizes: readonly number[], strides: readonly number[]): { batch: Dim[]; rows: Dim; cols: Dim } {
  const dim = (i: number): Dim => ({ size: sizes[i] as number, stride: strides[i] as number });
  const r = sizes.length;
  switch (role) {
    case 'matmulA':
    case 'linearInput':
      // [..batch, M, K]; a vector is one row
      if (r === 1) return { batch: [], rows: UNIT, cols: dim(0) };
      return { batch: sizes.slice(0, r - 2).map((_, i) => dim(i)), rows: dim(r - 2), cols: dim(r - 1) };
    case 'matmulB':
      // [..batch, K, N]; a vector is one column
      if (r === 1) return { batch: [], rows: dim(0), cols: UNIT };
      return { batch: sizes.slice(0, r - 2).map((_, i) => dim(i)), rows: dim(r - 2), cols: dim(r - 1) };
    case 'linearWeight':
      // weight [N, K] is read as Wᵀ (K × N); a 1-D weight [K] is one column
      if (r === 1) return { batch: [], rows: dim(0), cols: UNIT };
      return { batch: [], rows: dim(1), cols: dim(0) };
    default: {
      const unreachable: never = role;
      throw new Error(`unknown operand role ${String(unreachable)}`);
    }
  }
}

/** torch.matmul's broadcast of two batch shapes (right-aligned); the op checked compatibility already. */
function broadcastBatch(a: readonly Dim[], b: readonly Dim[]): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i += 1) {
    const da = a[a.length - rank + i]?.size ?? 1;
    const db = b[b.length - rank + i]?.size ?? 1;
    out.push(da === 1 ? db : da);
  }
  return out;
}

/** The operand's batch dims aligned with the output batch: missing and broadcast dims read with stride 0. */
function alignBatch(dims: OperandDims, outputBatch: readonly number[]): OperandDims {
  const batch = outputBatch.map((size, i) => {
    const own = dims.batch[dims.batch.length - outputBatch.length + i];
    return own === undefined || own.size === 1 ? { size, stride: 0 } : own;
  });
  return { ...dims, batch };
}

/** Dims that nest (each stride the next's stride times its size; size-1 dims ignored) as one dim, or null. */
function collapse(dims: readonly Dim[]): Dim | null {
  const real = dims.filter((d) => d.size !== 1);
  const size = dims.reduce((acc, d) => acc * d.size, 1);
  for (let i = 0; i + 1 < real.length; i += 1) {
    const outer = real[i] as Dim;
    const inner = real[i + 1] as Dim;
    if (outer.stride !== inner.stride * inner.size) return null;
  }
  return { size, stride: real.length === 0 ? 0 : (real[real.length - 1] as Dim).stride };
}

type Matrix = Pick<MatmulOperandLayout, 'rows' | 'cols' | 'ld' | 'transposed'>;

/** op(X) of `rows` × `cols` as a stored row-major matrix, read as is or transposed; null when neither fits. */
function matrixOf(rows: Dim, cols: Dim): Matrix | null {
  const rowMajor = (cols.size === 1 || cols.stride === 1) && (rows.size === 1 || rows.stride >= cols.size);
  if (rowMajor) return { rows: rows.size, cols: cols.size, ld: rows.size === 1 ? cols.size : rows.stride, transposed: false };
  const colMajor = (rows.size === 1 || rows.stride === 1) && (cols.size === 1 || cols.stride >= rows.size);
  if (colMajor) return { rows: cols.size, cols: rows.size, ld: cols.size === 1 ? rows.size : cols.stride, transposed: true };
  return null;
}

/** Why cuBLASLt cannot read this operand in place, or null. */
function refusal(dims: OperandDims): string | null {
  if (matrixOf(dims.rows, dims.cols) === null) {
    return `its last two dims (strides ${dims.rows.stride}, ${dims.cols.stride}) are neither row- nor column-major`;
  }
  if (collapse(dims.batch) === null) {
    return `its batch strides [${dims.batch.map((d) => d.stride).join(', ')}] over batch [${dims.batch.map((d) => d.size).join(', ')}] do not nest into one batch stride`;
  }
  return null;
}

/** The dense copy of an operand: its logical dims with the batch expanded to the output's. */
function denseSizes(role: OperandRole, sizes: readonly number[], outputBatch: readonly number[]): number[] {
  const matrixRank = role === 'linearWeight' ? sizes.length : Math.min(sizes.length, 2);
  const own = sizes.slice(sizes.length - matrixRank);
  // A vector operand of a matmul has no batch dims (the output's batch comes from the other operand).
  return sizes.length === 1 ? own : [...outputBatch, ...own];
}

interface Resolved {
  dims: OperandDims;
  copy: MatmulOperandLayout['copy'];
}

function resolve(role: OperandRole, info: OperandInfo, outputBatch: readonly number[]): Resolved {
  const dims = alignBatch(dimsOf(role, info.sizes, info.strides), outputBatch);
  const why = refusal(dims);
  if (why === null) return { dims, copy: null };
  const sizes = denseSizes(role, info.sizes, outputBatch);
  const dense = alignBatch(dimsOf(role, sizes, contiguousStrides(sizes)), outputBatch);
  return { dims: dense, copy: { reason: why, sizes } };
}

function layoutOf(input: number, r: Resolved, rows: Dim, batchStride: number): MatmulOperandLayout {
  const matrix = matrixOf(rows, r.dims.cols);
  // resolve() copied any operand whose matrix does not fit, and a dense copy always fits.
  if (matrix === null) throw new Error('planGemmLayout: a dense operand has no matrix layout (a bug)');
  return { input, ...matrix, batchStride, copy: r.copy };
}

/** The GEMM of op(A) · op(B) for these operand layouts (see the header). */
export function planGemmLayout(aRole: OperandRole, a: OperandInfo, bRole: OperandRole, b: OperandInfo): GemmLayout {
  const rawA = dimsOf(aRole, a.sizes, a.strides);
  const rawB = dimsOf(bRole, b.sizes, b.strides);
  const outputBatch = broadcastBatch(rawA.batch, rawB.batch);
  const ra = resolve(aRole, a, outputBatch);
  const rb = resolve(bRole, b, outputBatch);
  const m0 = ra.dims.rows.size;
  const n = rb.dims.cols.size;
  const k = ra.dims.cols.size;
  const batchCount = outputBatch.reduce((x, y) => x * y, 1);
  // ATen's fold: B the same matrix for every batch entry, A's batch nesting with its rows.
  const bBroadcast = rb.dims.batch.every((d) => d.stride === 0 || d.size === 1);
  const folded = outputBatch.length > 0 && bBroadcast ? collapse([...ra.dims.batch, ra.dims.rows]) : null;
  if (folded !== null && batchCount > 1) {
    return {
      m: folded.size,
      n,
      k,
      batch: 1,
      foldedBatch: true,
      outputBatch,
      a: layoutOf(a.input, ra, folded, 0),
      b: layoutOf(b.input, rb, rb.dims.rows, 0),
      d: { ld: n, batchStride: 0 },
    };
  }
  const strideOf = (r: Resolved): number => (collapse(r.dims.batch) as Dim).stride;
  return {
    m: m0,
    n,
    k,
    batch: batchCount,
    foldedBatch: false,
    outputBatch,
    a: layoutOf(a.input, ra, ra.dims.rows, batchCount > 1 ? strideOf(ra) : 0),
    b: layoutOf(b.input, rb, rb.dims.rows, batchCount > 1 ? strideOf(rb) : 0),
    d: { ld: n, batchStride: batchCount > 1 ? m0 * n : 0 },
  };
}
