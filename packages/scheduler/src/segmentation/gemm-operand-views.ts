// Permutes that only feed GEMMs stay views: a permute whose every reader is a matmul / linear
// (the weight-gradient form dW = matmul(permute(dY), X) of a backward) is never merged into a
// generated kernel. cuBLASLt reads the permuted view in place as a transposed operand (the
// GEMM segment's operand layout describes it), while a kernel would write the transposed tensor
// out — a strided write of the whole operand — for the GEMM to read it back. Such a permute
// is left to an expr_eval (view) segment, nvFuser's "bookending" of meta ops at the boundary,
// or joins the GEMM segment that reads it (of a segment input, the matmul scheduler describes
// it as a transposed layout: matmul/operand-source.ts), where the segment may then also fuse a
// sum of the un-permuted input as the bias gradient (BGRADA / BGRADB).
// Invariant: only LoadStoreOp permutes with at least one reader, all of them GEMMs, are named.

import type { Expr, Fusion } from '@tsfuser/fusion-ir';

const GEMMS = new Set(['MatmulOp', 'LinearOp']);

/** The permutes of `exprs` read only by GEMMs (see the header). */
export function gemmOperandPermutes(fusion: Fusion, exprs: readonly Expr[]): Set<Expr> {
  const live = new Set(exprs);
  const out = new Set<Expr>();
  for (const e of exprs) {
    if (e.kind !== 'LoadStoreOp' || e.permutation === null) continue;
    const result = e.outputs[0];
    if (result === undefined || result.kind !== 'tensorView' || fusion.outputs.includes(result)) continue;
    const readers = result.uses.filter((u) => live.has(u));
    if (readers.length > 0 && readers.every((u) => GEMMS.has(u.kind))) out.add(e);
  }
  return out;
}

/** The refusal of a kernel segment that would write such a permute out. */
export function gemmOperandPermuteRefusal(name: string): string {
  return `the permute producing ${name} only feeds GEMMs, which read it in place as a transposed operand: it stays a view`;
}
