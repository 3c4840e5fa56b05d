// The reference values of sdpfa_fwd / sdpfa_bwd, in float64, rounded to the output dtypes once.
//
// Scores: S[n, h, l, s] = scale · Σ_e Q[n, h, l, e] K[n, h / g, s, e] + bias[…] (broadcast),
// −∞ where mask[…] is false or (is_causal) s > l — PyTorch's top-left aligned causal mask, also
// when L ≠ S; g = H / Hkv (grouped-query attention: query head h reads key/value head
// floor(h / g), as PyTorch's enable_gqa). scale defaults to 1/√E. P = softmax over s, logsumexp
// = log Σ_s exp(S). A row whose scores are all −∞ gives output 0 and logsumexp −∞ (PyTorch's
// flash kernels; its math path's _safe_softmax gives the same 0 output).
//
// Dropout (the definition the GPU kernel reproduces bit for bit): with N the product of the batch
// dims, element (n, h, l, s) of P has linear index i = ((n·H + h)·L + l)·S + s over
// [N, H, L, S]; u = uniformFloat(philox(seed, floor(i / 4), offset)[i % 4]) (eval/philox.ts);
// it is kept iff u < float32(1 − p), and kept values are multiplied by float32(1 / (1 − p)).
// (seed, offset) are the op's rngSeed() / rngOffset() scalars, written to philox_seed = [seed, offset];
// the backward reads them back from that tensor. logsumexp is of the scores before dropout.
//
// Backward, from the saved logsumexp: P = exp(S − lse), Z the dropout factor above (0 or
// 1/(1 − p)), dV = (P∘Z)ᵀ dO, dP = (dO Vᵀ)∘Z, D = rowsum(dO∘O) with O the saved output (as
// PyTorch's flash backward; = rowsum(P∘dP) for the forward's own O), dS = P∘(dP − D),
// dQ = scale · dS K, dK = scale · dSᵀ Q (dK, dV summed over the query heads of a group).
//
// Invariant: values depend only on the operands' logical values and (seed, offset).

import { EvaluationError } from '../ir/errors.js';
import type { SdpaBwdOp, SdpaFwdOp } from '../ir/attention-exprs.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { EvalContext } from './evaluator.js';
import { HostTensor } from './host-tensor.js';
import { denseOf, type DenseValues } from './matmul.js';
import { philox, uniformFloat } from './philox.js';
import { toFloat, toInt } from './values.js';

const prod = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** The attention problem's sizes, from the actual query / key / value sizes (checked). */
interface Problem {
  batch: readonly number[];
  n: number;
  h: number;
  hkv: number;
  l: number;
  s: number;
  e: number;
  ev: number;
}

function problemOf(where: string, q: DenseValues, k: DenseValues, v: DenseValues): Problem {
  const r = q.sizes.length;
  const at = (t: DenseValues, d: number): number => t.sizes[d] as number;
  const batch = q.sizes.slice(0, r - 3);
  const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
  if (!same(batch, k.sizes.slice(0, r - 3)) || !same(batch, v.sizes.slice(0, r - 3))) {
    throw new EvaluationError(`${where}: batch dims of query [${q.sizes.join(', ')}], key [${k.sizes.join(', ')}] and value [${v.sizes.join(', ')}] must match`);
  }
  const p: Problem = { batch, n: prod(batch), h: at(q, r - 3), hkv: at(k, r - 3), l: at(q, r - 2), s: at(k, r - 2), e: at(q, r - 1), ev: at(v, r - 1) };
  if (at(k, r - 1) !== p.e) throw new EvaluationError(`${where}: the head dim E of query (${p.e}) and key (${at(k, r - 1)}) must match`);
  if (at(v, r - 3) !== p.hkv || at(v, r - 2) !== p.s) {
    throw new EvaluationError(`${where}: key [${k.sizes.join(', ')}] and value [${v.sizes.join(', ')}] must have the same heads and sequence length`);
  }
  if (p.hkv === 0 ? p.h !== 0 : p.h % p.hkv !== 0) {
    throw new EvaluationError(`${where}: the number of query heads (${p.h}) must be a multiple of the number of key/value heads (${p.hkv}) (grouped-query attention)`);
  }
  return p;
}

