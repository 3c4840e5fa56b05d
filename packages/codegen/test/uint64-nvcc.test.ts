// nvcc compile check (-cubin, sm_90) of every UInt64 fixture kernel: the unsigned overloads of
// the integer helpers (emit/runtime/uint64.ts) must resolve without ambiguity.
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { uint64Cases } from '@tsfuser/test-support';
import { describe, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';

describe.skipIf(!hasNvcc)('UInt64 kernels compile with nvcc', () => {
  it('every UInt64 fixture kernel at three shapes (block, grid and short-row reductions), cubin for sm_90', async () => {
    const kernels: CompiledKernel[] = [];
    for (const sizes of [[4096, 1024], [4, 1 << 22], [1 << 20, 6]]) {
      for (const c of uint64Cases()) kernels.push(compileFusion(c.fusion, makeRuntimeInfo(c.fusion, c.fusion.inputs.map(() => ({ sizes }))), { fusionId: 32000 + kernels.length }));
    }
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'uint64', cubin: true });
  }, 300_000);
});
