// nvcc compile check (-cubin, sm_90: ptxas too) of every greedy scan and sort kernel of the
// fixtures (test-support scan-sort-fixtures.ts), at their sizes and at the sizes.
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { scanSortCases } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';

describe.skipIf(!hasNvcc)('greedy kernels compile with nvcc', () => {
  it('every fixture, plus cumsum [16384, 4096] and topk(8) [16384, 256]', async () => {
    const kernels: CompiledKernel[] = [];
    for (const c of scanSortCases()) kernels.push(compileFusion(c.fusion, makeRuntimeInfo(c.fusion, [{ sizes: c.sizes }]), { fusionId: 30000 + kernels.length }));
    const big = scanSortCases().filter((c) => c.name === 'cumsum_Float_long_rows' || c.name === 'topk8_Float_256');
    for (const c of big) {
      const sizes = c.name.startsWith('cumsum') ? [16384, 4096] : [16384, 256];
      kernels.push(compileFusion(c.fusion, makeRuntimeInfo(c.fusion, [{ sizes }]), { fusionId: 30000 + kernels.length }));
    }
    expect(kernels.every((k) => k.params.schedulerType === 'greedy')).toBe(true);
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'greedy', cubin: true });
  }, 300_000);
});
