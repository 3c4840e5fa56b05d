// The dQ warp tiles of the attention backward (backward-dq.ts): for every tiling the backward
// accepts (warps, Q tile, 16- or 32-row warp tiles, head dims 8…256), the (row, column) pairs
// that the warps' lanes add, with the generated code's index formulas, cover every element of
// the blockM × E dQ tile exactly once; and the tuning list's E 128 shapes are the warp tiles
// their comments promise (16 × 64 for b7, FlashAttention-2's 32 × 32 for dqWarpRows 32).
import { describe, expect, it } from 'vitest';
import { BACKWARD_TUNING, customTiling, dqWarpLayout, tuningTiling, type AttentionTiling } from '../src/attention/index.js';

/** How often each element of the dQ tile is added in one step, from the lanes' indices. */
function additions(t: AttentionTiling, headDim: number): number[] {
  const layout = dqWarpLayout(t);
  const count = new Array<number>(t.blockM * headDim).fill(0);
  for (let warp = 0; warp < t.warps; warp += 1) {
    const rowGroup = warp % layout.rowGroups;
    const colGroup = Math.floor(warp / layout.rowGroups);
    for (let lane = 0; lane < 32; lane += 1) {
      const g = lane >> 2;
      const tq = lane & 3;
      for (let rt = 0; rt < layout.rowTiles; rt += 1) {
        for (let i = 0; i < 2 * layout.colPairs; i += 1) {
          // Pairs past the padded head dim keep a zero accumulator; columns past E are not written.
          if ((colGroup * layout.colPairs + (i >> 1)) * 16 >= t.headDimPadded) continue;
          const col = colGroup * layout.colPairs * 16 + i * 8 + 2 * tq;
          for (let r = 0; r < 2; r += 1) {
            const row = rowGroup * 16 * layout.rowTiles + rt * 16 + g + r * 8;
            for (const c of [col, col + 1]) {
              if (c < headDim) count[row * headDim + c] = (count[row * headDim + c] ?? 0) + 1;
            }
          }
        }
      }
    }
  }
  return count;
}

describe('attention backward dQ warp tiles', () => {
  it('cover the tile exactly once for every accepted tiling', () => {
    let checked = 0;
    for (const warps of [1, 2, 4, 8, 16]) {
      for (const blockM of [16, 32, 64, 128]) {
        for (const dqWarpRows of [16, 32]) {
          for (let headDim = 8; headDim <= 256; headDim += 4) {
            let t: AttentionTiling;
            try {
              t = customTiling('backward', headDim, warps, blockM, 16 * warps, { dqWarpRows });
            } catch {
              continue;  // refused (shared memory, row groups): not a kernel
            }
            const counts = additions(t, headDim);
            expect(counts.every((c) => c === 1), `${warps}w q${blockM} dq${dqWarpRows} E ${headDim}`).toBe(true);
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('the E 128 tuning shapes: 16 × 64 warp tiles for the default b7, 32 × 32 with dqWarpRows 32', () => {
    const shape = (index: number): [number, number] => {
      const entry = BACKWARD_TUNING[index];
      if (entry === undefined) throw new Error(`no BACKWARD_TUNING b${index}`);
      const l = dqWarpLayout(tuningTiling('backward', entry));
      return [16 * l.rowTiles, 16 * l.colPairs];
    };
    expect(shape(7)).toEqual([16, 64]);
    for (const index of [13, 15, 16, 18]) expect(shape(index), `b${index}`).toEqual([32, 32]);
  });
});
