// Where a GEMM segment's operand comes from: a segment input read as it is, or a permute of a
// segment input inside the segment — the weight-gradient form dW = matmul(permute(dY), X) of a
// backward. cuBLASLt reads the permuted view in place: its layout is the input's sizes and
// strides permuted (a transposed operand, described to cuBLASLt, never copied), so the permute
// joins the GEMM segment instead of standing alone as a view segment, and the segment may then
// also read the un-permuted input itself (a bias gradient sum(dY, 0), BGRADA / BGRADB).
// Invariant: an accepted source names the segment input whose buffer cuBLASLt reads, and the
// permutation (out dim i reads input dim permutation[i]) that maps that buffer's sizes and
// strides onto the operand's logical dims; anything else computed before the GEMM is a refusal.

import type { Expr, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { tvName } from '../segmentation/fusion-graph.js';

export interface OperandSource {
  /** The segment input position of the buffer cuBLASLt reads. */
  input: number;
  /** That segment input. */
  tv: TensorView;
  /** The permute between the input and the operand (null: the operand is the input). */
  permutation: readonly number[] | null;
  /** The permute expression, when there is one (a step of the segment). */
  expr: Expr | null;
}

/** The operand `tv` (`what` is 'A' or 'B' of the GEMM producing `out`) as a segment input, or why not. */
export function gemmOperandSource(fusion: Fusion, tv: TensorView, what: 'A' | 'B', out: TensorView): OperandSource | string {
  const direct = fusion.inputs.indexOf(tv);
  if (direct >= 0) return { input: direct, tv, permutation: null, expr: null };
  const def = tv.definition;
  const source = def?.inputs[0];
  if (def !== null && def.kind === 'LoadStoreOp' && def.permutation !== null && source !== undefined && source.kind === 'tensorView') {
    const input = fusion.inputs.indexOf(source);
    if (input >= 0) return { input, tv: source, permutation: def.permutation, expr: def };
  }
  return `${what} ${tvName(tv)} of ${tvName(out)} is computed in the segment: cuBLASLt fuses no prologue (a generated kernel before the GEMM computes it)`;
}

/** `values` (an input's sizes or strides) in the operand's dim order. */
export function permuted(values: readonly number[], permutation: readonly number[] | null): number[] {
  return permutation === null ? [...values] : permutation.map((p) => values[p] as number);
}
