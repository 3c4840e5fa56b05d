// The case list of the GPU attention entry: fixed cases for each feature (causal with L ≠ S,
// GQA, bias / mask broadcast, fully masked rows, dropout, the general head dims, strided and
// padded layouts, fp16) and seeded random ones over batch 1–4, heads 1–16, L and S in
// {1, 17, 128, 1000, 2048}, E in {8, 64, 80, 128, 256}, drawn from a small pool of kernel
// variants (each distinct variant costs an NVRTC compile on the device).
//
// Invariant: every case's float64 reference costs at most REFERENCE_BUDGET multiply-adds
// (sizes shrink N, then H, then the longer sequence until it fits), so the whole list checks
// in seconds of host time.

import { seededRandom } from '@tsfuser/test-support';
import type { AttentionCase } from './attention-case.js';

const REFERENCE_BUDGET = 1.2e8;

function referenceCost(c: AttentionCase): number {
  return c.batch * c.heads * c.queryLength * c.keyLength * c.headDim * (c.backward ? 4 : 2);
}

function fit(c: AttentionCase): AttentionCase {
  const f = { ...c };
  while (referenceCost(f) > REFERENCE_BUDGET && f.batch > 1) f.batch -= 1;
  while (referenceCost(f) > REFERENCE_BUDGET && f.heads > f.kvHeads) f.heads = Math.max(f.kvHeads, f.heads / 2);
  while (referenceCost(f) > REFERENCE_BUDGET && f.heads > 1) {
    f.heads = Math.max(1, f.heads / 2);
    f.kvHeads = Math.max(1, Math.min(f.kvHeads, f.heads));
    if (f.heads % f.kvHeads !== 0) f.kvHeads = 1;
  }
  while (referenceCost(f) > REFERENCE_BUDGET && Math.max(f.queryLength, f.keyLength) > 128) {
    if (f.queryLength >= f.keyLength) f.queryLength = f.queryLength === 2048 ? 1000 : f.queryLength === 1000 ? 128 : 17;
    else f.keyLength = f.keyLength === 2048 ? 1000 : f.keyLength === 1000 ? 128 : 17;
  }
  // Dropout's reference mask costs a Philox call per 4 elements: keep those cases smaller.
  while (f.dropoutP > 0 && f.batch * f.heads * f.queryLength * f.keyLength > 2.5e6 && f.heads > 1) {
    f.heads = Math.max(1, f.heads / 2);
    f.kvHeads = Math.min(f.kvHeads, f.heads);
  }
  return f;
}

const BASE: Omit<AttentionCase, 'id'> = {
  dtype: 'BFloat16',
  batch: 1,
  heads: 1,
  kvHeads: 1,
  queryLength: 128,
  keyLength: 128,
  headDim: 64,
  causal: false,
  bias: 'none',
  biasBroadcast: [false, false],
  dropoutP: 0,
  sequenceMajor: false,
  padRows: false,
  backward: true,
};

const FIXED: Partial<AttentionCase>[] = [
  { batch: 2, heads: 4, kvHeads: 4, queryLength: 128, keyLength: 128, headDim: 64 },
  { batch: 1, heads: 2, kvHeads: 2, queryLength: 1000, keyLength: 1000, headDim: 128, causal: true },
  { heads: 2, kvHeads: 2, queryLength: 17, keyLength: 1000, headDim: 80, causal: true },
  { heads: 2, kvHeads: 1, queryLength: 1000, keyLength: 17, headDim: 64, causal: true },
  { queryLength: 1, keyLength: 1, headDim: 8 },
  { queryLength: 1, keyLength: 2048, headDim: 128, causal: true },
  { heads: 8, kvHeads: 2, queryLength: 128, keyLength: 2048, headDim: 128 },
  { batch: 3, heads: 4, kvHeads: 4, queryLength: 1000, keyLength: 128, headDim: 64, bias: 'additive', biasBroadcast: [true, false] },
  { batch: 2, heads: 4, kvHeads: 2, queryLength: 128, keyLength: 1000, headDim: 64, bias: 'bool', biasBroadcast: [false, true] },
  { batch: 2, heads: 2, kvHeads: 2, queryLength: 128, keyLength: 1000, headDim: 64, dropoutP: 0.1 },
  { batch: 1, heads: 4, kvHeads: 2, queryLength: 1000, keyLength: 128, headDim: 128, causal: true, bias: 'bool', dropoutP: 0.2 },
  { queryLength: 2048, keyLength: 128, headDim: 256 },
  { heads: 2, kvHeads: 2, queryLength: 128, keyLength: 1000, headDim: 256, causal: true },
  { dtype: 'Half', batch: 2, heads: 4, kvHeads: 4, queryLength: 1000, keyLength: 128, headDim: 128, causal: true },
  { dtype: 'Half', heads: 4, kvHeads: 1, queryLength: 128, keyLength: 1000, headDim: 64, bias: 'additive' },
  { batch: 2, heads: 4, kvHeads: 4, queryLength: 1000, keyLength: 17, headDim: 128, sequenceMajor: true, padRows: true },
  { heads: 2, kvHeads: 2, queryLength: 128, keyLength: 1000, headDim: 20, padRows: true },
  { heads: 2, kvHeads: 2, queryLength: 1000, keyLength: 128, headDim: 100, causal: true, sequenceMajor: true },
  { queryLength: 2048, keyLength: 2048, headDim: 64, causal: true, backward: false },
  { queryLength: 2048, keyLength: 1000, headDim: 128, backward: true },
];

/** Variants the random cases draw from: [dtype, E, causal, bias, dropout]. */
const POOL: readonly (readonly [AttentionCase['dtype'], number, boolean, AttentionCase['bias'], number])[] = [
  ['BFloat16', 64, false, 'none', 0],
  ['BFloat16', 64, true, 'none', 0],
  ['BFloat16', 128, false, 'none', 0],
  ['BFloat16', 128, true, 'none', 0],
  ['BFloat16', 80, false, 'none', 0],
  ['BFloat16', 256, true, 'none', 0],
  ['BFloat16', 8, true, 'none', 0],
  ['BFloat16', 64, false, 'additive', 0],
  ['BFloat16', 128, true, 'bool', 0.2],
  ['Half', 128, false, 'none', 0],
];

const LENGTHS = [1, 17, 128, 1000, 2048];
const HEADS = [1, 2, 4, 8, 16];

export function attentionCases(seed: number, randomCount: number): AttentionCase[] {
  const cases: AttentionCase[] = FIXED.map((f, i) => fit({ ...BASE, ...f, id: i }));
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  for (let i = 0; i < randomCount; i += 1) {
    const [dtype, headDim, causal, bias, dropoutP] = pick(POOL);
    const heads = pick(HEADS);
    const divisors = HEADS.filter((d) => d <= heads && heads % d === 0);
    cases.push(
      fit({
        id: FIXED.length + i,
        dtype,
        batch: 1 + Math.floor(random() * 4),
        heads,
        kvHeads: random() < 0.5 ? heads : pick(divisors),
        queryLength: pick(LENGTHS),
        keyLength: pick(LENGTHS),
        headDim,
        causal,
        bias,
        biasBroadcast: [random() < 0.5, random() < 0.5],
        dropoutP,
        sequenceMajor: random() < 0.3,
        padRows: random() < 0.3,
        backward: random() < 0.7,
      }),
    );
  }
  return cases;
}
