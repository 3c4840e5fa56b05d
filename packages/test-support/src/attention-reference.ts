// A float64 reference of scaled dot-product attention, forward and backward, for the GPU
// attention entry (gpu-suites codegen-attention; checked against PyTorch's values in codegen's
// test/attention-reference.test.ts): causal
// (top-left aligned), grouped-query heads, additive bias or boolean mask broadcast by stride,
// and dropout with tsfuser's Philox stream (element (n, h, l, s) of P has linear index
// i = ((n·H + h)·L + l)·S + s; u = uniformFloat(philox(seed, i / 4, offset)[i % 4]); kept iff
// u < float32(1 − p), kept values × float32(1 / (1 − p))).
//
// Invariant: a query row that attends nothing gets output 0, logsumexp −inf and no gradient
// (PyTorch's result); inputs are the values the GPU sees (already rounded to bf16 / fp16).

import { philox4x32, uniformFloat } from '@tsfuser/fusion-ir';

/** A dense [d0, d1, d2, d3] float64 tensor, row-major. */
export interface AttentionDense4 {
  sizes: readonly [number, number, number, number];
  data: Float64Array;
}

export interface AttentionReferenceProblem {
  q: AttentionDense4; // [N, H, L, E]
  k: AttentionDense4; // [N, Hkv, S, E]
  v: AttentionDense4;
  /** [N, H, L, S] logical (broadcast already expanded through `biasAt`). */
  biasAt?: (n: number, h: number, l: number, s: number) => number;
  /** true = attend. */
  maskAt?: (n: number, h: number, l: number, s: number) => boolean;
  causal: boolean;
  scale: number;
  dropout?: { p: number; seed: bigint; offset: bigint };
}

export interface AttentionReferenceForward {
  out: Float64Array; // [N, H, L, E]
  lse: Float64Array; // [N, H, L]
}

export interface AttentionReferenceBackward {
  dq: Float64Array;
  dk: Float64Array;
  dv: Float64Array;
}

function words64(value: bigint): [number, number] {
  const v = BigInt.asUintN(64, value);
  return [Number(v & 0xffffffffn), Number(v >> 32n)];
}

/** Keep mask of dropout over [L, S] of one (n, h): 1 kept, 0 dropped. */
export function attentionDropoutKeep(p: number, seed: bigint, offset: bigint, n: number, h: number, heads: number, l: number, s: number): Uint8Array {
  const keepProb = Math.fround(1 - p);
  const key = words64(seed);
  const [o0, o1] = words64(offset);
  const out = new Uint8Array(l * s);
  const base = (n * heads + h) * l * s;
  let cachedSub = -1;
  let words: [number, number, number, number] = [0, 0, 0, 0];
  for (let j = 0; j < l * s; j += 1) {
    const i = base + j;
    const sub = Math.floor(i / 4);
    if (sub !== cachedSub) {
      words = philox4x32([o0, o1, sub % 2 ** 32, Math.floor(sub / 2 ** 32)], key);
      cachedSub = sub;
    }
    out[j] = uniformFloat(words[i % 4] ?? 0) < keepProb ? 1 : 0;
  }
  return out;
}

interface HeadProbabilities {
  /** softmax probabilities [L, S] (0 where not attended / fully masked row). */
  p: Float64Array;
  /** dropout factor per element: keepScale or 0 (all 1 without dropout). */
  z: Float64Array | undefined;
  lse: Float64Array;
}

