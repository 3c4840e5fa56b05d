// Inner-outer persistent codegen (layer_norm backward as one kernel), slow tier: every fixture
// simulated on the CPU against the reference evaluator with seeded random inputs (Float / Half /
// BFloat16; odd N × H, H not a multiple of the vector width, fewer and more rows than blocks) —
// as scheduled by default, with next-row prefetch, with bulk row copies, ungrouped — random
// shapes, and nvcc of every fixture (-ptx) and of the bulk-copy kernels (-cubin). Structure and
// goldens: inner-outer-persistent.test.ts (fast tier).
import { describe, expect, it } from 'vitest';
import { compileFusion } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { buildLayerNormBackward, innerOuterPersistentRegistry, layerNormBackwardFixtures, seededRandom, testSeed } from '@tsfuser/test-support';
import { simulateAndCompare } from './inner-outer-lowering.js';

describe('inner-outer persistent codegen: simulation', () => {
  it.each(layerNormBackwardFixtures().map((c) => [c.name, c] as const))('%s', (_name, c) => {
    simulateAndCompare(c);
  });
});

describe('inner-outer persistent codegen: next-row prefetch (prefetchNextRow)', () => {
  it.each(layerNormBackwardFixtures().map((c) => [c.name, c] as const))('%s simulates like the fusion', (_name, c) => {
    simulateAndCompare(c, { prefetchNextRow: true });
  });
});

describe('inner-outer persistent codegen: rows through shared memory by bulk copy (bulkLoadRows)', () => {
  // 1100 × 96 bf16: 1056 blocks of 2 rows, so the last row of block 549 and every row of the
  // blocks past it are out of the tensor (the predicated first copy and reissue); Float 300 × 96
  // and 8 × 4096 divide; the rest have rows the 16-byte copy cannot take and keep global loads.
  const cases = [...layerNormBackwardFixtures(), buildLayerNormBackward('BFloat16', 1100, 96), buildLayerNormBackward('Float', 700, 128)];

  it.each(cases.map((c) => [c.name, c] as const))('%s simulates like the fusion', (_name, c) => {
    simulateAndCompare(c, { bulkLoadRows: true });
  });

  it.skipIf(!hasNvcc)('compiles with nvcc -cubin -arch=sm_90 (ptxas assembles the copies, the waits with a parity, the proxy fence)', async () => {
    const cases = [
      ...(['Float', 'Half', 'BFloat16'] as const).map((d) => buildLayerNormBackward(d, 16384, 4096)),
      buildLayerNormBackward('BFloat16', 1100, 96),
      buildLayerNormBackward('BFloat16', 600000, 4096),
    ];
    const kernels = cases.map((c, i) => compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry({ bulkLoadRows: true }), fusionId: 300 + i }));
    expect(kernels.every((k) => k.dumps.cuda.includes('nvfBulkCopyRowAgain('))).toBe(true);
    expect(kernels.some((k) => k.indexType === 'Int')).toBe(true);
    await compileKernelsWithNvcc(kernels, { label: 'inner-outer-bulk', cubin: true });
  }, 600_000);
});

describe('inner-outer persistent codegen: grouped allreduces (groupInnerReductions, the default)', () => {
  it.each(layerNormBackwardFixtures().map((c) => [c.name, c] as const))('%s simulates like the fusion (ungrouped, and grouped + prefetch)', (_name, c) => {
    simulateAndCompare(c, { groupInnerReductions: false });
    simulateAndCompare(c, { prefetchNextRow: true });
  });
});

describe.skipIf(!hasNvcc)('inner-outer persistent codegen: nvcc', () => {
  it('every fixture, the 16384×4096 timing shapes and a 64-bit-index one compile with nvcc -ptx -arch=sm_90', async () => {
    const cases = [
      ...layerNormBackwardFixtures(),
      ...(['Float', 'Half', 'BFloat16'] as const).map((d) => buildLayerNormBackward(d, 16384, 4096)),
      buildLayerNormBackward('BFloat16', 600000, 4096),
    ];
    const kernels = cases.map((c, i) => compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry(), fusionId: i }));
    // The prefetching and ungrouped variants of the timing shapes.
    (['Float', 'Half', 'BFloat16'] as const).forEach((d, i) => {
      const c = buildLayerNormBackward(d, 16384, 4096);
      kernels.push(compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry({ prefetchNextRow: true }), fusionId: 100 + i }));
      kernels.push(compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry({ groupInnerReductions: false }), fusionId: 200 + i }));
    });
    expect(kernels.some((k) => k.indexType === 'Int')).toBe(true);
    await compileKernelsWithNvcc(kernels, { label: 'inner-outer' });
  }, 600_000);
});

describe('inner-outer persistent codegen: random shapes', () => {
  it('seeded random N × H × dtype, simulated against the evaluator', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    const dtypes = ['Float', 'Half', 'BFloat16'] as const;
    // The simulator's time grows with N·H: a budget of elements keeps the run within the timeout
    // whatever the seed draws (a case past it is skipped, the next one drawn).
    let budget = 2_500_000;
    for (let i = 0; i < 8; i += 1) {
      const dtype = dtypes[Math.floor(rand() * 3)] ?? 'Float';
      const rows = 1 + Math.floor(rand() ** 2 * 700);
      const hidden = 1 + Math.floor(rand() ** 2 * 1500);
      if (rows * hidden > budget) continue;
      budget -= rows * hidden;
      try {
        simulateAndCompare(buildLayerNormBackward(dtype, rows, hidden));
      } catch (error) {
        throw new Error(`seed ${seed} case ${i} (${dtype} ${rows}×${hidden}): ${(error as Error).message}`);
      }
    }
  }, 300_000);
});
