// The transpose scheduler's kernels in the kernel simulator, against the reference evaluator:
// each fixture of @tsfuser/test-support's transpose-fixtures.ts (2-D f32 / bf16 transposes,
// permute + pointwise, 3-D / 4-D permutes, a permuted input, a stride-ordered output, odd sizes)
// is compiled with the default registry, checked to be scheduled as the fixture says, lowered
// (the final kernel IR verified), simulated (shared-tile races caught by the simulator)
// and compared element by element, and the transpose-smem-tile pass's shape of the kernel (one
// shared tile per staged input, one BlockSync, vectorized tile reads). Slow tier.
import { describe, expect, it } from 'vitest';
import { tierCases, transposeFixtures } from '@tsfuser/test-support';
import { verifyKernelIr, type Stmt } from '../src/index.js';
import { allStmts } from '../src/kernel-ir/walk.js';
import { baseSeed, seeded, simulateAndCheck } from './shape-ops-simulation.js';

describe('transpose scheduler kernels (simulated)', () => {
  const seed = baseSeed();
  // The fast test tier (testTier): an evenly spread 6 of the fixtures.
  for (const f of tierCases(transposeFixtures(), 6)) {
    it(`${f.name} (${f.scheduler})`, () => {
      const label = `${f.name} seed ${seed} (TSFUSER_SEED=${seed} replays it)`;
      const inputs = f.inputs(seeded(seed));
      const sim = simulateAndCheck(f.fusion, inputs, label);
      expect(sim.compiled.params.schedulerType, label).toBe(f.scheduler);
      expect(verifyKernelIr(sim.kernel.body, sim.kernel.params, { pendingAllowed: false }), label).toEqual([]);
      if (f.scheduler !== 'transpose' || sim.compiled.params.schedulerType !== 'transpose') return;
      const stmts: Stmt[] = allStmts(sim.kernel.body);
      const tiles = stmts.filter((s) => s.kind === 'Allocate' && s.memory === 'Shared');
      expect(tiles.length, label).toBe(sim.compiled.params.group2Inputs.length);
      expect(stmts.filter((s) => s.kind === 'BlockSync').length, label).toBe(tiles.length > 0 ? 1 : 0);
      const v1 = sim.compiled.params.vectorizeFactor1;
      const tileReads = stmts.filter((s) => s.kind === 'LoadStore' && s.in.memory === 'Shared');
      expect(tileReads.length, label).toBe(tiles.length);
      for (const s of tileReads) if (s.kind === 'LoadStore') expect(s.width, label).toBe(v1);
      expect(sim.compiled.source, label).toContain('__syncthreads();');
    });
  }
});
