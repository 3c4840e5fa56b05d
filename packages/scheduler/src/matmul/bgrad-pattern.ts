// Recognizes a weight-gradient GEMM segment with cuBLASLt's BGRADA / BGRADB epilogue: a 2-D
// matmul D = op(A) · op(B) whose operands are segment inputs or permutes of them
// (operand-source.ts), plus the sum of one operand over the GEMM's K dim — a linear's bias
// gradient db = sum(dY, 0) next to dW = matmul(permute(dY), X), where op(A) = dYᵀ is [m, k] and
// the sum over dY's rows is the sum of op(A) over k (BGRADA, m entries; the sum of op(B) over k
// is BGRADB, n entries). The sum may read the operand view or the segment input behind it, with
// plain casts before and after it (dY → Float → sum → dY's dtype, as Thunder writes it); the
// gradient has D's dtype (cuBLASLt's rule). The names are this descriptor's A and B; the device
// layer's column-major plan swaps them into cuBLASLt's.
// Invariant: `ok` means every tensor expression of the segment is the GEMM, an operand's permute
// or a step of that one sum chain, and the segment's outputs are exactly D and the gradient;
// null means the segment has no sum over a GEMM operand (the forward pattern's reason stands).

import type { Expr, Fusion, MatmulOp, TensorView } from '@tsfuser/fusion-ir';
import { tensorExprs, tvName } from '../segmentation/fusion-graph.js';
import { castChainFrom, isTensorCast } from './cast-chain.js';
import { gemmOperandSource, type OperandSource } from './operand-source.js';
import type { MatmulDtype } from './params.js';

export interface BgradPattern {
  gemm: MatmulOp;
  aInput: number;
  bInput: number;
  aPermutation: readonly number[] | null;
  bPermutation: readonly number[] | null;
  /** D, the GEMM's result. */
  result: TensorView;
  /** Which operand is summed over K: A → BGRADA (m entries), B → BGRADB (n entries). */
  operand: 'A' | 'B';
  biasGradient: TensorView;
  inputDtype: MatmulDtype;
  fused: string[];
}

export type BgradResult = { ok: true; pattern: BgradPattern } | { ok: false; reason: string } | null;

function isMatmulDtype(dtype: string): dtype is MatmulDtype {
  return dtype === 'Float' || dtype === 'BFloat16' || dtype === 'Half';
}

/** A cast to a GEMM dtype (cuBLASLt's bias gradient has D's dtype). */
function isCast(e: Expr): boolean {
  return isTensorCast(e) && isMatmulDtype((e.outputs[0] as TensorView).dtype);
}

interface SumChain {
  exprs: Expr[];
  summed: TensorView;
  end: TensorView;
}

/** A read `first` of `start`: casts, one add-reduction, casts; null when it is none. */
function sumChain(first: Expr, live: ReadonlySet<Expr>): SumChain | null {
  const exprs: Expr[] = [];
  let e = first;
  while (isCast(e)) {
    exprs.push(e);
    const next = e.outputs[0] as TensorView;
    const uses = next.uses.filter((u) => live.has(u));
    if (uses.length !== 1) return null;
    e = uses[0] as Expr;
  }
  if (e.kind !== 'ReductionOp' || e.op !== 'add') return null;
  const summed = e.outputs[0];
  if (summed === undefined || summed.kind !== 'tensorView') return null;
  exprs.push(e);
  const after = castChainFrom(summed, live, isCast);
  return { exprs: [...exprs, ...after.casts], summed, end: after.end };
}

