// The GEMM segment's analysis (nvFuser's matmul pattern and layout analysis): the pattern
// (epilogue-pattern.ts) on the segment's fusion, then the call on the runtime layouts of its
// inputs (operand-layout.ts): m, n, k, batch, leading dims, transpositions, batch strides, the
// output's and the epilogue's vectors. A cuBLASLt segment chooses nothing beyond this
// description (the algorithm is cuBLASLt's, asked at run time and cached per descriptor), so the
// matmul scheduler's acceptance is this analysis's verdict (canScheduleMatmul) and its heuristics
// are the described call (MatmulScheduler.computeHeuristics, once per segment): the segment is
// accepted on exactly the call it runs.
// A backward segment (the gelu(tanh) derivative after the GEMM, dgelu-pattern.ts) gets the
// DGELU / DGELU_BGRAD epilogue, the saved pre-activation read as cuBLASLt's aux; a weight-gradient
// segment (a 2-D matmul and the sum of one operand over K, bgrad-pattern.ts) gets BGRADA / BGRADB.
// An operand that is a permute of a segment input is read in place: its layout is that input's
// sizes and strides permuted (operand-source.ts); one cuBLASLt cannot read in place is a refusal
// (the permute then stays a view segment and the GEMM reads it through a dense copy).
// Operand sizes PyTorch refuses (mat1 and mat2 shapes cannot be multiplied, …) are not a
// refusal but a GemmShapeError with PyTorch's message: the inputs are wrong, no other segment
// could compute them (the layout would otherwise read past B, as cuBLASLt gets m, n, k from A).
// Invariant: an accepted segment's parameters pass the device's GEMM validation for the
// layouts the runtime info states (dims ≥ 1, ld ≥ cols, bias dtype = D's, GELU aux ld a
// multiple of 8, C contiguous with D's sizes and dtype); anything else is a refusal naming the tensor and the rule.

