// The wgmma forward's shared-memory layout and descriptors (wgmma-layout.ts) against a plain
// reimplementation of the PTX ISA's canonical layouts: for every element of every k-step the
// kernel issues (Q and K as K-major operands of S = Q·Kᵀ, V as the MN-major operand of P·V),
// the address the hardware computes from the descriptor is where the loader stored that
// element; plus the descriptor bit encoding (a round trip and hand-checked fields), and that
// the layout is a bijection onto the tile's bytes (no two elements share a byte).
import { describe, expect, it } from 'vitest';
import { canonicalAddress, decodeDescriptor, encodeDescriptor, kMajorDescriptor, mnMajorDescriptor, tileOffset, type MatrixDescriptor } from '../src/attention/index.js';
import { testSeed, seededRandom } from '@tsfuser/test-support';

/**
 * An independent statement of the 128B-swizzle canonical layout for 16-bit elements, as the
 * PTX ISA draws it: the swizzle atom is 8 rows of 128 bytes; row r's 16-byte chunk j holds the
 * logical chunk j ⊕ r. K-major: operand row mn is atom row mn mod 8 of atom ⌊mn / 8⌋ (SBO apart),
 * column k is byte 2k of the row from the descriptor's start. MN-major: operand column mn is
 * byte 2·(mn mod 64) of a row, atom ⌊mn / 64⌋ (LBO apart); k is atom row k mod 8 of atom ⌊k / 8⌋ (SBO apart).
 */
function ptxAddress(d: MatrixDescriptor, major: 'K' | 'MN', mn: number, k: number): number {
  let atomStart: number;
  let row: number;
  let byteInRow: number;
  if (major === 'K') {
    atomStart = d.start + Math.floor(mn / 8) * d.strideByteOffset;
    row = mn % 8;
    byteInRow = 2 * k;
  } else {
    atomStart = d.start + Math.floor(mn / 64) * d.leadingByteOffset + Math.floor(k / 8) * d.strideByteOffset;
    row = k % 8;
    byteInRow = 2 * (mn % 64);
  }
  const address = atomStart + row * 128 + byteInRow;
  // The swizzle acts on the absolute address: its row bits [7, 10) select the chunk permutation.
  const physicalRow = Math.floor(address / 128) % 8;
  const chunk = Math.floor((address % 128) / 16);
  return address - (address % 128) + ((chunk ^ physicalRow) * 16) + (address % 16);
}

const BASE = 3 * 1024; // any 1024-aligned shared address

describe('wgmma forward layout (128B swizzle) and descriptors', () => {
  it('the two address models agree (PTX ISA drawing vs canonicalAddress) on random descriptors', () => {
    const seed = testSeed();
    console.log(`seed ${seed}`);
    const random = seededRandom(seed);
    for (let i = 0; i < 2000; i += 1) {
      const d: MatrixDescriptor = { start: 1024 * Math.floor(random() * 64) + 32 * Math.floor(random() * 4), leadingByteOffset: 1024 * (1 + Math.floor(random() * 32)), strideByteOffset: 1024 * (1 + Math.floor(random() * 8)), swizzle: '128B' };
      const major = random() < 0.5 ? 'K' : 'MN';
      const mn = Math.floor(random() * 128);
      const k = Math.floor(random() * 16);
      expect(canonicalAddress(d, major, mn, k), `${major} ${mn} ${k}`).toBe(ptxAddress(d, major, mn, k));
    }
  });

  for (const [rows, cols] of [[64, 64], [64, 128], [128, 64], [128, 128]] as const) {
    it(`tileOffset is a bijection onto ${rows} x ${cols} x 2 bytes, element-aligned`, () => {
      const seen = new Set<number>();
      for (let r = 0; r < rows; r += 1) {
        for (let c = 0; c < cols; c += 1) {
          const o = tileOffset(r, c, rows);
          expect(o % 2).toBe(0);
          expect(o).toBeGreaterThanOrEqual(0);
          expect(o).toBeLessThan(rows * cols * 2);
          seen.add(o);
        }
      }
      expect(seen.size).toBe(rows * cols);
    });

    it(`Q / K (K-major) k-steps of a ${rows}-row tile at E ${cols} read the elements the loader stored`, () => {
      // S = Q Kᵀ: operand row mn (a query or key row) from firstRow, column k of k-step kk = E index 16 kk + k.
      for (const firstRow of rows === 128 ? [0, 64] : [0]) {
        const n = rows === 128 && firstRow === 0 ? 128 : 64;
        for (let kk = 0; kk < cols / 16; kk += 1) {
          const d = kMajorDescriptor(BASE, rows, firstRow, kk);
          for (let mn = 0; mn < Math.min(n, rows - firstRow); mn += 1) {
            for (let k = 0; k < 16; k += 1) {
              expect(ptxAddress(d, 'K', mn, k), `row ${firstRow + mn} col ${16 * kk + k}`).toBe(BASE + tileOffset(firstRow + mn, 16 * kk + k, rows));
            }
          }
        }
      }
    });

    it(`V (MN-major, transposed) k-steps of a ${rows}-key tile at E ${cols} read the elements the loader stored`, () => {
      // O += P V: the MMA's k is the key row 16 kk + k, its n the E column.
      for (let kk = 0; kk < rows / 16; kk += 1) {
        const d = mnMajorDescriptor(BASE, rows, kk);
        for (let e = 0; e < cols; e += 1) {
          for (let k = 0; k < 16; k += 1) {
            expect(ptxAddress(d, 'MN', e, k), `key ${16 * kk + k} col ${e}`).toBe(BASE + tileOffset(16 * kk + k, e, rows));
          }
        }
      }
    });
  }

  it('descriptor encoding: fields in bits 0-13, 16-29, 32-45, swizzle mode 1 in bits 62-63, round trip', () => {
    const d: MatrixDescriptor = { start: 0x2a400 + 96, leadingByteOffset: 16384, strideByteOffset: 1024, swizzle: '128B' };
    const bits = encodeDescriptor(d);
    expect(bits & 0x3fffn).toBe(BigInt((0x2a400 + 96) >> 4));
    expect((bits >> 16n) & 0x3fffn).toBe(1024n);
    expect((bits >> 32n) & 0x3fffn).toBe(64n);
    expect((bits >> 46n) & 0xffffn).toBe(0n); // base offset 0 and the reserved bits
    expect(bits >> 62n).toBe(1n);
    expect(decodeDescriptor(bits)).toEqual(d);
    // Adding a k-step's byte offset >> 4 to the encoded start is the descriptor of the moved start (the kernel's dQ + kQStep[kk]).
    for (let kk = 0; kk < 8; kk += 1) {
      const moved = kMajorDescriptor(BASE, 128, 64, kk);
      expect(encodeDescriptor(kMajorDescriptor(BASE, 128, 64, 0)) + BigInt((moved.start - (BASE + 64 * 128)) >> 4)).toBe(encodeDescriptor(moved));
    }
  });
});
