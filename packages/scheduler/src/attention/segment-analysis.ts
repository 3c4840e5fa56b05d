// The attention segment's analysis: the segment
// must be exactly one SdpaFwdOp or SdpaBwdOp (the kernels fuse no prologue or epilogue yet),
// its flags constants of the definition (they pick the kernel variant; the scale may also be a
// scalar input, a kernel parameter read at each call), and its tensors laid out
// as the generated kernels read them — rank 4 [N, H, L, E], BFloat16 / Half, the last dim
// contiguous, every row 16-byte aligned (the kernels copy rows with 16-byte cp.async), the
// logsumexp of the backward dense. The kernel variant follows from the op's flags and dtypes
// (codegen picks the tiling for it), so nothing is chosen beyond this description: the
// attention scheduler's acceptance is its verdict (canScheduleAttention) and its heuristics are
// the described call (AttentionScheduler.computeHeuristics, once per segment).
// Invariant: accepted parameters pass codegen's checkAttentionInputs for the layouts the
// runtime info states; anything else is a refusal naming the tensor, the dim and the rule.

import type { Fusion, Scalar, SdpaBwdOp, SdpaFwdOp, TensorView, Val } from '@tsfuser/fusion-ir';
import type { RuntimeInfo, TensorInputInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { tensorExprs, tvName } from '../segmentation/fusion-graph.js';
import type { AttentionKernelVariant, AttentionOperand, AttentionParams, AttentionRngValue, AttentionScale } from './params.js';

export type AttentionSegmentAnalysis = { ok: true; params: AttentionParams } | { ok: false; reason: string };

/** The refusal of a segment without an attention op (left out of segmentation summaries). */
export const NO_ATTENTION = 'the segment has no sdpfa_fwd or sdpfa_bwd';

/** The kernels' head-dim range (codegen's MIN_HEAD_DIM / MAX_HEAD_DIM). */
const MIN_E = 8;
const MAX_E = 256;
const GRID_LIMIT = 65535;

class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason);
}

type AttentionOp = SdpaFwdOp | SdpaBwdOp;

const opName = (op: AttentionOp): string => (op.kind === 'SdpaFwdOp' ? 'sdpfa_fwd' : 'sdpfa_bwd');

function theOp(fusion: Fusion): AttentionOp {
  const exprs = tensorExprs(fusion);
  const ops = exprs.filter((e): e is AttentionOp => e.kind === 'SdpaFwdOp' || e.kind === 'SdpaBwdOp');
  const op = ops[0];
  if (op === undefined) refuse(NO_ATTENTION);
  if (ops.length > 1) refuse(`one attention op per segment: ${ops.length} sdpfa ops here (each is its own set of kernels)`);
  const other = exprs.find((e) => e !== op);
  if (other !== undefined) {
    const o = other.outputs[0];
    const what = o !== undefined && o.kind === 'tensorView' ? `${other.kind} producing ${tvName(o)}` : other.kind;
    refuse(`attention prologues and epilogues are not fused into the attention kernel yet: the segment also computes ${what}, which runs in a generated kernel of its own`);
  }
  return op;
}

/** A scalar flag of the op: a constant of the definition (it picks the kernel variant). */
function constantOf(s: Scalar, op: AttentionOp, what: string): number | boolean {
  const v = s.value;
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return Number(v);
  return refuse(`${opName(op)}'s ${what} must be a constant of the definition for the attention kernels (it selects the generated kernel), got a runtime scalar`);
}

function rngValue(fusion: Fusion, info: RuntimeInfo, s: Scalar, what: string): AttentionRngValue {
  const v = s.value;
  if (typeof v === 'bigint') return { constant: v };
  if (typeof v === 'number' && Number.isInteger(v)) return { constant: BigInt(v) };
  const input = fusion.inputs.indexOf(s);
  const i = input < 0 ? undefined : info.inputs[input];
  if (i !== undefined && i.kind === 'scalar' && i.value !== undefined) return { input, value: BigInt(i.value) };
  return refuse(`sdpfa_fwd's philox ${what} must be a constant or an integral scalar input with a known value`);
}