/** The BGRADA / BGRADB segment in `fusion`, why not, or null (see the header). */
export function matchBgradSegment(fusion: Fusion): BgradResult {
  const exprs = tensorExprs(fusion);
  const gemms = exprs.filter((e) => e.kind === 'MatmulOp' || e.kind === 'LinearOp' || e.kind === 'ScaledMmaOp' || e.kind === 'GroupedMmaOp');
  const gemm = gemms[0];
  if (gemms.length !== 1 || gemm === undefined || gemm.kind !== 'MatmulOp') return null;
  const out = gemm.out();
  const inputDtype = gemm.inA().dtype;
  if (!isMatmulDtype(inputDtype)) return null;
  const a = gemmOperandSource(fusion, gemm.inA(), 'A', out);
  const b = gemmOperandSource(fusion, gemm.inB(), 'B', out);
  if (typeof a === 'string' || typeof b === 'string') return null;
  const live = new Set(exprs);
  const own = new Set<Expr>([gemm, ...[a.expr, b.expr].filter((e): e is Expr => e !== null)]);
  // Each operand's view and the input behind it, with the dim of that tensor that is the GEMM's K.
  const kView = { A: 1, B: 0 } as const;
  const candidates: { operand: 'A' | 'B'; tv: TensorView; kDim: number }[] = [];
  for (const [operand, view, source] of [['A', gemm.inA(), a], ['B', gemm.inB(), b]] as const) {
    const s: OperandSource = source;
    candidates.push({ operand, tv: view, kDim: kView[operand] });
    if (s.tv !== view) candidates.push({ operand, tv: s.tv, kDim: s.permutation === null ? kView[operand] : (s.permutation[kView[operand]] as number) });
  }
  for (const c of candidates) {
    for (const use of c.tv.uses.filter((u) => live.has(u) && !own.has(u))) {
      const chain = sumChain(use, live);
      if (chain === null) continue;
      const grad = tvName(chain.end);
      if (gemm.inA().rank() !== 2 || gemm.inB().rank() !== 2) return { ok: false, reason: `the bias gradient ${grad} sums an operand of a ${gemm.inA().rank()}-D × ${gemm.inB().rank()}-D matmul: cuBLASLt's BGRADA / BGRADB take one 2-D GEMM (no batch, no vector)` };
      const reduced = chain.summed.domain.logical.map((id) => id.isReduction());
      if (reduced.length !== 2 || reduced.some((r, i) => r !== (i === c.kDim))) {
        return { ok: false, reason: `the sum producing ${tvName(chain.summed)} is not over ${tvName(c.tv)}'s dim ${c.kDim}, the GEMM's K: cuBLASLt's BGRAD${c.operand} sums op(${c.operand}) over K` };
      }
      const steps = new Set<Expr>([...own, ...chain.exprs]);
      const stray = exprs.find((e) => !steps.has(e));
      if (stray !== undefined) return { ok: false, reason: `${stray.kind} producing ${stray.outputs.map(tvName).join(', ')} is not part of ${tvName(out)}'s BGRAD${c.operand} epilogue (the GEMM and the sum of op(${c.operand}) over K)` };
      if (out.uses.some((u) => live.has(u))) return { ok: false, reason: `${tvName(out)} is read inside the segment: cuBLASLt's BGRAD${c.operand} has no activation or cast after the GEMM` };
      const outputs = new Set(fusion.outputs);
      if (outputs.size !== 2 || !outputs.has(out) || !outputs.has(chain.end)) {
        return { ok: false, reason: `the segment's outputs ${fusion.outputs.map(tvName).join(', ')}: cuBLASLt's BGRAD${c.operand} writes D ${tvName(out)} and the bias gradient ${grad} only` };
      }
      if (chain.end.dtype !== out.dtype) return { ok: false, reason: `the bias gradient ${grad} is ${chain.end.dtype} but D ${tvName(out)} is ${out.dtype}: cuBLASLt's bias gradient has D's dtype` };
      const fused = ([['A', gemm.inA(), a], ['B', gemm.inB(), b]] as const).filter(([, , s]) => s.expr !== null).map(([what, view, s]) => `${what} ${tvName(view)} = permute(${tvName(s.tv)}) read in place`);
      fused.push(`bias gradient ${grad} = sum of op(${c.operand}) over K`);
      return {
        ok: true,
        pattern: { gemm, aInput: a.input, bInput: b.input, aPermutation: a.permutation, bPermutation: b.permutation, result: out, operand: c.operand, biasGradient: chain.end, inputDtype, fused },
      };
    }
  }
  return null;
}
