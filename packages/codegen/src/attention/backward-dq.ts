// The dQ part of the attention backward main kernel: dQ_tile += dS K for one Q step, from the
// dSᵀ tile the warps left in shared memory and the resident K tile, added into the f32 dQ
// accumulator with red.global.add (every K/V CTA adds to the same rows). The warps split the
// blockM × head-dim tile into (row group, column group) warp tiles of 16 · dqRowTiles rows
// (tiling.dqWarpRows); with tiling.deferDq the product of step it runs at the top of step
// it + 1 (after that step's barrier, from the other of two dSᵀ buffers) and once after the loop.
//
// Invariant: the warp tiles cover every (query row, head-dim column) of the tile exactly once
// (`dqWarpLayout`, checked by the tests), so each dQ element of a step is added once.

import type { AttentionTiling } from './variant.js';

/** How the warps split the dQ tile: rowGroups × colGroups warps, each 16 · rowTiles query rows
 * × colPairs · 16 head-dim columns (the last column group may run past the padded head dim; its
 * pairs past it are skipped). */
export interface DqWarpLayout {
  rowTiles: number;
  rowGroups: number;
  colGroups: number;
  colPairs: number;
}

export function dqWarpLayout(t: Pick<AttentionTiling, 'warps' | 'blockM' | 'headDimPadded' | 'dqWarpRows'>): DqWarpLayout {
  const rowTiles = t.dqWarpRows / 16;
  const rowGroups = t.blockM / t.dqWarpRows;
  const colGroups = t.warps / rowGroups;
  return { rowTiles, rowGroups, colGroups, colPairs: Math.ceil(t.headDimPadded / 16 / colGroups) };
}

/**
 * The dQ product of one step as a CUDA block: `ds` the dSᵀ tile to read, `hq` / `m0` the query
 * head and first query row of that step (names in the enclosing kernel body). Each of the warp
 * tile's 16-row tiles has its own A fragment (a0…a3, a4…a7) and accumulator (dq, dq1); one K
 * fragment feeds both. With 16-row warp tiles this is the text of the dQ product before
 * dqWarpRows existed (the E 128 default kernel unchanged).
 */
export function dqProduct(m: string, t: AttentionTiling, ds: string, hq: string, m0: string): string {
  const layout = dqWarpLayout(t);
  const tiles = Array.from({ length: layout.rowTiles }, (_, rt) => ({
    acc: rt === 0 ? 'dq' : `dq${rt}`,
    a: [0, 1, 2, 3].map((x) => `a${4 * rt + x}`).join(', '),
    row: `rowGroup * ${16 * layout.rowTiles}${rt === 0 ? '' : ` + ${16 * rt}`}`,
  }));
  // One tile's adds: the rows past L are not written (16-row tiles: no block of its own).
  const atomics = (x: (typeof tiles)[number] | undefined, pad: string): string =>
    x === undefined
      ? ''
      : [
          `const int row = ${m0} + ${x.row} + g + r * 8;`,
          'if (row < queryLength) {',
          '  float* at = accHead + static_cast<long long>(row) * kHeadDim + col;',
          '  if (kHeadDim % 2 == 0 && col + 1 < kHeadDim) {',
          `    tsf_red_add2(at, ${x.acc}[i][2 * r], ${x.acc}[i][2 * r + 1]);  // 8-byte aligned: E and col even`,
          '  } else {',
          `    if (col < kHeadDim) atomicAdd(at, ${x.acc}[i][2 * r]);`,
          `    if (col + 1 < kHeadDim) atomicAdd(at + 1, ${x.acc}[i][2 * r + 1]);`,
          '  }',
          '}',
        ]
          .map((l) => pad + l)
          .join('\n');
  const zero = tiles.map((x) => `${x.acc}[i][0] = ${x.acc}[i][1] = ${x.acc}[i][2] = ${x.acc}[i][3] = 0.0f;`);
  const each = (line: (tile: (typeof tiles)[number]) => string): string => tiles.map(line).join('\n');
  return `    {
      constexpr int kRowGroups = kBlockM / ${16 * layout.rowTiles};
      constexpr int kColGroups = kWarps / kRowGroups;
      constexpr int kColPairs = (kHeadDimPad / 16 + kColGroups - 1) / kColGroups;
      static_assert(kWarps % kRowGroups == 0, "warps must split into dQ row groups");
      const int rowGroup = warp % kRowGroups, colGroup = warp / kRowGroups;
${each((x) => `      float ${x.acc}[2 * kColPairs][4];`)}
#pragma unroll
      for (int i = 0; i < 2 * kColPairs; ++i) ${zero.length === 1 ? zero.join('') : `{ ${zero.join(' ')} }`}
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        unsigned ${tiles.map((x) => x.a).join(', ')};
${each((x) => `        tsf_ldmatrix_x4_trans(tsf_smem(${ds} + (kk * 16 + (lane & 7) + ((lane >> 4) << 3)) * kDsStride + ${x.row} + ((lane >> 3) & 1) * 8), ${x.a});`)}
#pragma unroll
        for (int ep = 0; ep < kColPairs; ++ep) {
          const int e0 = (colGroup * kColPairs + ep) * 16;
          if (e0 < kHeadDimPad) {
            unsigned b0, b1, b2, b3;
            tsf_ldmatrix_x4_trans(tsf_smem(sK + (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * kRowStride + e0 + (lane >> 4) * 8), b0, b1, b2, b3);
${each((x) => `            tsf_mma_${m}(${x.acc}[2 * ep], ${x.a}, b0, b1);\n            tsf_mma_${m}(${x.acc}[2 * ep + 1], ${x.a}, b2, b3);`)}
          }
        }
      }
      float* accHead = gradQueryAccumulator + ((static_cast<long long>(n) * heads + ${hq}) * queryLength) * kHeadDim;
#pragma unroll
      for (int i = 0; i < 2 * kColPairs; ++i) {
        const int col = (colGroup * kColPairs) * 16 + i * 8 + 2 * tq;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
${tiles.length === 1 ? atomics(tiles[0], '          ') : each((x) => `          {\n${atomics(x, '            ')}\n          }`)}
        }
      }
    }`;
}
