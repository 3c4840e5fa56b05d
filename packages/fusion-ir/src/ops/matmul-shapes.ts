// PyTorch's shape and dtype rules of torch.matmul and F.linear on concrete sizes, with PyTorch's
// error messages (ATen's LinearAlgebra.cpp path choice: dot, mv, mm, folding an N-D left operand
// into a matrix, bmm over broadcast batch dims). One pure function per op, shared by the op
// (definition time, when the sizes are constants), the reference evaluator (eval time, symbolic
// sizes) and graph-fuser's host ops, so the three cannot disagree.
//
// Invariant: a function either returns the output sizes PyTorch computes or throws
// MatmulShapeError with the message PyTorch raises for the same sizes.

import type { DataType } from '../ir/data-type.js';

/** A shape or dtype that torch.matmul / F.linear refuses; `message` is PyTorch's. */
export class MatmulShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MatmulShapeError';
  }
}

const prod = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** How ATen prints a ScalarType in `TORCH_CHECK(... a != b)` messages (c10's operator<<). */
export function atenDtypeName(dtype: DataType): string {
  switch (dtype) {
    case 'Float':
      return 'float';
    case 'Double':
      return 'double';
    case 'Half':
      return 'c10::Half';
    case 'BFloat16':
      return 'c10::BFloat16';
    case 'Int':
      return 'long int';
    case 'Int32':
      return 'int';
    case 'Bool':
      return 'bool';
    default:
      return dtype;
  }
}

/** ScalarType names as toString(ScalarType) writes them (Float, Half, BFloat16 …). */
export function scalarTypeName(dtype: DataType): string {
  switch (dtype) {
    case 'Int':
      return 'Long';
    case 'Int32':
      return 'Int';
    default:
      return dtype;
  }
}

/** torch's infer_size: broadcast two shapes (right-aligned), with its message. */
export function inferBroadcastSize(a: readonly number[], b: readonly number[]): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i += 1) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) {
      throw new MatmulShapeError(`The size of tensor a (${da}) must match the size of tensor b (${db}) at non-singleton dimension ${i}`);
    }
    out.push(da === 1 ? db : da);
  }
  return out;
}

function mmCheck(m: number, k1: number, k2: number, n: number): void {
  if (k1 !== k2) throw new MatmulShapeError(`mat1 and mat2 shapes cannot be multiplied (${m}x${k1} and ${k2}x${n})`);
}

/**
 * torch.matmul(a, b)'s output sizes for a of `aSizes`, b of `bSizes` (dtypes checked by
 * matmulDtypeCheck). The path is ATen's for contiguous operands: an N-D (N ≥ 3) left operand
 * with a 1-D or 2-D right one is folded into a matrix (mv / mm), an N-D right operand goes
 * through bmm over the broadcast batch.
 */
export function matmulOutputSizes(aSizes: readonly number[], bSizes: readonly number[]): number[] {
  const ra = aSizes.length;
  const rb = bSizes.length;
  if (ra === 0 || rb === 0) throw new MatmulShapeError(`both arguments to matmul need to be at least 1D, but they are ${ra}D and ${rb}D`);
  const aK = aSizes[ra - 1] as number;
  if (ra === 1 && rb === 1) {
    const bK = bSizes[0] as number;
    if (aK !== bK) {
      throw new MatmulShapeError(
        `inconsistent tensor size, expected tensor [${aK}] and src [${bK}] to have the same number of elements, but got ${aK} and ${bK} elements respectively`,
      );
    }
    return [];
  }
  if (rb === 1 && ra >= 2) {
    // mv, after folding the leading dims of an N-D left operand into its rows
    const rows = prod(aSizes.slice(0, -1));
    const bK = bSizes[0] as number;
    if (aK !== bK) throw new MatmulShapeError(`size mismatch, got input (${rows}), mat (${rows}x${aK}), vec (${bK})`);
    return aSizes.slice(0, -1);
  }
  const bK = bSizes[rb - 2] as number;
  const n = bSizes[rb - 1] as number;
  if (ra === 1 && rb === 2) {
    mmCheck(1, aK, bK, n);
    return [n];
  }
  if (rb === 2) {
    // mm (ra === 2) or a folded N-D left operand
    mmCheck(prod(aSizes.slice(0, -1)), aK, bK, n);
    return [...aSizes.slice(0, -1), n];
  }
  // bmm over the broadcast batch: b is at least 3-D here
  const m = ra > 1 ? (aSizes[ra - 2] as number) : 1;
  const batch = inferBroadcastSize(aSizes.slice(0, Math.max(ra - 2, 0)), bSizes.slice(0, rb - 2));
  const b = prod(batch);
  if (aK !== bK) throw new MatmulShapeError(`Expected size for first two dimensions of batch2 tensor to be: [${b}, ${aK}] but got: [${b}, ${bK}].`);
  return ra > 1 ? [...batch, m, n] : [...batch, n];
}

