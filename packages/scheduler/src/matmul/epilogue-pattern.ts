// Recognizes a GEMM segment: exactly one matmul / linear reading segment inputs (no prologue:
// a generated kernel before the GEMM computes any; a permute of a segment input is read in
// place as a transposed operand, operand-source.ts), followed by the chain that cuBLASLt's
// epilogues compute — casts between the input dtype and Float, one bias add along N (a
// contiguous [N] vector, broadcast over the rows inside the segment or before it), one add of a
// segment input of the result's full shape (cuBLASLt's C with beta = 1: a residual, or another
// GEMM's partial sum), one activation (relu, or gelu with approximate='tanh': cuBLASLt's GELU is the tanh form), and the
// cast to the output dtype (gelu only after a BFloat16 / Half GEMM: in f32 cuBLASLt's GELU is
// an approximation outside PyTorch's float32 tolerance). The outputs may be the chain's end (D) and the activation's input
// (the pre-activation, written by the _AUX forms).
// Invariant: `ok` means every tensor expression of the fusion is the GEMM, a step of that chain
// or the bias's broadcast / cast; every refusal names the tensor and why cuBLASLt cannot compute
// it in the GEMM's epilogue (it then runs in a generated kernel around the GEMM segment).

import type { Expr, Fusion, LinearOp, MatmulOp, TensorView, Val } from '@tsfuser/fusion-ir';
import { tensorExprs, tvName } from '../segmentation/fusion-graph.js';
import { gemmOperandSource, type OperandSource } from './operand-source.js';
import type { MatmulDtype } from './params.js';

/** The refusal of a segment without a matmul or linear (left out of the segmenter's summaries). */
export const NO_MATMUL = 'no matmul or linear in the segment';

export interface GemmPattern {
  gemm: MatmulOp | LinearOp;
  /** Segment input positions of A and B (linear: input and weight). */
  aInput: number;
  bInput: number;
  /** A permute of the segment input between it and the operand (null: none); see operand-source.ts. */
  aPermutation: readonly number[] | null;
  bPermutation: readonly number[] | null;
  /** The bias vector's segment input (linear's own bias, or a fused bias add). */
  bias: { input: number; tv: TensorView } | null;
  /** A segment input of the result's shape added before the activation: cuBLASLt's C (beta 1). */
  c: { input: number; tv: TensorView } | null;
  activation: 'relu' | 'gelu_tanh' | null;
  /** The activation's input, when it is also a segment output (the _AUX forms write it). */
  auxOutput: TensorView | null;
  /** D: the chain's last tensor. */
  result: TensorView;
  inputDtype: MatmulDtype;
  fused: string[];
}

export type PatternResult = { ok: true; pattern: GemmPattern } | { ok: false; reason: string };

/** The matrix-product expression kinds (the matmul scheduler looks at fusions holding one). */
export const GEMM_EXPR_KINDS: ReadonlySet<string> = new Set(['MatmulOp', 'LinearOp', 'ScaledMmaOp', 'GroupedMmaOp']);

function isMatmulDtype(dtype: string): dtype is MatmulDtype {
  return dtype === 'Float' || dtype === 'BFloat16' || dtype === 'Half';
}

/** A cast that only changes precision between the GEMM's input dtype and Float. */
function isPlainCast(e: Expr, inputDtype: MatmulDtype): boolean {
  if (e.kind !== 'UnaryOp' || e.op !== 'cast') return false;
  const out = e.outputs[0];
  return out !== undefined && out.kind === 'tensorView' && (out.dtype === 'Float' || out.dtype === inputDtype);
}

/**
 * The bias behind an add operand: a segment input of logical shape [N] (or broadcast dims then
 * N), reached through broadcasts and plain casts inside the segment. Those exprs join `steps`.
 */
