// nvcc compile check (-cubin, sm_90: ptxas too, which checks the red.global.add.noftz.f16 /
// .bf16 inline PTX) of every greedy scatter kernel of the fixtures (test-support
// scatter-fixtures.ts: every dtype, scalar src, broadcast value), and of an index_put_accumulate
// at embedding-backward size (8192 rows into [128256, 4096] bf16), plus the pointwise copy
// kernel the launch plan runs before each.
import { Fusion, makeTensor, set } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry } from '@tsfuser/scheduler';
import { scatterCases, scatterInputs, seededRandom } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';

describe.skipIf(!hasNvcc)('greedy scatter kernels compile with nvcc', () => {
  it('every lone-scatter fixture, the embedding-backward size and the copy kernel', async () => {
    const kernels: CompiledKernel[] = [];
    for (const c of scatterCases(37, 131)) {
      if (c.fusion.exprs().length !== 1) continue;
      const inputs = scatterInputs(c, seededRandom(1));
      kernels.push(compileFusion(c.fusion, makeRuntimeInfo(c.fusion, inputs.map((t) => ({ sizes: [...t.sizes] }))), { fusionId: 31000 + kernels.length }));
    }
    const big = scatterCases(4, 4).find((c) => c.name === 'index_put_accumulate_BFloat16');
    if (big !== undefined) kernels.push(compileFusion(big.fusion, makeRuntimeInfo(big.fusion, [{ sizes: [128256, 4096] }, { sizes: [8192] }, { sizes: [8192, 4096] }]), { fusionId: 31000 + kernels.length }));
    const copy = new Fusion();
    const x = makeTensor(copy, { shape: [-1, -1], dtype: 'BFloat16' });
    copy.addInput(x);
    copy.addOutput(set(x));
    // The launch plan compiles the copy with the pointwise scheduler (a plain set would be a view).
    kernels.push(compileFusion(copy, makeRuntimeInfo(copy, [{ sizes: [128256, 4096] }]), { fusionId: 31000 + kernels.length, registry: new SchedulerRegistry([new PointwiseScheduler()]) }));
    expect(kernels.filter((k) => k.params.schedulerType === 'greedy').length).toBeGreaterThanOrEqual(18);
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'scatter', cubin: true });
  }, 300_000);
});