/** Reads a bias / mask tensor broadcast over the scores [N…, H, L, S]: offset of (n, h, l, s). */
function broadcastReader(where: string, name: string, t: DenseValues, p: Problem): (n: number, h: number, l: number, s: number) => number {
  const target = [...p.batch, p.h, p.l, p.s];
  if (t.sizes.length !== target.length) throw new EvaluationError(`${where}: ${name} [${t.sizes.join(', ')}] must have rank ${target.length}`);
  const strides = new Array<number>(target.length).fill(0);
  let acc = 1;
  for (let d = target.length - 1; d >= 0; d -= 1) {
    const size = t.sizes[d] as number;
    if (size !== 1 && size !== target[d]) {
      throw new EvaluationError(`${where}: ${name} [${t.sizes.join(', ')}] does not broadcast to the scores [${target.join(', ')}] at dim ${d}`);
    }
    strides[d] = size === 1 ? 0 : acc;
    acc *= size;
  }
  const nb = p.batch.length;
  const batchOffset = new Array<number>(p.n).fill(0);
  for (let n = 0; n < p.n; n += 1) {
    let rem = n;
    let off = 0;
    for (let d = nb - 1; d >= 0; d -= 1) {
      const size = p.batch[d] as number;
      off += (rem % size) * (strides[d] as number);
      rem = Math.floor(rem / size);
    }
    batchOffset[n] = off;
  }
  const [sh, sl, ss] = strides.slice(nb) as [number, number, number];
  return (n, h, l, s) => (batchOffset[n] as number) + h * sh + l * sl + s * ss;
}

/** The dropout factor of element i of [N, H, L, S]: 0 (dropped) or float32(1 / (1 − p)). */
export function dropoutFactors(seed: bigint, offset: bigint, p: number, count: number, first = 0): Float64Array {
  const out = new Float64Array(count);
  if (p === 0) return out.fill(1);
  if (p >= 1) return out;
  const keep = Math.fround(1 - p);
  const scale = Math.fround(1 / (1 - p));
  let words: [number, number, number, number] | null = null;
  let group = -1;
  for (let j = 0; j < count; j += 1) {
    const i = first + j;
    const g = Math.floor(i / 4);
    if (g !== group || words === null) {
      words = philox(seed, g, offset);
      group = g;
    }
    out[j] = uniformFloat(words[i % 4] as number) < keep ? scale : 0;
  }
  return out;
}

interface Scores {
  /** Scaled, biased, masked scores [N, H, L, S] (−∞ where masked). */
  values: Float64Array;
}

function scores(where: string, p: Problem, q: DenseValues, k: DenseValues, opts: { scale: number; causal: boolean; bias: DenseValues | null; mask: DenseValues | null }): Scores {
  const group = p.hkv === 0 ? 1 : p.h / p.hkv;
  const biasAt = opts.bias === null ? null : broadcastReader(where, 'bias', opts.bias, p);
  const maskAt = opts.mask === null ? null : broadcastReader(where, 'mask', opts.mask, p);
  const out = new Float64Array(p.n * p.h * p.l * p.s);
  for (let n = 0; n < p.n; n += 1) {
    for (let h = 0; h < p.h; h += 1) {
      const kvh = Math.floor(h / group);
      for (let l = 0; l < p.l; l += 1) {
        const qBase = ((n * p.h + h) * p.l + l) * p.e;
        const oBase = ((n * p.h + h) * p.l + l) * p.s;
        for (let s = 0; s < p.s; s += 1) {
          if ((opts.causal && s > l) || (maskAt !== null && (opts.mask as DenseValues).values[maskAt(n, h, l, s)] === 0)) {
            out[oBase + s] = -Infinity;
            continue;
          }
          const kBase = ((n * p.hkv + kvh) * p.s + s) * p.e;
          let acc = 0;
          for (let e = 0; e < p.e; e += 1) acc += (q.values[qBase + e] as number) * (k.values[kBase + e] as number);
          acc *= opts.scale;
          if (biasAt !== null) acc += (opts.bias as DenseValues).values[biasAt(n, h, l, s)] as number;
          out[oBase + s] = acc;
        }
      }
    }
  }
  return { values: out };
}