function biasSource(fusion: Fusion, v: Val, hasN: boolean, inputDtype: MatmulDtype, steps: Set<Expr>): { input: number; tv: TensorView } | string {
  let cur = v;
  const seen: Expr[] = [];
  for (;;) {
    if (cur.kind !== 'tensorView') return `the add's other operand ${tvName(cur)} is not a tensor`;
    const input = fusion.inputs.indexOf(cur);
    if (input >= 0) {
      const ids = cur.domain.logicalNoReductions();
      const last = ids[ids.length - 1];
      if (last === undefined || last.isBroadcast() || ids.slice(0, -1).some((id) => !id.isBroadcast())) {
        return `${tvName(cur)} is added as [${ids.map((id) => (id.isBroadcast() ? '1' : 'N')).join(', ')}], not a bias along N (cuBLASLt's bias is one entry per output column)`;
      }
      if (!hasN) return `the GEMM result has no N dim (its B is a vector) to add a bias along`;
      for (const e of seen) steps.add(e);
      return { input, tv: cur };
    }
    const def = cur.definition;
    if (def === null) return `${tvName(cur)} has no definition`;
    if (def.kind === 'BroadcastOp') {
      const flags = def.isBroadcastDim;
      if (flags[flags.length - 1] === true) return `${tvName(cur)} broadcasts the last dim: not a bias along N`;
    } else if (!isPlainCast(def, inputDtype)) {
      return `the added ${tvName(cur)} is computed in the segment (${def.kind}): a bias must be a segment input`;
    }
    seen.push(def);
    cur = def.inputs[0] as Val;
  }
}

/**
 * The C matrix behind an add operand: a segment input without broadcast dims and of the GEMM
 * result's rank, reached through plain casts (its exprs join `steps` on success). null: the
 * operand is no such tensor (it may still be a bias).
 */
function cSource(fusion: Fusion, v: Val, rank: number, inputDtype: MatmulDtype, steps: Set<Expr>): { input: number; tv: TensorView } | null {
  let cur = v;
  const seen: Expr[] = [];
  for (;;) {
    if (cur.kind !== 'tensorView') return null;
    const input = fusion.inputs.indexOf(cur);
    if (input >= 0) {
      const ids = cur.domain.logicalNoReductions();
      if (ids.length !== rank || ids.some((id) => id.isBroadcast())) return null;
      for (const e of seen) steps.add(e);
      return { input, tv: cur };
    }
    const def = cur.definition;
    if (def === null || !isPlainCast(def, inputDtype)) return null;
    seen.push(def);
    cur = def.inputs[0] as Val;
  }
}

