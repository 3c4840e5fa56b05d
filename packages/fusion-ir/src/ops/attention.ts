// sdpfa_fwd / sdpfa_bwd: scaled dot-product flash attention as nvFuser builds it
// (csrc/ops/composite.cpp sdpfa_fwd / sdpfa_bwd, python_direct/ops.cpp signatures), one SdpaFwdOp
// / SdpaBwdOp each. Shapes: query [N…, H, L, E], key [N…, Hkv, S, E], value [N…, Hkv, S, Ev]
// (N… one or more batch dims; H a multiple of Hkv is grouped-query attention, as PyTorch's
// enable_gqa), output [N…, H, L, Ev] in the query dtype, logsumexp Float [N…, H, L],
// philox_seed UInt64 [2] (= [seed, offset]) and philox_offset UInt64 0-dim, as nvFuser with
// PyTorch ≥ 2.7. Defaults: dropout_p 0.0, is_causal false, scale 1/√E (when not given). bias
// (query dtype) and mask (Bool, true = attend) have the query's rank and broadcast to
// [N…, H, L, S]. What the values are, dropout included: eval/attention.ts.
//
// Invariant: a definition that builds is one the evaluator can compute (constant shapes are
// checked here; symbolic ones at eval with the same words).

import { isFloatingType, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { SdpaBwdOp, SdpaFwdOp } from '../ir/attention-exprs.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { describe, requireTensor } from './operand.js';
import { seedScalar, type RngOptions } from './random.js';
import { cast } from './unary.js';

export interface SdpfaFwdOptions {
  /** tsfuser's addition: the dropout's Philox seed and offset (both or neither; default seed 0, offset the random-op ordinal). */
  rng?: RngOptions;
  bias?: TensorView | null;
  mask?: TensorView | null;
  dropoutP?: Scalar | number | null;
  isCausal?: Scalar | boolean | null;
  scale?: Scalar | number | null;
}

export interface SdpfaFwdResult {
  output: TensorView;
  logsumexp: TensorView;
  philoxSeed: TensorView;
  philoxOffset: TensorView;
}

export interface SdpfaBwdResult {
  gradQuery: TensorView;
  gradKey: TensorView;
  gradValue: TensorView;
}

const ATTENTION_DTYPES: ReadonlySet<DataType> = new Set<DataType>(['Half', 'BFloat16', 'Float', 'Double']);

function ids(tv: TensorView): IterDomain[] {
  return tv.domain.logicalNoReductions();
}

function constExtent(id: IterDomain | undefined): number | null {
  return id === undefined ? null : id.logicalExtent().constNumber();
}

function realScalar(fusion: Fusion, op: string, name: string, v: Scalar | number | null | undefined): Scalar | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return fusion.constant(v, 'Double');
  if (v.fusion !== fusion) throw new FusionIrError(`${op}: ${name} belongs to another fusion`);
  if (v.dtype === 'Bool' || !(isFloatingType(v.dtype) || ['Int', 'Int32', 'Index'].includes(v.dtype))) {
    throw new FusionIrError(`${op}: Expected ${name} to be a real-valued scalar, got ${v.dtype}`);
  }
  if (v.dtype === 'Double') return v;
  // An integral constant (a JS 0 for `dropout_p=0.0`: JS has one number type) stays a constant:
  // the attention scheduler picks its kernel from the constant, which a cast would hide.
  const c = v.constNumber();
  if (v.isConst() && c !== null) return fusion.constant(c, 'Double');
  return cast(v, 'Double');
}

function boolScalar(fusion: Fusion, op: string, v: Scalar | boolean | null | undefined): Scalar {
  if (v === null || v === undefined) return fusion.constant(false, 'Bool');
  if (typeof v === 'boolean') return fusion.constant(v, 'Bool');
  if (v.fusion !== fusion) throw new FusionIrError(`${op}: is_causal belongs to another fusion`);
  if (v.dtype !== 'Bool') throw new FusionIrError(`${op}: Expected is_causal to be a scalar boolean, got ${v.dtype}`);
  return v;
}

/** Checks that sizes `a` and `b` (constants where known) agree, naming the dim. */
function checkSame(op: string, what: string, a: IterDomain | undefined, b: IterDomain | undefined, ta: TensorView, tb: TensorView): void {
  const x = constExtent(a);
  const y = constExtent(b);
  if (x !== null && y !== null && x !== y) throw new FusionIrError(`${op}: ${what} of ${describe(ta)} (${x}) and ${describe(tb)} (${y}) must match`);
}

/** Checks that `t` (bias or mask) broadcasts to [N…, H, L, S]. */
function checkBroadcastable(op: string, name: string, t: TensorView, target: readonly (IterDomain | undefined)[]): void {
  ids(t).forEach((id, d) => {
    const c = constExtent(id);
    const want = constExtent(target[d]);
    if (c !== null && c !== 1 && want !== null && c !== want) {
      throw new FusionIrError(`${op}: ${name} ${describe(t)} does not broadcast to the attention scores: dim ${d} is ${c}, expected 1 or ${want}`);
    }
  });
}