function scalarNumber(ctx: EvalContext, s: Scalar): number {
  return toFloat(ctx.scalar(s));
}

function checkDropout(where: string, p: number): void {
  if (!(p >= 0 && p <= 1)) throw new EvaluationError(`${where}: dropout probability has to be between 0 and 1, but got ${p}`);
}

export function evalSdpaFwd(ctx: EvalContext, expr: SdpaFwdOp): void {
  const i = expr.sdpaInputs();
  const o = expr.sdpaOutputs();
  const where = `sdpfa_fwd producing T${o.output.name}`;
  const q = denseOf(ctx, i.query);
  const k = denseOf(ctx, i.key);
  const v = denseOf(ctx, i.value);
  const p = problemOf(where, q, k, v);
  const scale = i.scale === null ? 1 / Math.sqrt(p.e) : scalarNumber(ctx, i.scale);
  const dropout = scalarNumber(ctx, i.dropoutP);
  checkDropout(where, dropout);
  const causal = ctx.scalar(i.isCausal) === true;
  const sc = scores(where, p, q, k, { scale, causal, bias: i.bias === null ? null : denseOf(ctx, i.bias), mask: i.mask === null ? null : denseOf(ctx, i.mask) });
  const seed = BigInt.asUintN(64, toInt(ctx.scalar(expr.rngSeed())));
  const offset = BigInt.asUintN(64, toInt(ctx.scalar(expr.rngOffset())));
  const z = dropoutFactors(seed, offset, dropout, sc.values.length);
  const group = p.hkv === 0 ? 1 : p.h / p.hkv;
  const out = new Float64Array(p.n * p.h * p.l * p.ev);
  const lse = new Float64Array(p.n * p.h * p.l);
  const row = new Float64Array(p.s);
  for (let n = 0; n < p.n; n += 1) {
    for (let h = 0; h < p.h; h += 1) {
      const kvh = Math.floor(h / group);
      for (let l = 0; l < p.l; l += 1) {
        const r = (n * p.h + h) * p.l + l;
        let m = -Infinity;
        for (let s = 0; s < p.s; s += 1) m = Math.max(m, sc.values[r * p.s + s] as number);
        if (m === -Infinity) {
          lse[r] = -Infinity; // fully masked row: output stays 0
          continue;
        }
        let sum = 0;
        for (let s = 0; s < p.s; s += 1) {
          row[s] = Math.exp((sc.values[r * p.s + s] as number) - m);
          sum += row[s] as number;
        }
        lse[r] = m + Math.log(sum);
        for (let s = 0; s < p.s; s += 1) {
          const w = ((row[s] as number) / sum) * (z[r * p.s + s] as number);
          if (w === 0) continue;
          const vBase = ((n * p.hkv + kvh) * p.s + s) * p.ev;
          for (let e = 0; e < p.ev; e += 1) out[r * p.ev + e] = (out[r * p.ev + e] as number) + w * (v.values[vBase + e] as number);
        }
      }
    }
  }
  ctx.bind(o.output, HostTensor.fromValues(o.output.dtype, [...p.batch, p.h, p.l, p.ev], out));
  ctx.bind(o.logsumexp, HostTensor.fromValues('Float', [...p.batch, p.h, p.l], lse));
  ctx.bind(o.philoxSeed, HostTensor.fromValues('UInt64', [2], [seed, offset]));
  ctx.bind(o.philoxOffset, HostTensor.fromValues('UInt64', [], [0n]));
}

function checkSizes(where: string, name: string, t: DenseValues, want: readonly number[]): void {
  if (t.sizes.length !== want.length || t.sizes.some((x, d) => x !== want[d])) {
    throw new EvaluationError(`${where}: ${name} has sizes [${t.sizes.join(', ')}], expected [${want.join(', ')}]`);
  }
}