import { contiguousStrides, linearOutputSizes, MatmulShapeError, matmulOutputSizes, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import { GemmShapeError } from './shape-error.js';
import { matchDgeluSegment, type DgeluPattern } from './dgelu-pattern.js';
import { matchBgradSegment, type BgradPattern } from './bgrad-pattern.js';
import { permuted } from './operand-source.js';
import { analyzeGroupedMmSegment } from './grouped-mm.js';
import { analyzeScaledMmSegment } from './scaled-mm.js';
import type { RuntimeInfo, TensorInputInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { tvName } from '../segmentation/fusion-graph.js';
import { matchGemmSegment, type GemmPattern } from './epilogue-pattern.js';
import { planGemmLayout, type GemmLayout, type OperandInfo, type OperandRole } from './operand-layout.js';
import type { MatmulDtype, MatmulEpilogue, MatmulEpilogueKind, MatmulParams } from './params.js';

export type MatmulSegmentAnalysis = { ok: true; params: MatmulParams } | { ok: false; reason: string };


/** PyTorch's shape rule of the GEMM on the real sizes (ops/matmul-shapes.ts of fusion-ir), as a GemmShapeError. */
function checkOperandSizes(p: GemmPattern, a: readonly number[], b: readonly number[], bias: readonly number[] | null): void {
  try {
    if (p.gemm.kind === 'LinearOp') linearOutputSizes(a, b, p.gemm.bias() === null ? null : bias);
    else matmulOutputSizes(a, b);
  } catch (error) {
    if (error instanceof MatmulShapeError) throw new GemmShapeError(`${p.gemm.kind === 'LinearOp' ? 'linear' : 'matmul'} producing ${tvName(p.gemm.out())}: ${error.message}`);
    throw error;
  }
}

function tensorInfo(info: RuntimeInfo, input: number, tv: TensorView): TensorInputInfo | string {
  const i = info.inputs[input];
  if (i === undefined || i.kind !== 'tensor') return `runtime info has no tensor layout for ${tvName(tv)} (input ${input})`;
  return i;
}

function epilogueKind(bias: boolean, activation: GemmPattern['activation'], aux: boolean): MatmulEpilogueKind {
  switch (activation) {
    case null:
      return bias ? 'BIAS' : 'DEFAULT';
    case 'relu':
      return bias ? 'RELU_BIAS' : 'RELU';
    case 'gelu_tanh':
      if (aux) return bias ? 'GELU_AUX_BIAS' : 'GELU_AUX';
      return bias ? 'GELU_BIAS' : 'GELU';
    default: {
      const unreachable: never = activation;
      throw new Error(`unknown activation ${String(unreachable)}`);
    }
  }
}

/** Which of cuBLASLt's epilogues a GEMM segment may take (MatmulScheduler's overrides). */
export interface MatmulSegmentOptions {
  /**
   * The backward epilogues (DGELU / DGELU_BGRAD, BGRADA / BGRADB). Off by default: on the H200
   * (2026-12-02, GPT MLP backward, tokens 8192, hidden 4096, ffn 16384, bf16; `tsfuser bench
   * --profile`) cuBLASLt ran the DGELU_BGRAD GEMM 8192×16384×4096 at 410 TFLOP/s (2.68 ms) and
   * BGRADA at 746, where the plain GEMMs of those shapes run at 774–810; the gelu backward and
   * the bias gradients are then tsfuser kernels reading the GEMM's result (about 0.25 ms).
   */
  backwardEpilogues?: boolean;
}

/** Why a backward epilogue is not fused with `options` (null when it may be). */
function backwardEpilogueRefusal(options: MatmulSegmentOptions, what: string): string | null {
  if (options.backwardEpilogues === true) return null;
  return `cuBLASLt's ${what} epilogue is not fused by default (slower than a plain GEMM and a tsfuser kernel on the H200; MatmulScheduler({ backwardEpilogues: true }) fuses it)`;
}

/** The GEMM segment's analysis for `fusion` under `info` (the call it describes), or why it is not one. */
export function analyzeMatmulSegment(fusion: Fusion, info: RuntimeInfo, options: MatmulSegmentOptions = {}): MatmulSegmentAnalysis {
  const kinds = new Set(fusion.exprs().map((e) => e.kind));
  if (kinds.has('ScaledMmaOp')) return analyzeScaledMmSegment(fusion, info);
  if (kinds.has('GroupedMmaOp')) return analyzeGroupedMmSegment(fusion, info);
  const matched = matchGemmSegment(fusion);
  if (!matched.ok) {
    // a backward GEMM (DGELU / DGELU_BGRAD) is not the forward chain; its refusal names the rule it broke
    const dgelu = matchDgeluSegment(fusion);
    if (dgelu !== null) {
      if (!dgelu.ok) return dgelu;
      const off = backwardEpilogueRefusal(options, dgelu.pattern.biasGradient === null ? 'DGELU' : 'DGELU_BGRAD');
      return off !== null ? { ok: false, reason: off } : dgeluHeuristics(fusion, info, dgelu.pattern);
    }
    // a weight-gradient GEMM with its bias gradient (BGRADA / BGRADB)
    const bgrad = matchBgradSegment(fusion);
    if (bgrad === null) return matched;
    if (!bgrad.ok) return bgrad;
    const off = backwardEpilogueRefusal(options, bgrad.pattern.operand === 'A' ? 'BGRADA' : 'BGRADB');
    return off !== null ? { ok: false, reason: off } : bgradHeuristics(fusion, info, bgrad.pattern);
  }
  const p = matched.pattern;
  const aTv = p.gemm.inA();
  const bTv = p.gemm.inB();
  const aInfo = tensorInfo(info, p.aInput, aTv);
  const bInfo = tensorInfo(info, p.bInput, bTv);
  if (typeof aInfo === 'string') return { ok: false, reason: aInfo };
  if (typeof bInfo === 'string') return { ok: false, reason: bInfo };
  const ownBias = p.gemm.kind === 'LinearOp' && p.bias !== null ? info.inputs[p.bias.input] : undefined;
  const aOperand = operandInfo(p.aInput, aInfo, p.aPermutation);
  const bOperand = operandInfo(p.bInput, bInfo, p.bPermutation);
  checkOperandSizes(p, aOperand.sizes, bOperand.sizes, ownBias !== undefined && ownBias.kind === 'tensor' ? ownBias.sizes : null);
  const linear = p.gemm.kind === 'LinearOp';
  const aRole: OperandRole = linear ? 'linearInput' : 'matmulA';
  const bRole: OperandRole = linear ? 'linearWeight' : 'matmulB';
  const layout = planGemmLayout(aRole, aOperand, bRole, bOperand);
  const viewCopy = permutedCopyRefusal(p, layout);
  if (viewCopy !== null) return { ok: false, reason: viewCopy };
  const out = tvName(p.gemm.out());
  if (layout.k === 0) return { ok: false, reason: `${out} has K = 0 (a sum over nothing): cuBLASLt needs k ≥ 1` };
  if (layout.m === 0 || layout.n === 0 || layout.batch === 0) return { ok: false, reason: `${out} is empty (m ${layout.m}, n ${layout.n}, batch ${layout.batch}): nothing to call cuBLASLt for` };
  // The pattern checked that D is a GEMM dtype.
  const dtype = p.result.dtype as MatmulDtype;
  let bias: MatmulEpilogue['bias'] = null;
  if (p.bias !== null) {
    const bi = tensorInfo(info, p.bias.input, p.bias.tv);
    if (typeof bi === 'string') return { ok: false, reason: bi };
    const n = bi.sizes[bi.sizes.length - 1] ?? 1;
    const stride = bi.strides[bi.strides.length - 1] ?? 1;
    if (n !== 1 && stride !== 1) return { ok: false, reason: `the bias ${tvName(p.bias.tv)} has stride ${stride} along N: cuBLASLt reads a contiguous bias vector` };
    if (n !== layout.n) return { ok: false, reason: `the bias ${tvName(p.bias.tv)} has ${n} entries but N is ${layout.n}: cuBLASLt adds a full vector` };
    // The pattern checked that the bias has D's dtype (cuBLASLt's rule).
    bias = { input: p.bias.input, dtype };
  }
  let aux: MatmulEpilogue['aux'] = null;
  if (p.auxOutput !== null) {
    if (layout.n % 8 !== 0) return { ok: false, reason: `the pre-activation ${tvName(p.auxOutput)} has N = ${layout.n}: cuBLASLt's GELU aux needs a leading dimension that is a multiple of 8` };
    aux = { output: fusion.outputs.indexOf(p.auxOutput), dtype, ld: layout.n, batchStride: layout.batch > 1 ? layout.m * layout.n : 0 };
  }
  let c: MatmulEpilogue['c'] = null;
  if (p.c !== null) {
    const ci = tensorInfo(info, p.c.input, p.c.tv);
    if (typeof ci === 'string') return { ok: false, reason: ci };
    const numel = ci.sizes.reduce((a, b) => a * b, 1);
    if (numel !== layout.batch * layout.m * layout.n || (ci.sizes[ci.sizes.length - 1] ?? 1) !== layout.n) {
      return { ok: false, reason: `C ${tvName(p.c.tv)} has sizes [${ci.sizes.join(', ')}], not the GEMM result's ${layout.batch} × ${layout.m} × ${layout.n}` };
    }
    // D is written dense row-major; cuBLASLt reads C with D's leading dim and batch stride here
    const dense = contiguousStrides(ci.sizes);
    if (ci.sizes.some((s, i) => s !== 1 && ci.strides[i] !== dense[i])) {
      return { ok: false, reason: `C ${tvName(p.c.tv)} has strides [${ci.strides.join(', ')}]: cuBLASLt reads C laid out like D (contiguous [${dense.join(', ')}])` };
    }
    c = { input: p.c.input, dtype, ld: layout.d.ld, batchStride: layout.d.batchStride };
  }
  const epilogue: MatmulEpilogue = { kind: epilogueKind(bias !== null, p.activation, aux !== null), bias, aux, c, auxInput: null, biasGradient: null };
  return { ok: true, params: plainGemmParams(fusion, layout, linear, p, dtype, epilogue) };
}

/** A segment input's layout as the GEMM operand reads it (through the permute, when there is one). */
function operandInfo(input: number, info: TensorInputInfo, permutation: readonly number[] | null): OperandInfo {
  return { input, sizes: permuted(info.sizes, permutation), strides: permuted(info.strides, permutation) };
}

/**
 * A permuted operand must be read in place: the runtime's dense copy copies a segment input as it
 * is, not through a permute inside the segment. Why not, or null.
 */
function permutedCopyRefusal(p: { gemm: { inA(): TensorView; inB(): TensorView }; aPermutation: readonly number[] | null; bPermutation: readonly number[] | null }, layout: GemmLayout): string | null {
  for (const [what, perm, operand, tv] of [['A', p.aPermutation, layout.a, p.gemm.inA()], ['B', p.bPermutation, layout.b, p.gemm.inB()]] as const) {
    if (perm !== null && operand.copy !== null) return `the permuted operand ${what} ${tvName(tv)} cannot be read in place (${operand.copy.reason}): it stays a view segment`;
  }
  return null;
}

/** The BGRADA / BGRADB segment's parameters: the 2-D GEMM's layout and the bias gradient's output. */
/** The smallest K of a BGRADA call (see bgradHeuristics). */
const MIN_BGRADA_K = 2;

function bgradHeuristics(fusion: Fusion, info: RuntimeInfo, p: BgradPattern): MatmulSegmentAnalysis {
  const aInfo = tensorInfo(info, p.aInput, p.gemm.inA());
  const bInfo = tensorInfo(info, p.bInput, p.gemm.inB());
  if (typeof aInfo === 'string') return { ok: false, reason: aInfo };
  if (typeof bInfo === 'string') return { ok: false, reason: bInfo };
  const a = operandInfo(p.aInput, aInfo, p.aPermutation);
  const b = operandInfo(p.bInput, bInfo, p.bPermutation);
  const forward: GemmPattern = { gemm: p.gemm, aInput: p.aInput, bInput: p.bInput, aPermutation: p.aPermutation, bPermutation: p.bPermutation, bias: null, c: null, activation: null, auxOutput: null, result: p.result, inputDtype: p.inputDtype, fused: p.fused };
  checkOperandSizes(forward, a.sizes, b.sizes, null);
  const layout = planGemmLayout('matmulA', a, 'matmulB', b);
  const viewCopy = permutedCopyRefusal(p, layout);
  if (viewCopy !== null) return { ok: false, reason: viewCopy };
  const out = tvName(p.result);
  if (layout.m === 0 || layout.n === 0 || layout.k === 0) return { ok: false, reason: `${out} is empty or has K = 0: nothing to call cuBLASLt for` };
  // cuBLASLt 13 on the H200 had no BGRADA algorithm at K = 1 (runtime-gemm-fusions, 2026-12-02:
  // Float / bf16 / Half [8×1]·[1×8]) nor, in the device suite (2026-12-01), at two odd shapes
  // with A not transposed; BGRADA with A transposed at K 129 and 4095, and BGRADB at K 1, 129 and
  // 4095, had one. Where it failed the sum stays a reduction kernel instead of failing at run time.
  if (p.operand === 'A' && (layout.k < MIN_BGRADA_K || !layout.a.transposed)) {
    return { ok: false, reason: `${out} has K = ${layout.k}${layout.a.transposed ? '' : ' and A not transposed'}: cuBLASLt may have no BGRADA algorithm there (none at K = 1 nor for a non-transposed A at small odd shapes on the H200; fused only for a transposed A with K ≥ ${MIN_BGRADA_K}), so the bias gradient ${tvName(p.biasGradient)} stays a reduction kernel` };
  }
  const dtype = p.result.dtype as MatmulDtype;
  const epilogue: MatmulEpilogue = {
    kind: p.operand === 'A' ? 'BGRADA' : 'BGRADB',
    bias: null,
    aux: null,
    c: null,
    auxInput: null,
    biasGradient: { output: fusion.outputs.indexOf(p.biasGradient), dtype },
  };
  return { ok: true, params: plainGemmParams(fusion, layout, false, p, dtype, epilogue) };
}

/** The parameters of a plain (not scaled, not grouped) GEMM segment: its layout, D and epilogue. */
function plainGemmParams(
  fusion: Fusion,
  layout: ReturnType<typeof planGemmLayout>,
  linear: boolean,
  p: { inputDtype: MatmulParams['inputDtype']; result: TensorView; fused: MatmulParams['fused'] },
  dtype: MatmulDtype,
  epilogue: MatmulEpilogue,
): MatmulParams {
  return {
    schedulerType: 'matmul',
    tag: '',
    op: linear ? 'linear' : 'matmul',
    m: layout.m,
    n: layout.n,
    k: layout.k,
    batch: layout.batch,
    foldedBatch: layout.foldedBatch,
    inputDtype: p.inputDtype,
    bDtype: p.inputDtype,
    scales: null,
    grouped: null,
    a: layout.a,
    b: layout.b,
    d: { output: fusion.outputs.indexOf(p.result), dtype, ld: layout.d.ld, batchStride: layout.d.batchStride },
    epilogue,
    fused: p.fused,
  };
}

/** The DGELU(_BGRAD) segment's parameters: the GEMM's layout, P read as cuBLASLt's aux (laid out like D). */
function dgeluHeuristics(fusion: Fusion, info: RuntimeInfo, p: DgeluPattern): MatmulSegmentAnalysis {
  const aInfo = tensorInfo(info, p.aInput, p.gemm.inA());
  const bInfo = tensorInfo(info, p.bInput, p.gemm.inB());
  const xInfo = tensorInfo(info, p.aux.input, p.aux.tv);
  for (const i of [aInfo, bInfo, xInfo]) if (typeof i === 'string') return { ok: false, reason: i };
  const [a, b, x] = [aInfo, bInfo, xInfo] as TensorInputInfo[];
  if (a === undefined || b === undefined || x === undefined) return { ok: false, reason: 'missing layouts' };
  const linear = p.gemm.kind === 'LinearOp';
  const forward: GemmPattern = { gemm: p.gemm, aInput: p.aInput, bInput: p.bInput, aPermutation: null, bPermutation: null, bias: null, c: null, activation: null, auxOutput: null, result: p.result, inputDtype: p.inputDtype, fused: p.fused };
  checkOperandSizes(forward, a.sizes, b.sizes, null);
  const layout = planGemmLayout(linear ? 'linearInput' : 'matmulA', { input: p.aInput, sizes: a.sizes, strides: a.strides }, linear ? 'linearWeight' : 'matmulB', { input: p.bInput, sizes: b.sizes, strides: b.strides });
  const out = tvName(p.result);
  if (layout.m === 0 || layout.n === 0 || layout.k === 0 || layout.batch === 0) return { ok: false, reason: `${out} is empty or has K = 0: nothing to call cuBLASLt for` };
  if (layout.n % 8 !== 0) return { ok: false, reason: `${out} has N = ${layout.n}: cuBLASLt's GELU aux needs a leading dimension that is a multiple of 8` };
  const dense = contiguousStrides(x.sizes);
  const numel = x.sizes.reduce((s, t) => s * t, 1);
  if (numel !== layout.batch * layout.m * layout.n || x.sizes.some((s, i) => s !== 1 && x.strides[i] !== dense[i])) {
    return { ok: false, reason: `the pre-activation ${tvName(p.aux.tv)} has sizes [${x.sizes.join(', ')}] strides [${x.strides.join(', ')}]: cuBLASLt reads the aux laid out like D (contiguous, ${layout.batch} × ${layout.m} × ${layout.n})` };
  }
  if (p.biasGradient !== null && layout.batch > 1) return { ok: false, reason: `${out} is batched: cuBLASLt's DGELU_BGRAD sums one matrix's rows` };
  const dtype = p.result.dtype as MatmulDtype;
  const epilogue: MatmulEpilogue = {
    kind: p.biasGradient === null ? 'DGELU' : 'DGELU_BGRAD',
    bias: null,
    aux: null,
    c: null,
    auxInput: { input: p.aux.input, dtype, ld: layout.n, batchStride: layout.batch > 1 ? layout.m * layout.n : 0 },
    biasGradient: p.biasGradient === null ? null : { output: fusion.outputs.indexOf(p.biasGradient), dtype },
  };
  return { ok: true, params: plainGemmParams(fusion, layout, linear, p, dtype, epilogue) };
}

/** Whether `fusion` is one GEMM segment under `info` (the verdict of analyzeMatmulSegment). */
export function canScheduleMatmul(fusion: Fusion, info: RuntimeInfo, options: MatmulSegmentOptions = {}): CanScheduleResult {
  const r = analyzeMatmulSegment(fusion, info, options);
  return r.ok ? { ok: true } : { ok: false, reason: r.reason };
}