/** Shape and dtype checks shared by the forward and the backward. */
function checkQkv(op: string, query: TensorView, key: TensorView, value: TensorView): void {
  for (const [t, n] of [[query, 'query'], [key, 'key'], [value, 'value']] as const) requireTensor(op, t, n);
  if (query.fusion !== key.fusion || query.fusion !== value.fusion) throw new FusionIrError(`${op}: operands belong to different fusions`);
  if (query.dtype !== key.dtype || query.dtype !== value.dtype) {
    throw new FusionIrError(`${op}: query, key and value must have one dtype, got ${describe(query)}, ${describe(key)} and ${describe(value)}`);
  }
  if (!ATTENTION_DTYPES.has(query.dtype)) throw new FusionIrError(`${op}: ${describe(query)} must be Half, BFloat16, Float or Double`);
  const r = query.rank();
  if (key.rank() !== r || value.rank() !== r) throw new FusionIrError(`${op}: query, key and value must have one rank, got ${describe(query)}, ${describe(key)} and ${describe(value)}`);
  if (r < 4) throw new FusionIrError(`${op}: query ${describe(query)} must be at least 4-D [N, H, L, E]`);
  const q = ids(query);
  const k = ids(key);
  const v = ids(value);
  for (let d = 0; d < r - 3; d += 1) {
    checkSame(op, `batch dim ${d}`, q[d], k[d], query, key);
    checkSame(op, `batch dim ${d}`, q[d], v[d], query, value);
  }
  checkSame(op, 'the head dim E', q[r - 1], k[r - 1], query, key);
  checkSame(op, 'the number of heads', k[r - 3], v[r - 3], key, value);
  checkSame(op, 'the sequence length S', k[r - 2], v[r - 2], key, value);
  const h = constExtent(q[r - 3]);
  const hkv = constExtent(k[r - 3]);
  if (h !== null && hkv !== null && (hkv === 0 || h % hkv !== 0)) {
    throw new FusionIrError(`${op}: the number of query heads (${h}) must be a multiple of the number of key/value heads (${hkv}) (grouped-query attention)`);
  }
}

/** The dropout's seed and offset: given (both), or as unseeded RNG ops: seed 0, offset = how many random exprs the fusion built before. */
function rngScalars(fusion: Fusion, rng: RngOptions): { seed: Scalar; offset: Scalar } {
  const seed = rng.rngSeed ?? null;
  const offset = rng.rngOffset ?? null;
  if ((seed === null) !== (offset === null)) throw new FusionIrError('sdpfa_fwd: rng_seed and rng_offset must be provided together');
  if (seed !== null && offset !== null) return { seed: seedScalar(fusion, 'sdpfa_fwd', 'rng_seed', seed), offset: seedScalar(fusion, 'sdpfa_fwd', 'rng_offset', offset) };
  const ordinal = fusion.allExprs().filter((e) => e.kind === 'RNGOp' || e.kind === 'SdpaFwdOp').length;
  return { seed: fusion.constant(0n, 'Int'), offset: fusion.constant(BigInt(ordinal), 'Int') };
}

function newIds(fusion: Fusion, from: readonly IterDomain[]): IterDomain[] {
  return from.map((id) => fusion.newIterDomain(id.extent, id.isBroadcast() ? 'Broadcast' : 'Iteration'));
}

/**
 * sdpfa_fwd(query, key, value, { bias, mask, dropoutP, isCausal, scale }) → (output,
 * logsumexp, philox_seed, philox_offset).
 */