function headProbabilities(pr: AttentionReferenceProblem, n: number, h: number): HeadProbabilities {
  const [, heads, l, e] = pr.q.sizes;
  const [, kvHeads, s] = pr.k.sizes;
  const hk = Math.floor(h / (heads / kvHeads));
  const qOff = (n * heads + h) * l * e;
  const kOff = (n * kvHeads + hk) * s * e;
  const p = new Float64Array(l * s);
  const lse = new Float64Array(l);
  const row = new Float64Array(s);
  for (let i = 0; i < l; i += 1) {
    let max = -Infinity;
    for (let j = 0; j < s; j += 1) {
      let x = -Infinity;
      const attended = (!pr.causal || j <= i) && (pr.maskAt === undefined || pr.maskAt(n, h, i, j));
      if (attended) {
        let dot = 0;
        const qa = qOff + i * e;
        const ka = kOff + j * e;
        for (let c = 0; c < e; c += 1) dot += (pr.q.data[qa + c] ?? 0) * (pr.k.data[ka + c] ?? 0);
        x = dot * pr.scale + (pr.biasAt === undefined ? 0 : pr.biasAt(n, h, i, j));
      }
      row[j] = x;
      if (x > max) max = x;
    }
    if (max === -Infinity) {
      lse[i] = -Infinity;
      continue;
    }
    let sum = 0;
    for (let j = 0; j < s; j += 1) sum += Math.exp((row[j] ?? 0) - max);
    lse[i] = max + Math.log(sum);
    for (let j = 0; j < s; j += 1) p[i * s + j] = Math.exp((row[j] ?? 0) - max) / sum;
  }
  let z: Float64Array | undefined;
  if (pr.dropout !== undefined && pr.dropout.p > 0) {
    const keep = attentionDropoutKeep(pr.dropout.p, pr.dropout.seed, pr.dropout.offset, n, h, heads, l, s);
    const keepScale = Math.fround(1 / (1 - pr.dropout.p));
    z = new Float64Array(l * s);
    for (let j = 0; j < l * s; j += 1) z[j] = keep[j] === 1 ? keepScale : 0;
  }
  return { p, z, lse };
}

/** Forward, and (when `gradOut` is given) backward of the problem. */
export function attentionReference(pr: AttentionReferenceProblem, gradOut?: AttentionDense4): { forward: AttentionReferenceForward; backward?: AttentionReferenceBackward } {
  const [batch, heads, l, e] = pr.q.sizes;
  const [, kvHeads, s] = pr.k.sizes;
  const out = new Float64Array(batch * heads * l * e);
  const lseAll = new Float64Array(batch * heads * l);
  const dq = new Float64Array(out.length);
  const dk = new Float64Array(pr.k.data.length);
  const dv = new Float64Array(pr.v.data.length);
  for (let n = 0; n < batch; n += 1) {
    for (let h = 0; h < heads; h += 1) {
      const hk = Math.floor(h / (heads / kvHeads));
      const { p, z, lse } = headProbabilities(pr, n, h);
      lseAll.set(lse, (n * heads + h) * l);
      const qOff = (n * heads + h) * l * e;
      const kOff = (n * kvHeads + hk) * s * e;
      // O = (P ∘ Z) V
      for (let i = 0; i < l; i += 1) {
        const o = qOff + i * e;
        for (let j = 0; j < s; j += 1) {
          const w = (p[i * s + j] ?? 0) * (z === undefined ? 1 : (z[i * s + j] ?? 0));
          if (w === 0) continue;
          const va = kOff + j * e;
          for (let c = 0; c < e; c += 1) out[o + c] = (out[o + c] ?? 0) + w * (pr.v.data[va + c] ?? 0);
        }
      }
      if (gradOut === undefined) continue;
      const g = gradOut.data;
      for (let i = 0; i < l; i += 1) {
        const o = qOff + i * e;
        // D = rowsum(dO ∘ O)
        let d = 0;
        for (let c = 0; c < e; c += 1) d += (g[o + c] ?? 0) * (out[o + c] ?? 0);
        for (let j = 0; j < s; j += 1) {
          const pij = p[i * s + j] ?? 0;
          if (pij === 0) continue;
          const zij = z === undefined ? 1 : (z[i * s + j] ?? 0);
          const ka = kOff + j * e;
          let dpd = 0; // (dO Vᵀ)[i, j]
          for (let c = 0; c < e; c += 1) dpd += (g[o + c] ?? 0) * (pr.v.data[ka + c] ?? 0);
          const ds = pij * (dpd * zij - d);
          const wv = pij * zij;
          for (let c = 0; c < e; c += 1) {
            dv[ka + c] = (dv[ka + c] ?? 0) + wv * (g[o + c] ?? 0);
            dq[o + c] = (dq[o + c] ?? 0) + pr.scale * ds * (pr.k.data[ka + c] ?? 0);
            dk[ka + c] = (dk[ka + c] ?? 0) + pr.scale * ds * (pr.q.data[o + c] ?? 0);
          }
        }
      }
    }
  }
  return { forward: { out, lse: lseAll }, ...(gradOut === undefined ? {} : { backward: { dq, dk, dv } }) };
}