/** The GEMM segment in `fusion`, or why it is none (see the header). */
export function matchGemmSegment(fusion: Fusion): PatternResult {
  const exprs = tensorExprs(fusion);
  const gemms = exprs.filter((e) => GEMM_EXPR_KINDS.has(e.kind));
  if (gemms.length === 0) return { ok: false, reason: NO_MATMUL };
  if (gemms.length > 1) {
    return { ok: false, reason: `a GEMM segment holds one matmul or linear, this one ${gemms.map((g) => `${tvName(g.outputs[0] as Val)}`).join(' and ')}` };
  }
  const gemm = gemms[0] as Expr;
  if (gemm.kind === 'ScaledMmaOp' || gemm.kind === 'GroupedMmaOp') {
    // analyzeMatmulSegment takes those to scaled-mm.ts / grouped-mm.ts: segments of the op alone
    return { ok: false, reason: `${gemm.kind === 'ScaledMmaOp' ? 'scaled_mm' : 'grouped_mm'} producing ${tvName(gemm.outputs[0] as Val)} takes no epilogue chain here (its GEMM segment is the op alone)` };
  }
  if (gemm.kind !== 'MatmulOp' && gemm.kind !== 'LinearOp') return { ok: false, reason: NO_MATMUL };
  const out = gemm.out();
  const inputDtype = gemm.inA().dtype;
  if (!isMatmulDtype(inputDtype)) return { ok: false, reason: `${tvName(out)}: ${inputDtype} GEMMs do not run on cuBLASLt here (Float, BFloat16 and Half do)` };
  const steps = new Set<Expr>([gemm]);
  const fused: string[] = [];
  const sources: OperandSource[] = [];
  for (const [what, tv] of [['A', gemm.inA()], ['B', gemm.inB()]] as const) {
    const source = gemmOperandSource(fusion, tv, what, out);
    if (typeof source === 'string') return { ok: false, reason: source };
    if (source.expr !== null) {
      steps.add(source.expr);
      fused.push(`${what} ${tvName(tv)} = permute(${tvName(source.tv)}) read in place`);
    }
    sources.push(source);
  }
  const [aSource, bSource] = sources as [OperandSource, OperandSource];
  let bias: GemmPattern['bias'] = null;
  let c: GemmPattern['c'] = null;
  if (gemm.kind === 'LinearOp') {
    const b = gemm.bias();
    if (b !== null) {
      if (!fusion.inputs.includes(b)) return { ok: false, reason: `the bias ${tvName(b)} of ${tvName(out)} is computed in the segment` };
      if (b.rank() !== 1) return { ok: false, reason: `linear's bias ${tvName(b)} has ${b.rank()} dims: cuBLASLt's bias is one vector of N entries` };
      bias = { input: fusion.inputs.indexOf(b), tv: b };
      fused.push(`bias ${tvName(b)}`);
    }
  }
  const live = new Set(exprs);
  const usesOf = (tv: TensorView): Expr[] => tv.uses.filter((u) => live.has(u));
  let activation: GemmPattern['activation'] = null;
  let preActivation: TensorView | null = null;
  const chain: TensorView[] = [out];
  let cur: TensorView = out;
  for (;;) {
    const uses = usesOf(cur);
    if (uses.length === 0) break;
    if (uses.length > 1) return { ok: false, reason: `${tvName(cur)} is read by ${uses.length} expressions: cuBLASLt's epilogue is one chain` };
    const e = uses[0] as Expr;
    const next = e.outputs[0];
    if (next === undefined || next.kind !== 'tensorView') return { ok: false, reason: `${e.kind} after ${tvName(cur)} makes no tensor` };
    if (isPlainCast(e, inputDtype)) {
      fused.push(`cast ${tvName(next)} to ${next.dtype}`);
    } else if (e.kind === 'BinaryOp' && e.op === 'add') {
      if (activation !== null) return { ok: false, reason: `the add producing ${tvName(next)} follows the activation: cuBLASLt adds the bias and C before it` };
      const other = e.inputs[0] === cur ? e.inputs[1] : e.inputs[0];
      if (other === undefined || other === cur) return { ok: false, reason: `the add producing ${tvName(next)} adds ${tvName(cur)} to itself` };
      const matrix = cSource(fusion, other, cur.domain.logicalNoReductions().length, inputDtype, steps);
      if (matrix !== null) {
        if (c !== null) return { ok: false, reason: `the add producing ${tvName(next)} would be a second C (cuBLASLt adds one beta · C)` };
        c = matrix;
        fused.push(`add C ${tvName(matrix.tv)} ${tvName(next)}`);
      } else {
        if (bias !== null) return { ok: false, reason: `the add producing ${tvName(next)} would be a second bias (cuBLASLt adds one)` };
        const source = biasSource(fusion, other, gemm.inB().rank() > 1, inputDtype, steps);
        if (typeof source === 'string') return { ok: false, reason: `add producing ${tvName(next)}: ${source}` };
        bias = source;
        fused.push(`bias add ${tvName(next)}`);
      }
    } else if (e.kind === 'UnaryOp' && e.op === 'gelu_tanh' && inputDtype === 'Float') {
      // Measured on the H200 (2026-12-02): the traced Float linear -> gelu(tanh) -> linear with the
      // GELU epilogue was 1.6e-6 off PyTorch's float32 output (past atol 1e-6 + rtol 1e-5), with
      // gelu in a kernel 1.8e-7: cuBLASLt's GELU is its own f32 approximation. BFloat16 / Half
      // results round that away.
      return { ok: false, reason: `gelu_tanh producing ${tvName(next)} follows a Float GEMM: cuBLASLt's f32 GELU epilogue is an approximation outside PyTorch's float32 tolerance, so it runs in a kernel (BFloat16 / Half GEMMs fuse it)` };
    } else if (e.kind === 'UnaryOp' && (e.op === 'relu' || e.op === 'gelu_tanh')) {
      if (activation !== null) return { ok: false, reason: `${e.op} producing ${tvName(next)} is a second activation (cuBLASLt applies one)` };
      activation = e.op;
      preActivation = cur;
      fused.push(`${e.op} ${tvName(next)}`);
    } else if (e.kind === 'UnaryOp' && e.op === 'gelu') {
      return { ok: false, reason: `gelu producing ${tvName(next)} is the erf form: cuBLASLt's GELU epilogue is approximate='tanh'` };
    } else {
      const what = e.kind === 'UnaryOp' || e.kind === 'BinaryOp' ? `${e.op}` : e.kind;
      return { ok: false, reason: `${what} producing ${tvName(next)} has no cuBLASLt epilogue (bias add, add of C, relu, gelu(tanh) and casts do)` };
    }
    steps.add(e);
    chain.push(next);
    cur = next;
  }
  const stray = exprs.find((e) => !steps.has(e));
  if (stray !== undefined) {
    return { ok: false, reason: `${stray.kind} producing ${stray.outputs.map(tvName).join(', ')} is not part of ${tvName(out)}'s epilogue chain` };
  }
  const result = cur;
  if (!isMatmulDtype(result.dtype)) return { ok: false, reason: `the GEMM's output ${tvName(result)} is ${result.dtype}` };
  if (result.dtype !== inputDtype && result.dtype !== 'Float') {
    return { ok: false, reason: `${tvName(result)} is ${result.dtype}: cuBLASLt writes a ${inputDtype} GEMM as ${inputDtype} or Float` };
  }
  if (!fusion.outputs.includes(result)) return { ok: false, reason: `${tvName(result)}, the end of the GEMM's epilogue, is not a segment output` };
  let auxOutput: TensorView | null = null;
  for (const o of fusion.outputs) {
    if (o === result) continue;
    if (o.kind !== 'tensorView' || !chain.includes(o)) return { ok: false, reason: `output ${tvName(o)} is not computed by the GEMM's epilogue` };
    if (o !== preActivation || activation !== 'gelu_tanh') {
      const why = activation === 'relu' && o === preActivation ? "cuBLASLt's RELU_AUX writes a bit mask, not the pre-activation" : 'cuBLASLt writes only D and the pre-activation of a GELU';
      return { ok: false, reason: `${tvName(o)} is a segment output inside the GEMM's epilogue: ${why}` };
    }
    auxOutput = o;
  }
  if (bias !== null && bias.tv.dtype !== result.dtype) {
    return { ok: false, reason: `the bias ${tvName(bias.tv)} is ${bias.tv.dtype} but the GEMM writes ${result.dtype}: cuBLASLt's bias has D's dtype` };
  }
  if (c !== null && c.tv.dtype !== result.dtype) {
    return { ok: false, reason: `C ${tvName(c.tv)} is ${c.tv.dtype} but the GEMM writes ${result.dtype}: cuBLASLt's C has D's dtype` };
  }
  if (auxOutput !== null && auxOutput.dtype !== result.dtype) {
    return { ok: false, reason: `the pre-activation ${tvName(auxOutput)} is ${auxOutput.dtype} but D is ${result.dtype}: cuBLASLt's GELU aux has D's dtype` };
  }
  return {
    ok: true,
    pattern: { gemm, aInput: aSource.input, bInput: bSource.input, aPermutation: aSource.permutation, bPermutation: bSource.permutation, bias, c, activation, auxOutput, result, inputDtype, fused },
  };
}
