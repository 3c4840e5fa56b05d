// The transpose scheduler's kernels in the kernel simulator, against the reference evaluator:
// each fixture of @tsfuser/test-support's transpose-fixtures.ts (2-D f32 / bf16 transposes,
// permute + pointwise, 3-D / 4-D permutes, a permuted input, a stride-ordered output, odd sizes)
// is compiled with the default registry, checked to be scheduled as the fixture says, lowered
// (kernel IR verifier after every pass), simulated (shared-tile races caught by the simulator)
// and compared element by element. Also: the transpose-smem-tile pass's shape of the kernel
// (one shared tile per staged input, one BlockSync, vectorized tile reads) and its swizzle.
import { describe, expect, it } from 'vitest';
import { transposeFixtures } from '@tsfuser/test-support';
import { verifyKernelIr, type Stmt } from '../src/index.js';
import { iconst, printIndex } from '../src/kernel-ir/index-expr.js';
import { swizzledTileIndex } from '../src/lower/transpose-smem-tile.js';
import { allStmts } from '../src/kernel-ir/walk.js';
import { baseSeed, seeded, simulateAndCheck } from './shape-ops-simulation.js';

describe('transpose scheduler kernels (simulated)', () => {
  const seed = baseSeed();
  for (const f of transposeFixtures()) {
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

describe('transpose tile swizzle', () => {
  const geometries = [
    { tile1: 32, tile2: 32, vector1: 4, vector2: 4, threads: 128 },
    { tile1: 64, tile2: 64, vector1: 8, vector2: 8, threads: 128 },
    { tile1: 32, tile2: 32, vector1: 1, vector2: 2, threads: 128 },
  ];
  const at = (g: (typeof geometries)[number], r: number, c: number): number => Number(printIndex(swizzledTileIndex(g, iconst(r), iconst(c))));
  for (const g of geometries) {
    it(`is a bijection of the ${g.tile2}×${g.tile1} tile (vectors ${g.vector1} / ${g.vector2}), keeping vector chunks contiguous`, () => {
      const seen = new Set<number>();
      for (let r = 0; r < g.tile2; r += 1) {
        for (let c = 0; c < g.tile1; c += 1) {
          const p = at(g, r, c);
          expect(p).toBeGreaterThanOrEqual(r * g.tile1);
          expect(p).toBeLessThan((r + 1) * g.tile1);
          if (c % g.vector1 !== 0) expect(p).toBe(at(g, r, c - 1) + 1);
          seen.add(p);
        }
      }
      expect(seen.size).toBe(g.tile1 * g.tile2);
    });
  }
  it('stages a warp of 4-byte elements without bank conflicts (32×32 tile, vectors of 4)', () => {
    const g = geometries[0] as (typeof geometries)[number];
    // Staging store k of warp w: thread t writes row (e % 32) + k, column e / 32, e = t · 4 (+ the warp's offset).
    for (let k = 0; k < g.vector2; k += 1) {
      const banks = new Set<number>();
      for (let t = 0; t < 32; t += 1) {
        const e = t * g.vector2;
        banks.add(at(g, (e % g.tile2) + k, Math.floor(e / g.tile2)) % 32);
      }
      expect(banks.size).toBe(32);
    }
  });
});
