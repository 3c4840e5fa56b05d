// Recognizes a backward GEMM segment with cuBLASLt's DGELU / DGELU_BGRAD epilogue: the dgrad
// GEMM of an MLP's gelu(tanh), D = (A·B) · gelu_tanh'(P) with P the saved pre-activation (a
// segment input of D's shape), and optionally the bias gradient of the linear before the gelu,
// db = sum(D, rows) (the sum over the GEMM's M dim, D's dtype). The gelu derivative is
// recognized as fusion-ir's geluBackward(grad, x, 'tanh') computes it: the segment's expression
// tree from the GEMM's result and P to D is compared with the tree geluBackward builds for
// tensors of the same dtypes (ops, constants and operand order, leaves matched to the GEMM's
// result and P), so only that exact computation — the one cuBLASLt's DGELU evaluates — fuses;
// another form of the derivative (erf, a different decomposition) is refused with the reason.
// Invariant: `ok` means every tensor expression of the segment is the GEMM, a step of that tree
// or the bias gradient's sum and casts; null means the segment has no gelu backward at all (no
// tree from the GEMM's result and a segment input through a tanh or erf: the
// forward pattern's reason then stands).

import { Fusion, geluBackward, makeTensor, type Expr, type LinearOp, type MatmulOp, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { tensorExprs, tvName } from '../segmentation/fusion-graph.js';
import type { MatmulDtype } from './params.js';
import { castChainFrom } from './cast-chain.js';

export interface DgeluPattern {
  gemm: MatmulOp | LinearOp;
  aInput: number;
  bInput: number;
  /** The pre-activation P (cuBLASLt's aux input). */
  aux: { input: number; tv: TensorView };
  /** D = (A·B) · gelu_tanh'(P). */
  result: TensorView;
  /** db = sum of D over its rows, when the segment computes it (DGELU_BGRAD). */
  biasGradient: TensorView | null;
  inputDtype: MatmulDtype;
  fused: string[];
}

export type DgeluResult = { ok: true; pattern: DgeluPattern } | { ok: false; reason: string } | null;

function isMatmulDtype(dtype: string): dtype is MatmulDtype {
  return dtype === 'Float' || dtype === 'BFloat16' || dtype === 'Half';
}

/**
 * The expression tree ending at `v` as text: op kinds, ops, output dtypes and constants, with the
 * leaves in `leaves` named by their role; null when it reaches anything else (another tensor,
 * a symbolic scalar). `exprs` collects the tree's expressions.
 */
function treeKey(v: Val, leaves: ReadonlyMap<Val, string>, exprs: Set<Expr>): string | null {
  const leaf = leaves.get(v);
  if (leaf !== undefined) return leaf;
  if (v.kind === 'scalar') {
    const c = v.constNumber();
    return c === null ? null : `${v.dtype}:${c}`;
  }
  if (v.kind !== 'tensorView') return null;
  const def = v.definition;
  if (def === null || (def.kind !== 'UnaryOp' && def.kind !== 'BinaryOp' && def.kind !== 'TernaryOp')) return null;
  const parts: string[] = [];
  for (const input of def.inputs) {
    const k = treeKey(input, leaves, exprs);
    if (k === null) return null;
    parts.push(k);
  }
  exprs.add(def);
  return `${def.kind}.${def.op}->${v.dtype}(${parts.join(',')})`;
}

/** fusion-ir's geluBackward(grad, x, 'tanh') for a grad of `gradDtype` and an x of `xDtype`, as a tree key. */
function referenceKey(gradDtype: MatmulDtype, xDtype: MatmulDtype): string {
  const f = new Fusion();
  const grad = makeTensor(f, { shape: [-1, -1], dtype: gradDtype });
  const x = makeTensor(f, { shape: [-1, -1], dtype: xDtype });
  const out = geluBackward(grad, x, 'tanh');
  return treeKey(out, new Map<Val, string>([[grad, 'GRAD'], [x, 'X']]), new Set()) ?? '';
}

/** The DGELU segment in `fusion`, why not, or null (no gelu backward here; see the header). */
export function matchDgeluSegment(fusion: Fusion): DgeluResult {
  const exprs = tensorExprs(fusion);
  const gemms = exprs.filter((e): e is MatmulOp | LinearOp => e.kind === 'MatmulOp' || e.kind === 'LinearOp');
  const gemm = gemms[0];
  if (gemms.length !== 1 || gemm === undefined || exprs.some((e) => e.kind === 'ScaledMmaOp' || e.kind === 'GroupedMmaOp')) return null;
  const out = gemm.out();
  const inputDtype = gemm.inA().dtype;
  if (!isMatmulDtype(inputDtype) || !isMatmulDtype(out.dtype)) return null;
  const live = new Set(exprs);
  // D: the one output of D's shape (besides a bias gradient) whose tree reaches the GEMM's result and a segment input.
  const candidates = fusion.outputs.filter((o): o is TensorView => o.kind === 'tensorView' && o !== out && o.domain.logicalNoReductions().length === out.domain.logicalNoReductions().length);
  for (const d of candidates) {
    for (const p of fusion.inputs) {
      if (p.kind !== 'tensorView' || p === gemm.inA() || p === gemm.inB() || !isMatmulDtype(p.dtype)) continue;
      const treeExprs = new Set<Expr>();
      const key = treeKey(d, new Map<Val, string>([[out, 'GRAD'], [p, 'X']]), treeExprs);
      if (key === null || !key.includes('GRAD') || !key.includes('X')) continue;
      // only a tree that looks like an activation's derivative (a tanh or erf of P) is claimed here
      if (!key.includes('UnaryOp.tanh') && !key.includes('UnaryOp.erf')) continue;
      if (key !== referenceKey(out.dtype, p.dtype)) {
        return { ok: false, reason: `${tvName(d)} = f(${tvName(out)}, ${tvName(p)}) is not gelu(tanh)'s derivative as geluBackward(grad, x, 'tanh') computes it: cuBLASLt's DGELU computes only that` };
      }
      if (gemm.kind === 'LinearOp' && gemm.bias() !== null) return { ok: false, reason: `the linear producing ${tvName(out)} adds a bias before the gelu backward: cuBLASLt's DGELU takes none` };
      for (const [what, tv] of [['A', gemm.inA()], ['B', gemm.inB()]] as const) {
        if (!fusion.inputs.includes(tv)) return { ok: false, reason: `${what} ${tvName(tv)} of ${tvName(out)} is computed in the segment: cuBLASLt fuses no prologue` };
      }
      if (p.domain.logicalNoReductions().some((id) => id.isBroadcast())) return { ok: false, reason: `the pre-activation ${tvName(p)} is broadcast: cuBLASLt's aux is a full matrix` };
      const steps = new Set<Expr>([gemm, ...treeExprs]);
      const fused = [`dgelu(tanh) with aux ${tvName(p)} -> ${tvName(d)}`];
      let biasGradient: TensorView | null = null;
      const other = fusion.outputs.filter((o) => o !== d);
      if (other.length > 0) {
        const { end, casts } = castChainFrom(d, live);
        const sumExpr = end.uses.find((u) => live.has(u));
        const summed = sumExpr?.outputs[0];
        if (sumExpr === undefined || sumExpr.kind !== 'ReductionOp' || sumExpr.op !== 'add' || summed === undefined || summed.kind !== 'tensorView') {
          return { ok: false, reason: `outputs ${other.map(tvName).join(', ')} are not the sum of ${tvName(d)} over its rows: cuBLASLt's DGELU_BGRAD writes D and that bias gradient only` };
        }
        const reduced = summed.domain.logical.map((id) => id.isReduction());
        if (reduced.length !== 2 || reduced[0] !== true || reduced[1] !== false) {
          return { ok: false, reason: `the sum producing ${tvName(summed)} is not over ${tvName(d)}'s rows (dim 0 of a matrix): cuBLASLt's bias gradient sums the M rows` };
        }
        const after = castChainFrom(summed, live);
        if (other.length !== 1 || other[0] !== after.end) return { ok: false, reason: `outputs ${other.map(tvName).join(', ')}: cuBLASLt's DGELU_BGRAD writes D and the sum of its rows only` };
        if (after.end.dtype !== d.dtype) return { ok: false, reason: `the bias gradient ${tvName(after.end)} is ${after.end.dtype} but D ${tvName(d)} is ${d.dtype}: cuBLASLt's bias gradient has D's dtype` };
        for (const e of [...casts, sumExpr, ...after.casts]) steps.add(e);
        biasGradient = after.end;
        fused.push(`bias gradient sum ${tvName(biasGradient)}`);
      }
      const stray = exprs.find((e) => !steps.has(e));
      if (stray !== undefined) return { ok: false, reason: `${stray.kind} producing ${stray.outputs.map(tvName).join(', ')} is not part of ${tvName(d)}'s DGELU epilogue` };
      if (d.dtype !== out.dtype) return { ok: false, reason: `D ${tvName(d)} is ${d.dtype} but the GEMM writes ${out.dtype}` };
      if (p.dtype !== d.dtype) return { ok: false, reason: `the pre-activation ${tvName(p)} is ${p.dtype} but D is ${d.dtype}: cuBLASLt's GELU aux has D's dtype` };
      return {
        ok: true,
        pattern: { gemm, aInput: fusion.inputs.indexOf(gemm.inA()), bInput: fusion.inputs.indexOf(gemm.inB()), aux: { input: fusion.inputs.indexOf(p), tv: p }, result: d, biasGradient, inputDtype, fused },
      };
    }
  }
  return null;
}
