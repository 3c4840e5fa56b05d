// nvcc compile check (-cubin, sm_90) of the reduction kernels joining an input with broadcast
// dims to the reduction's result after the reduction (reduction-broadcast-join-cases.ts; the
// simulation test reduction-broadcast-join.test.ts checks their values): before the fix the
// input's load sat in a loop of its own and nvcc stopped at "identifier T6 is undefined".
import { describe, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { broadcastJoinCases } from './reduction-broadcast-join-cases.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { baseSeed, runtimeInfoOf, segmentsWithInputs } from './shape-ops-simulation.js';

describe.skipIf(!hasNvcc)('an input with broadcast dims joined with the reduction result: nvcc', () => {
  it('every case compiles', async () => {
    const seed = baseSeed();
    const kernels: CompiledKernel[] = [];
    for (const c of broadcastJoinCases(seed)) {
      for (const s of segmentsWithInputs(c.fusion, c.inputs)) {
        kernels.push(compileFusion(s.fusion, runtimeInfoOf(s.fusion, s.inputs), { fusionId: 34000 + kernels.length }));
      }
    }
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'reduction-broadcast-join', cubin: true, context: `TSFUSER_SEED=${seed}` });
  }, 180_000);
});