export function evalSdpaBwd(ctx: EvalContext, expr: SdpaBwdOp): void {
  const i = expr.sdpaInputs();
  const o = expr.sdpaOutputs();
  const where = `sdpfa_bwd producing T${o.gradQuery.name}`;
  const q = denseOf(ctx, i.query);
  const k = denseOf(ctx, i.key);
  const v = denseOf(ctx, i.value);
  const p = problemOf(where, q, k, v);
  const dO = denseOf(ctx, i.gradOutput);
  checkSizes(where, 'grad_output', dO, [...p.batch, p.h, p.l, p.ev]);
  const lse = denseOf(ctx, i.logsumexp);
  checkSizes(where, 'logsumexp', lse, [...p.batch, p.h, p.l]);
  const out = denseOf(ctx, i.output);
  checkSizes(where, 'output', out, [...p.batch, p.h, p.l, p.ev]);
  const seedTensor = ctx.tensor(i.philoxSeed);
  if (seedTensor.numel !== 2) throw new EvaluationError(`${where}: philox_seed must hold [seed, offset] (2 elements), got ${seedTensor.numel}`);
  const seed = BigInt(seedTensor.get(0) as bigint);
  const offset = BigInt(seedTensor.get(1) as bigint);
  const scale = i.scale === null ? 1 / Math.sqrt(p.e) : scalarNumber(ctx, i.scale);
  const dropout = scalarNumber(ctx, i.dropoutP);
  checkDropout(where, dropout);
  const causal = ctx.scalar(i.isCausal) === true;
  const sc = scores(where, p, q, k, { scale, causal, bias: null, mask: null });
  const z = dropoutFactors(seed, offset, dropout, sc.values.length);
  const group = p.hkv === 0 ? 1 : p.h / p.hkv;
  const dq = new Float64Array(q.values.length);
  const dk = new Float64Array(k.values.length);
  const dv = new Float64Array(v.values.length);
  const prob = new Float64Array(p.s);
  const dp = new Float64Array(p.s);
  for (let n = 0; n < p.n; n += 1) {
    for (let h = 0; h < p.h; h += 1) {
      const kvh = Math.floor(h / group);
      for (let l = 0; l < p.l; l += 1) {
        const r = (n * p.h + h) * p.l + l;
        const rowLse = lse.values[r] as number;
        if (rowLse === -Infinity) continue; // fully masked: no gradient flows
        // D = rowsum(dO ∘ O) from the saved output, as PyTorch's flash backward (equal to
        // rowsum(P ∘ dP) when O is the forward's output)
        let d = 0;
        for (let e = 0; e < p.ev; e += 1) d += (dO.values[r * p.ev + e] as number) * (out.values[r * p.ev + e] as number);
        for (let s = 0; s < p.s; s += 1) {
          const x = sc.values[r * p.s + s] as number;
          prob[s] = x === -Infinity ? 0 : Math.exp(x - rowLse);
          const vBase = ((n * p.hkv + kvh) * p.s + s) * p.ev;
          let acc = 0;
          for (let e = 0; e < p.ev; e += 1) acc += (dO.values[r * p.ev + e] as number) * (v.values[vBase + e] as number);
          const zf = z[r * p.s + s] as number;
          dp[s] = acc * zf;
          const w = (prob[s] as number) * zf;
          if (w !== 0) for (let e = 0; e < p.ev; e += 1) dv[vBase + e] = (dv[vBase + e] as number) + w * (dO.values[r * p.ev + e] as number);
        }
        const qBase = r * p.e;
        for (let s = 0; s < p.s; s += 1) {
          const ds = (prob[s] as number) * ((dp[s] as number) - d) * scale;
          if (ds === 0) continue;
          const kBase = ((n * p.hkv + kvh) * p.s + s) * p.e;
          for (let e = 0; e < p.e; e += 1) {
            dq[qBase + e] = (dq[qBase + e] as number) + ds * (k.values[kBase + e] as number);
            dk[kBase + e] = (dk[kBase + e] as number) + ds * (q.values[qBase + e] as number);
          }
        }
      }
    }
  }
  const bindLike = (out: TensorView, like: DenseValues, values: Float64Array): void => ctx.bind(out, HostTensor.fromValues(out.dtype, like.sizes, values));
  bindLike(o.gradQuery, q, dq);
  bindLike(o.gradKey, k, dk);
  bindLike(o.gradValue, v, dv);
}