/** torch.matmul's dtype check on the path matmulOutputSizes takes. */
export function matmulDtypeCheck(aRank: number, bRank: number, a: DataType, b: DataType): void {
  if (a === b) return;
  if (aRank === 1 && bRank === 1) throw new MatmulShapeError(`dot : expected both vectors to have same dtype, but found ${scalarTypeName(a)} and ${scalarTypeName(b)}`);
  if (bRank === 1) throw new MatmulShapeError(`addmv input tensors must have the same dtype, but got ${scalarTypeName(b)}, ${scalarTypeName(a)}, and ${scalarTypeName(b)}`);
  if (bRank >= 3) throw new MatmulShapeError(`expected scalar type ${scalarTypeName(a)} but found ${scalarTypeName(b)}`);
  throw new MatmulShapeError(`expected m1 and m2 to have the same dtype, but got: ${atenDtypeName(a)} != ${atenDtypeName(b)}`);
}

/**
 * F.linear(x, weight, bias)'s output sizes: x [..., K] times weightᵀ (weight [N, K] or [K]);
 * bias (when given, weight 2-D) broadcasts to [..., N] as addmm's self does.
 */
export function linearOutputSizes(xSizes: readonly number[], wSizes: readonly number[], biasSizes: readonly number[] | null): number[] {
  if (wSizes.length > 2) throw new MatmulShapeError(`t() expects a tensor with <= 2 dimensions, but self is ${wSizes.length}D`);
  if (wSizes.length === 0) throw new MatmulShapeError(`both arguments to matmul need to be at least 1D, but they are ${xSizes.length}D and 0D`);
  if (biasSizes !== null && wSizes.length === 1) throw new MatmulShapeError('mat2 must be a matrix, got 1-D tensor');
  const wT = wSizes.length === 2 ? [wSizes[1] as number, wSizes[0] as number] : [...wSizes];
  const out = matmulOutputSizes(xSizes, wT);
  if (biasSizes !== null) {
    const n = wSizes[0] as number;
    const rows = prod(xSizes.slice(0, -1));
    const target = [rows, n];
    const b = biasSizes;
    const fits = b.length <= 2 && b.every((s, i) => s === 1 || s === target[target.length - b.length + i]);
    if (!fits) {
      const d = b.length - 1;
      const bad = b[d] as number;
      throw new MatmulShapeError(
        `The expanded size of the tensor (${n}) must match the existing size (${bad}) at non-singleton dimension 1.  Target sizes: [${target.join(', ')}].  Tensor sizes: [${b.join(', ')}]`,
      );
    }
  }
  return out;
}

/** F.linear's dtype checks: x and weight as torch.matmul's mm path, then bias against weight (addmm's message). */
export function linearDtypeCheck(x: DataType, weight: DataType, bias: DataType | null): void {
  if (x !== weight) throw new MatmulShapeError(`expected m1 and m2 to have the same dtype, but got: ${atenDtypeName(x)} != ${atenDtypeName(weight)}`);
  if (bias !== null && bias !== weight) throw new MatmulShapeError(`self and mat2 must have the same dtype, but got ${scalarTypeName(bias)} and ${scalarTypeName(weight)}`);
}
