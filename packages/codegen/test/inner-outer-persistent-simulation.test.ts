// Inner-outer persistent codegen (layer_norm backward as one kernel), slow tier: every fixture
// simulated on the CPU against the reference evaluator with seeded random inputs (Float / Half /
// BFloat16; odd N × H, H not a multiple of the vector width, fewer and more rows than blocks) —
// as scheduled by default, with next-row prefetch, with bulk row copies — and nvcc of every
// fixture (-ptx) and of the bulk-copy kernels (-cubin). Ungrouped allreduces and random shapes:
// inner-outer-persistent-simulation-variants.test.ts (a file of its own so the two run in
// parallel). Structure and goldens: inner-outer-persistent.test.ts (fast tier). In the fast test
// tier (testTier) each group simulates an evenly spread few of the fixtures (both ends of the list,
// and the predicated bulk-copy shape), and nvcc compiles a sample (nvcc-batch.ts).
import { describe, expect, it } from 'vitest';
import { compileFusion } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { buildLayerNormBackward, innerOuterPersistentRegistry, layerNormBackwardFixtures, tierCases } from '@tsfuser/test-support';
import { simulateAndCompare } from './inner-outer-lowering.js';

describe('inner-outer persistent codegen: simulation', () => {
  it.each(tierCases(layerNormBackwardFixtures(), 3).map((c) => [c.name, c] as const))('%s', (_name, c) => {
    simulateAndCompare(c);
  });
});

describe('inner-outer persistent codegen: next-row prefetch (prefetchNextRow)', () => {
  it.each(tierCases(layerNormBackwardFixtures(), 2).map((c) => [c.name, c] as const))('%s simulates like the fusion', (_name, c) => {
    simulateAndCompare(c, { prefetchNextRow: true });
  });
});

describe('inner-outer persistent codegen: rows through shared memory by bulk copy (bulkLoadRows)', () => {
  // 1100 × 96 bf16: 1056 blocks of 2 rows, so the last row of block 549 and every row of the
  // blocks past it are out of the tensor (the predicated first copy and reissue); Float 300 × 96
  // and 8 × 4096 divide; the rest have rows the 16-byte copy cannot take and keep global loads.
  const cases = [...tierCases(layerNormBackwardFixtures(), 1), ...tierCases([buildLayerNormBackward('BFloat16', 1100, 96), buildLayerNormBackward('Float', 700, 128)], 1)];

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
