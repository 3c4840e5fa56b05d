// The transpose tile's swizzle (codegen's transpose-smem-tile pass): a bijection of each tile row
// that keeps vector chunks contiguous, and — counted per 4-byte bank word — conflict-free staging
// stores of a warp and quarter-warp vector reads for the f32 (32×32, vectors of 4) and bf16
// (64×64, vectors of 8) tiles; the unswizzled layout would take 8 wavefronts per f32 store.
import { describe, expect, it } from 'vitest';
import { iconst, printIndex } from '../src/kernel-ir/index-expr.js';
import { swizzledTileIndex } from '../src/lower/transpose-smem-tile.js';

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
  /**
   * Wavefronts (distinct 4-byte words per bank, maxed over banks) of one warp's scalar staging
   * store of `bytes`-byte elements: lane t of the warp stores row (e % tile2) + k, column
   * e / tile2 with e = t · vector2. 1 means conflict free (threads sharing a word do not conflict).
   */
  const stagingWavefronts = (g: (typeof geometries)[number], bytes: number, k: number, place = (r: number, c: number): number => at(g, r, c)): number => {
    const words = new Map<number, Set<number>>();
    for (let t = 0; t < 32; t += 1) {
      const e = t * g.vector2;
      const word = Math.floor((place((e % g.tile2) + k, Math.floor(e / g.tile2)) * bytes) / 4);
      const bank = word % 32;
      words.set(bank, (words.get(bank) ?? new Set<number>()).add(word));
    }
    return Math.max(...[...words.values()].map((w) => w.size));
  };
  it('stages f32 (32×32, vectors of 4) and bf16 (64×64, vectors of 8) tiles without bank conflicts', () => {
    const f32 = geometries[0] as (typeof geometries)[number];
    const bf16 = geometries[1] as (typeof geometries)[number];
    for (let k = 0; k < f32.vector2; k += 1) expect(stagingWavefronts(f32, 4, k)).toBe(1);
    for (let k = 0; k < bf16.vector2; k += 1) expect(stagingWavefronts(bf16, 2, k)).toBe(1);
    // Without the swizzle the same f32 stores would hit one bank 8 times.
    expect(stagingWavefronts(f32, 4, 0, (r, c) => r * f32.tile1 + c)).toBe(8);
  });
  it('reads 16-byte vectors of the tile a quarter-warp per row, every chunk once (f32 and bf16)', () => {
    for (const [g, bytes] of [[geometries[0], 4], [geometries[1], 2]] as const) {
      if (g === undefined) continue;
      const chunks = g.tile1 / g.vector1;
      for (let q0 = 0; q0 < g.tile1 * g.tile2 / g.vector1; q0 += 8) {
        // Eight threads of a quarter-warp: vectors q0 … q0 + 7 in the output's order.
        const banks = new Set<number>();
        for (let q = q0; q < q0 + 8; q += 1) {
          const start = at(g, Math.floor(q / chunks), (q % chunks) * g.vector1);
          for (let b = 0; b < (g.vector1 * bytes) / 4; b += 1) banks.add((Math.floor((start * bytes) / 4) + b) % 32);
        }
        expect(banks.size).toBe(32);
      }
    }
  });
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
