// nvcc compile check (nvcc-batch.ts, -cubin sm_90) of every kernel segment of the persistent
// reshape fixtures (test-support persistent-reshape-fixtures.ts) and of 20 random persistent
// fusions with reshapes (persistent-reshape-random.ts), and of the vector reshape fixtures
// (persistent-reshape-vector-fixtures.ts: outputs stored through a reshape with the row's vector):
// reshapes before, between and after the
// row reductions of inner / outer / inner-outer persistent kernels; the attention prologue
// reshape + layer_norm + reshape at bench-like sizes.
import { describe, expect, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { persistentReshapeFixtures, randomPersistentReshapeCase, reshapeLayerNormPrologue, vectorReshapeFixtures } from '@tsfuser/test-support';
import { baseSeed, runtimeInfoOf, seeded, segmentsWithInputs } from './shape-ops-simulation.js';
import type { EvalValue, Fusion } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';

const seed = baseSeed();

describe.skipIf(!hasNvcc)('persistent reshape kernels compile with nvcc', () => {
  it('every kernel segment of every persistent reshape fixture and of 20 random ones', async () => {
    const kernels: CompiledKernel[] = [];
    const add = (fusion: Fusion, inputs: EvalValue[]): void => {
      for (const s of segmentsWithInputs(fusion, inputs)) {
        if (s.type === 'expr_eval' || s.type === 'no_op') continue;
        kernels.push(compileFusion(s.fusion, runtimeInfoOf(s.fusion, s.inputs), { fusionId: 31000 + kernels.length }));
      }
    };
    for (const [k, fx] of [...persistentReshapeFixtures(), ...vectorReshapeFixtures()].entries()) add(fx.fusion, fx.inputs(seeded(seed + k)));
    for (let k = 0; k < 20; k += 1) {
      const c = randomPersistentReshapeCase(seed + 1000 + k);
      add(c.fusion, c.inputs);
    }
    // The attention prologue at bench-like sizes: vectorized reads of the reshaped input.
    for (const [dtype, b, s, h] of [['BFloat16', 8, 4096, 4096], ['Float', 2, 128, 4096]] as const) {
      const fx = reshapeLayerNormPrologue(dtype, b, s, h);
      kernels.push(compileFusion(fx.fusion, makeRuntimeInfo(fx.fusion, [[b, s, h], [h], [h]].map((sz) => ({ sizes: sz }))), { fusionId: 31000 + kernels.length }));
    }
    expect(kernels.length).toBeGreaterThan(35);
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'persistent-reshape', context: `TSFUSER_SEED=${seed}`, cubin: true });
  }, 300_000);
});