function tensorInfo(fusion: Fusion, info: RuntimeInfo, tv: TensorView): { input: number; info: TensorInputInfo } {
  const input = fusion.inputs.indexOf(tv as Val);
  const i = input < 0 ? undefined : info.inputs[input];
  if (i === undefined || i.kind !== 'tensor') refuse(`${tvName(tv)} is not an input tensor of the segment with a runtime layout`);
  return { input, info: i };
}

const DIMS = ['N', 'H', 'L', 'E'] as const;

/** A Q / K / V / dO / O operand as the kernels read it (see the header). */
function rowOperand(fusion: Fusion, info: RuntimeInfo, tv: TensorView, name: string, dtype: string): AttentionOperand {
  const t = tensorInfo(fusion, info, tv);
  const { sizes, strides } = t.info;
  const label = `${name} ${tvName(tv)}`;
  if (sizes.length !== 4) refuse(`${label} has rank ${sizes.length}: the attention kernels take rank-4 [N, H, L, E] tensors (one batch dim)`);
  if (t.info.dtype !== dtype) refuse(`${label} is ${t.info.dtype}: the attention kernels take BFloat16 or Half with all of Q, K, V (and dO, O) of one dtype (${dtype} here)`);
  if ((sizes[3] ?? 0) > 1 && strides[3] !== 1) refuse(`${label} has stride ${strides[3]} in its last dim (E): the kernels need it contiguous (stride 1)`);
  for (let d = 0; d < 3; d += 1) {
    const stride = strides[d] ?? 0;
    if ((sizes[d] ?? 0) > 1 && stride % 8 !== 0) {
      refuse(`${label} has stride ${stride} in dim ${d} (${DIMS[d]}), not a multiple of 8 elements: the kernels copy 16-byte rows, so every row must start 16-byte aligned`);
    }
  }
  if (t.info.alignment < 16) refuse(`${label}'s data pointer is ${t.info.alignment}-byte aligned: the kernels need 16 bytes`);
  return { position: t.input, sizes: sizes as AttentionOperand['sizes'], strides: strides as AttentionOperand['strides'] };
}

/** The bias / mask, broadcast dims (size 1 or stride 0) read with stride 0. */
function biasOperand(fusion: Fusion, info: RuntimeInfo, tv: TensorView, name: string, want: readonly number[]): AttentionOperand {
  const t = tensorInfo(fusion, info, tv);
  const { sizes, strides } = t.info;
  if (sizes.length !== 4) refuse(`${name} ${tvName(tv)} has rank ${sizes.length}: the attention kernels take a rank-4 [N, H, L, S] ${name}`);
  const names = ['N', 'H', 'L', 'S'];
  const outSizes = [0, 0, 0, 0] as [number, number, number, number];
  const outStrides = [0, 0, 0, 0] as [number, number, number, number];
  for (let d = 0; d < 4; d += 1) {
    const size = sizes[d] ?? 0;
    const full = want[d] ?? 0;
    if (size !== full && !(d < 2 && size === 1)) {
      refuse(`${name} ${tvName(tv)} has size ${size} in dim ${d} (${names[d]}): the kernels take ${full}${d < 2 ? ' or 1 (broadcast)' : ''} there`);
    }
    outSizes[d] = size;
    outStrides[d] = size === 1 ? 0 : (strides[d] ?? 0);
  }
  return { position: t.input, sizes: outSizes, strides: outStrides };
}

function attentionDtype(tv: TensorView, op: AttentionOp): 'BFloat16' | 'Half' {
  if (tv.dtype === 'BFloat16' || tv.dtype === 'Half') return tv.dtype;
  return refuse(`${opName(op)} on ${tv.dtype} ${tvName(tv)}: the attention kernels are BFloat16 / Half (tensor-core MMA); the CPU reference backend computes other dtypes`);
}

