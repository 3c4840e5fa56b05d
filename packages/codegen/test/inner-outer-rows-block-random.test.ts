// Inner-outer persistent kernels with several rows per block (bdimy > 1), slow tier: seeded
// random layer_norm / rms_norm backward shapes and dtypes, bdimy chosen by the heuristic or
// forced (2, 3, 4, 8 — odd ones included) and the persistent grid narrowed (blocksPerSm 1..3)
// so that bdimy often does not divide a block's rows, each simulated against the reference
// evaluator and compared norm-wise (the seed is in the failure message; TSFUSER_SEED replays
// it); and nvcc -cubin -arch=sm_90 of the default kernels of the sizes issue #23 measures
// (rms_norm_bwd / layer_norm_bwd bf16 at rows 1024..16384 × hidden 768..2048) and of the odd
// forced ones (ptxas assembles the block reductions across threadIdx.y).
import { describe, expect, it } from 'vitest';
import { buildLayerNormBackward, innerOuterPersistentRegistry, seededRandom, testSeed, tierCount } from '@tsfuser/test-support';
import type { InnerOuterPersistentOverrides } from '@tsfuser/scheduler';
import { compileFusion } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { buildRmsNormBackward, layerNormCase, simulateNormwise, type BackwardNormCase } from './inner-outer-rows-block-cases.js';

describe('inner-outer persistent codegen, several rows per block: random shapes', () => {
  it('seeded random kind × dtype × rows × hidden × bdimy × grid, simulated against the evaluator (norm-wise)', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    const dtypes = ['Float', 'Half', 'BFloat16'] as const;
    // The simulator's time grows with N·H: a budget of elements keeps the run within the timeout.
    // The fast test tier (testTier): the first 4 draws within 300k elements (case 0, at most
    // 900 × 300 with bdimy 2, always fits).
    let budget = tierCount(1_000_000, 300_000);
    let multiRow = 0;
    for (let i = 0; i < tierCount(12, 4); i += 1) {
      const dtype = dtypes[Math.floor(rand() * 3)] ?? 'Float';
      const rows = 1 + Math.floor(rand() * 900);
      // Case 0 always runs with 2 rows per block (a row of ≤ 300 elements fits 2 per block in every dtype).
      const hidden = 1 + Math.floor(rand() ** 2 * (i === 0 ? 300 : 1100));
      const rms = rand() < 0.5;
      const forced = i === 0 ? 2 : ([0, 2, 3, 4, 8][Math.floor(rand() * 5)] ?? 0);
      const blocksPerSm = 1 + Math.floor(rand() * 3);
      if (rows * hidden > budget) continue;
      const c: BackwardNormCase = rms ? buildRmsNormBackward(dtype, rows, hidden) : layerNormCase(buildLayerNormBackward(dtype, rows, hidden));
      const overrides: InnerOuterPersistentOverrides = { ...(forced === 0 ? {} : { bdimy: forced }), ...(rand() < 0.5 ? { blocksPerSm } : {}) };
      budget -= rows * hidden;
      try {
        const block = simulateNormwise(c, overrides, seed + i);
        if ((block[1] ?? 1) > 1) multiRow += 1;
      } catch (error) {
        const message = (error as Error).message;
        // A forced bdimy too large for the row's threads is refused by the heuristic, not lowered.
        if (/is not a row count per block/.test(message)) continue;
        throw new Error(`seed ${seed} case ${i} (${c.name} ${JSON.stringify(overrides)}): ${message}`);
      }
    }
    expect(multiRow, `seed ${seed}: no case ran with several rows per block`).toBeGreaterThan(0);
  }, 300_000);
});

describe('inner-outer persistent codegen, several rows per block: fixed shapes', () => {
  it('bf16 1100×96 over 132 blocks of ⌈1100/132⌉ = 9 rows taken 4 at a time (9 % 4 ≠ 0), and its default (bdimy 8)', () => {
    const c = layerNormCase(buildLayerNormBackward('BFloat16', 1100, 96));
    expect(simulateNormwise(c, { bdimy: 4, blocksPerSm: 1 })).toEqual([12, 4, 1]);
    expect(simulateNormwise(c)).toEqual([12, 8, 1]);
  }, 120_000);
});

describe.skipIf(!hasNvcc)('inner-outer persistent codegen, several rows per block: nvcc', () => {
  it('the issue #23 sizes (default heuristic) and odd forced bdimy compile with nvcc -cubin -arch=sm_90', async () => {
    const cases: [BackwardNormCase, InnerOuterPersistentOverrides][] = [];
    for (const rows of [1024, 16384]) {
      for (const hidden of [768, 1024, 2048]) {
        cases.push([buildRmsNormBackward('BFloat16', rows, hidden), {}]);
        cases.push([layerNormCase(buildLayerNormBackward('BFloat16', rows, hidden)), {}]);
      }
    }
    cases.push([buildRmsNormBackward('Float', 8192, 1024), {}]);
    cases.push([buildRmsNormBackward('Half', 97, 40), { bdimy: 8 }]);
    cases.push([layerNormCase(buildLayerNormBackward('BFloat16', 1100, 96)), { bdimy: 3, blocksPerSm: 1 }]);
    const kernels = cases.map(([c, o], i) => compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry(o), fusionId: 400 + i }));
    // Every issue-size bf16 kernel takes several rows per block (hidden 2048: bdimx 256, bdimy 2).
    expect(kernels.slice(0, 12).every((k) => k.launch.block[1] > 1)).toBe(true);
    expect(kernels.every((k) => k.dumps.cuda.includes('blockReduce<false, true>('))).toBe(true);
    await compileKernelsWithNvcc(kernels, { label: 'inner-outer-rows-block', cubin: true });
  }, 600_000);
});