export function sdpfaFwd(query: TensorView, key: TensorView, value: TensorView, options: SdpfaFwdOptions = {}): SdpfaFwdResult {
  const op = 'sdpfa_fwd';
  checkQkv(op, query, key, value);
  const fusion = query.fusion;
  const r = query.rank();
  const q = ids(query);
  const k = ids(key);
  const v = ids(value);
  const scoreDims = [...q.slice(0, r - 1), k[r - 2]];
  const bias = options.bias ?? null;
  const mask = options.mask ?? null;
  if (bias !== null) {
    requireTensor(op, bias, 'bias');
    if (bias.rank() !== r) throw new FusionIrError(`${op}: bias ${describe(bias)} must have the query's rank ${r}`);
    if (bias.dtype !== query.dtype) throw new FusionIrError(`${op}: bias ${describe(bias)} must have the query's dtype ${query.dtype}`);
    checkBroadcastable(op, 'bias', bias, scoreDims);
  }
  if (mask !== null) {
    requireTensor(op, mask, 'mask');
    if (mask.rank() !== r) throw new FusionIrError(`${op}: mask ${describe(mask)} must have the query's rank ${r}`);
    if (mask.dtype !== 'Bool') throw new FusionIrError(`${op}: mask ${describe(mask)} must be Bool (true where attention is allowed)`);
    checkBroadcastable(op, 'mask', mask, scoreDims);
  }
  const dropoutP = realScalar(fusion, op, 'dropout', options.dropoutP) ?? fusion.constant(0, 'Double');
  const pc = dropoutP.constNumber();
  if (pc !== null && !(pc >= 0 && pc <= 1)) throw new FusionIrError(`${op}: dropout probability has to be between 0 and 1, but got ${pc}`);
  const isCausal = boolScalar(fusion, op, options.isCausal);
  const scale = realScalar(fusion, op, 'scale', options.scale);
  const output = fusion.newTensorFromDomain([...newIds(fusion, q.slice(0, r - 1)), ...newIds(fusion, [v[r - 1] as IterDomain])], query.dtype);
  const logsumexp = fusion.newTensorFromDomain(newIds(fusion, q.slice(0, r - 1)), 'Float');
  const philoxSeed = fusion.newTensorFromDomain([fusion.newIterDomain(fusion.index(2), 'Iteration')], 'UInt64');
  const philoxOffset = fusion.newTensorFromDomain([], 'UInt64');
  const { seed, offset } = rngScalars(fusion, options.rng ?? {});
  new SdpaFwdOp(fusion, { output, logsumexp, philoxSeed, philoxOffset }, { query, key, value, bias, mask, dropoutP, isCausal, scale }, seed, offset);
  return { output, logsumexp, philoxSeed, philoxOffset };
}

/**
 * sdpfa_bwd(grad_output, query, key, value, output, logsumexp, dropout_p, is_causal,
 * philox_seed, philox_offset, scale) → (grad_query, grad_key, grad_value), shaped and typed as
 * query, key and value.
 */
export function sdpfaBwd(
  gradOutput: TensorView,
  query: TensorView,
  key: TensorView,
  value: TensorView,
  output: TensorView,
  logsumexp: TensorView,
  dropoutP: Scalar | number | null,
  isCausal: Scalar | boolean | null,
  philoxSeed: TensorView,
  philoxOffset: TensorView,
  scale: Scalar | number | null = null,
): SdpfaBwdResult {
  const op = 'sdpfa_bwd';
  checkQkv(op, query, key, value);
  for (const [t, n] of [[gradOutput, 'grad_output'], [output, 'output'], [logsumexp, 'logsumexp'], [philoxSeed, 'philox_seed'], [philoxOffset, 'philox_offset']] as const) {
    requireTensor(op, t, n);
  }
  const fusion = query.fusion;
  const r = query.rank();
  if (gradOutput.dtype !== query.dtype || output.dtype !== query.dtype) {
    throw new FusionIrError(`${op}: grad_output ${describe(gradOutput)} and output ${describe(output)} must have the query's dtype ${query.dtype}`);
  }
  if (gradOutput.rank() !== r || output.rank() !== r) throw new FusionIrError(`${op}: grad_output and output must have the query's rank ${r}`);
  if (logsumexp.rank() !== r - 1) {
    throw new FusionIrError(`${op}: Expected logsumexp to have one less dimension than Q/K/V: ${logsumexp.rank()} vs ${r}`);
  }
  if (logsumexp.dtype !== 'Float') throw new FusionIrError(`${op}: logsumexp ${describe(logsumexp)} must be Float`);
  const q = ids(query);
  const v = ids(value);
  const o = ids(output);
  ids(gradOutput).forEach((id, d) => checkSame(op, `dim ${d}`, id, o[d], gradOutput, output));
  checkSame(op, 'the value head dim Ev', o[r - 1], v[r - 1], output, value);
  checkSame(op, 'the query length L', o[r - 2], q[r - 2], output, query);
  if (philoxSeed.dtype !== 'UInt64' || philoxOffset.dtype !== 'UInt64') {
    throw new FusionIrError(`${op}: philox_seed and philox_offset must be the UInt64 tensors sdpfa_fwd returns, got ${describe(philoxSeed)} and ${describe(philoxOffset)}`);
  }
  const p = realScalar(fusion, op, 'dropout', dropoutP) ?? fusion.constant(0, 'Double');
  const causal = boolScalar(fusion, op, isCausal);
  const s = realScalar(fusion, op, 'scale', scale);
  const gradQuery = fusion.newTensorFromDomain(newIds(fusion, q), query.dtype);
  const gradKey = fusion.newTensorFromDomain(newIds(fusion, ids(key)), key.dtype);
  const gradValue = fusion.newTensorFromDomain(newIds(fusion, v), value.dtype);
  new SdpaBwdOp(
    fusion,
    { gradQuery, gradKey, gradValue },
    { gradOutput, query, key, value, output, logsumexp, dropoutP: p, isCausal: causal, philoxSeed, philoxOffset, scale: s },
  );
  return { gradQuery, gradKey, gradValue };
}