function checkProblem(op: AttentionOp, q: AttentionOperand, k: AttentionOperand, v: AttentionOperand): void {
  const [n, h, l, e] = q.sizes;
  const [nk, hkv, s, ek] = k.sizes;
  if (e < MIN_E || e > MAX_E) refuse(`head dim E ${e} is outside the attention kernels' range ${MIN_E}…${MAX_E}`);
  if (ek !== e || v.sizes[3] !== e) refuse(`the attention kernels need one head dim for query, key and value, got E ${e}, ${ek}, Ev ${v.sizes[3]}`);
  if (nk !== n || v.sizes[0] !== n || v.sizes[1] !== hkv || v.sizes[2] !== s) refuse(`key [${k.sizes.join(', ')}] and value [${v.sizes.join(', ')}] do not match query [${q.sizes.join(', ')}]`);
  if (hkv === 0 || h % hkv !== 0) refuse(`query heads ${h} are not a multiple of key/value heads ${hkv}`);
  if (n === 0 || h === 0 || l === 0 || s === 0) refuse(`${opName(op)} of an empty problem (N ${n}, H ${h}, L ${l}, S ${s}): the kernels launch no empty grid`);
  if (n > GRID_LIMIT || h > GRID_LIMIT) refuse(`N ${n} or H ${h} exceeds the kernels' grid limit ${GRID_LIMIT}`);
}

function outputPosition(fusion: Fusion, tv: TensorView): number | null {
  const i = fusion.outputs.indexOf(tv as Val);
  return i < 0 ? null : i;
}

/**
 * The scale: a constant, or a scalar input of the segment read at each call (a kernel parameter,
 * so any value runs the same kernels). A scale computed inside the segment from other scalars has
 * no buffer or argument the call could read it from.
 */
function scaleOf(fusion: Fusion, op: AttentionOp, s: Scalar | null, e: number): AttentionScale {
  if (s === null) return { constant: 1 / Math.sqrt(e) };
  const v = s.value;
  if (typeof v === 'number') return { constant: v };
  if (typeof v === 'bigint') return { constant: Number(v) };
  if (typeof v === 'boolean') return refuse(`${opName(op)}'s scale is a Bool constant, not a number`);
  const input = fusion.inputs.indexOf(s);
  if (input >= 0) return { input };
  return refuse(`${opName(op)}'s scale is computed from other scalars (${s.symbolicName()}): the attention kernels read a constant or a scalar input of the definition as their scale parameter`);
}

function variantOf(dtype: 'BFloat16' | 'Half', e: number, causal: boolean, dropoutP: number, bias: AttentionKernelVariant['bias'], biasDtype: 'BFloat16' | 'Half' | 'Float' | null): AttentionKernelVariant {
  return { dtype, headDim: e, causal, bias, ...(biasDtype === null ? {} : { biasDtype }), dropout: dropoutP > 0 };
}

function dropoutOf(op: AttentionOp, s: Scalar): number {
  const p = Number(constantOf(s, op, 'dropout_p'));
  if (!(p >= 0 && p < 1)) refuse(`${opName(op)}'s dropout_p ${p} is outside [0, 1)`);
  return p;
}

function forward(fusion: Fusion, info: RuntimeInfo, op: SdpaFwdOp): AttentionParams {
  const ins = op.sdpaInputs();
  const dtype = attentionDtype(ins.query, op);
  const q = rowOperand(fusion, info, ins.query, 'query', dtype);
  const k = rowOperand(fusion, info, ins.key, 'key', dtype);
  const v = rowOperand(fusion, info, ins.value, 'value', dtype);
  checkProblem(op, q, k, v);
  const [n, h, l, e] = q.sizes;
  const [, hkv, s] = k.sizes;
  if (ins.bias !== null && ins.mask !== null) refuse('sdpfa_fwd with both bias and mask: the attention kernels take one of them');
  const biasTv = ins.bias ?? ins.mask;
  const bias = biasTv === null ? null : biasOperand(fusion, info, biasTv, ins.bias !== null ? 'bias' : 'mask', [n, h, l, s]);
  let biasDtype: 'BFloat16' | 'Half' | 'Float' | null = null;
  if (ins.bias !== null) {
    const bd = ins.bias.dtype;
    if (bd !== 'BFloat16' && bd !== 'Half' && bd !== 'Float') refuse(`bias ${tvName(ins.bias)} is ${bd}: the kernels add BFloat16, Half or Float biases`);
    biasDtype = bd;
  }
  const causal = Boolean(constantOf(ins.isCausal, op, 'is_causal'));
  const dropoutP = dropoutOf(op, ins.dropoutP);
  const outs = op.sdpaOutputs();
  return {
    schedulerType: 'attention',
    tag: 'attention forward',
    op: 'sdpfa_fwd',
    variant: variantOf(dtype, e, causal, dropoutP, ins.bias !== null ? 'additive' : ins.mask !== null ? 'bool' : 'none', biasDtype),
    batch: n,
    heads: h,
    kvHeads: hkv,
    queryLength: l,
    keyLength: s,
    headDim: e,
    scale: scaleOf(fusion, op, ins.scale, e),
    dropoutP,
    tensors: {
      query: q,
      key: k,
      value: v,
      bias,
      output: outputPosition(fusion, outs.output),
      logsumexp: outputPosition(fusion, outs.logsumexp),
      philoxSeed: outputPosition(fusion, outs.philoxSeed),
      philoxOffset: outputPosition(fusion, outs.philoxOffset),
    },
    seed: rngValue(fusion, info, op.rngSeed(), 'seed'),
    offset: rngValue(fusion, info, op.rngOffset(), 'offset'),
  };
}

function backward(fusion: Fusion, info: RuntimeInfo, op: SdpaBwdOp): AttentionParams {
  const ins = op.sdpaInputs();
  const dtype = attentionDtype(ins.query, op);
  const q = rowOperand(fusion, info, ins.query, 'query', dtype);
  const k = rowOperand(fusion, info, ins.key, 'key', dtype);
  const v = rowOperand(fusion, info, ins.value, 'value', dtype);
  checkProblem(op, q, k, v);
  const gradOutput = rowOperand(fusion, info, ins.gradOutput, 'grad_output', dtype);
  const output = rowOperand(fusion, info, ins.output, 'output', dtype);
  for (const [name, t] of [['grad_output', gradOutput], ['output', output]] as const) {
    if (t.sizes.some((x, d) => x !== q.sizes[d])) refuse(`${name} [${t.sizes.join(', ')}] must have the query's sizes [${q.sizes.join(', ')}]`);
  }
  const [n, h, l, e] = q.sizes;
  const [, hkv, s] = k.sizes;
  const lse = tensorInfo(fusion, info, ins.logsumexp);
  const lseDense = lse.info.sizes.length === 3 && lse.info.sizes.every((x, d) => x === [n, h, l][d]) && (l <= 1 || lse.info.strides[2] === 1) && (h <= 1 || lse.info.strides[1] === l) && (n <= 1 || lse.info.strides[0] === h * l);
  if (lse.info.dtype !== 'Float' || !lseDense) {
    refuse(`logsumexp ${tvName(ins.logsumexp)} must be a dense Float [${n}, ${h}, ${l}] (the kernels index it by row), got ${lse.info.dtype} sizes [${lse.info.sizes.join(', ')}] strides [${lse.info.strides.join(', ')}]`);
  }
  const seed = tensorInfo(fusion, info, ins.philoxSeed);
  const causal = Boolean(constantOf(ins.isCausal, op, 'is_causal'));
  const dropoutP = dropoutOf(op, ins.dropoutP);
  const outs = op.sdpaOutputs();
  return {
    schedulerType: 'attention',
    tag: 'attention backward',
    op: 'sdpfa_bwd',
    variant: variantOf(dtype, e, causal, dropoutP, 'none', null),
    batch: n,
    heads: h,
    kvHeads: hkv,
    queryLength: l,
    keyLength: s,
    headDim: e,
    scale: scaleOf(fusion, op, ins.scale, e),
    dropoutP,
    tensors: {
      gradOutput,
      query: q,
      key: k,
      value: v,
      output,
      logsumexp: lse.input,
      philoxSeed: seed.input,
      gradQuery: outputPosition(fusion, outs.gradQuery),
      gradKey: outputPosition(fusion, outs.gradKey),
      gradValue: outputPosition(fusion, outs.gradValue),
    },
  };
}

/** The attention segment's analysis for `fusion` under `info` (the call it describes), or why it is not one. */
export function analyzeAttentionSegment(fusion: Fusion, info: RuntimeInfo): AttentionSegmentAnalysis {
  try {
    const op = theOp(fusion);
    return { ok: true, params: op.kind === 'SdpaFwdOp' ? forward(fusion, info, op) : backward(fusion, info, op) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message };
    throw error;
  }
}

/** Whether `fusion` is one attention segment under `info` (the verdict of analyzeAttentionSegment). */
export function canScheduleAttention(fusion: Fusion, info: RuntimeInfo): CanScheduleResult {
  const r = analyzeAttentionSegment(fusion, info);
  return r.ok ? { ok: true } : { ok: false, reason: r.reason };
}
