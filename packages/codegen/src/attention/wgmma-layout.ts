// Shared-memory layout and matrix descriptors of the wgmma (Hopper warpgroup MMA) attention
// forward: where a 16-bit tile of R rows × E columns (E a multiple of 64) lives in shared memory,
// and the 64-bit descriptors through which `wgmma.mma_async` reads it as a K-major operand
// (Q and K for S = Q·Kᵀ, the MMA's K dim along E) or as an MN-major operand with the transpose
// bit (V for O += P·V, the MMA's K dim along the rows, its N dim along E).
//
// Layout (128-byte swizzle, PTX ISA "Shared Memory Matrix Layout"): the tile is E / 64 column
// panels of R rows × 128 bytes, one after the other; row r of a panel is at r · 128 and its
// 16-byte chunk c (8 elements) is stored at chunk c ⊕ (r mod 8) — the swizzle the hardware
// applies to address bits [4, 7) from bits [7, 10) of the absolute shared address, so every
// panel starts 1024-byte aligned (8 rows, one swizzle atom).
//
// Invariant: for every operand element the descriptors below address, the PTX ISA's canonical
// address (start + offsets, then the swizzle; `canonicalAddress`) is the address where
// `tileOffset` (the loader's layout) stored it; the tests check this element by element.

/** Bytes of one 128B-swizzle atom: 8 rows of 128 bytes; panels start on its multiples. */
export const SWIZZLE_ATOM_BYTES = 1024;
/** Elements of one panel row: 128 bytes of 16-bit values. */
export const PANEL_COLUMNS = 64;
const ROW_BYTES = 128;

/** Byte offset of element (row, col) of a `rows`-row tile in the swizzled panel layout. */
export function tileOffset(row: number, col: number, rows: number): number {
  const panel = Math.floor(col / PANEL_COLUMNS);
  const within = (col % PANEL_COLUMNS) * 2;
  const chunk = within >> 4;
  return panel * rows * ROW_BYTES + row * ROW_BYTES + ((chunk ^ (row & 7)) << 4) + (within & 15);
}

export type Major = 'K' | 'MN';

/** The fields of a wgmma matrix descriptor (byte values; the encoding keeps bits [4, 18)). */
export interface MatrixDescriptor {
  /** Shared-memory byte address of the operand's first element (before the swizzle). */
  start: number;
  leadingByteOffset: number;
  strideByteOffset: number;
  /** The only mode this kernel uses. */
  swizzle: '128B';
}

/** The 64-bit descriptor: start >> 4 in bits 0–13, LBO >> 4 in 16–29, SBO >> 4 in 32–45, base offset 0, swizzle mode 1 (128B) in bits 62–63. */
export function encodeDescriptor(d: MatrixDescriptor): bigint {
  const field = (bytes: number): bigint => BigInt((bytes & 0x3ffff) >> 4);
  return field(d.start) | (field(d.leadingByteOffset) << 16n) | (field(d.strideByteOffset) << 32n) | (1n << 62n);
}

export function decodeDescriptor(bits: bigint): MatrixDescriptor {
  const field = (shift: bigint): number => Number((bits >> shift) & 0x3fffn) << 4;
  if (bits >> 62n !== 1n) throw new Error(`descriptor 0x${bits.toString(16)} is not a 128B-swizzle descriptor`);
  return { start: field(0n), leadingByteOffset: field(16n), strideByteOffset: field(32n), swizzle: '128B' };
}

/**
 * The PTX ISA's address of element (mn, k) of one m64nNk16 operand (16-bit elements, 128B
 * swizzle) read through descriptor `d`, written from the ISA's canonical layouts: K-major
 * ((8, m), (T, 2)) : ((8T, SBO), (1, T)) in 16-byte units, i.e. rows of 128 bytes, 8-row groups
 * SBO apart, k contiguous (LBO unused); MN-major ((T, 8, m), (8, k)) : ((1, T, LBO), (8T, SBO)),
 * i.e. 64 mn elements a 128-byte row, 64-element groups LBO apart, k rows 128 bytes apart and
 * 8-row groups SBO apart. Then the 128B swizzle on the absolute address.
 */
export function canonicalAddress(d: MatrixDescriptor, major: Major, mn: number, k: number): number {
  const linear =
    major === 'K'
      ? d.start + (mn % 8) * ROW_BYTES + Math.floor(mn / 8) * d.strideByteOffset + k * 2
      : d.start + (mn % 64) * 2 + Math.floor(mn / 64) * d.leadingByteOffset + (k % 8) * ROW_BYTES + Math.floor(k / 8) * d.strideByteOffset;
  return linear ^ (((linear >> 7) & 7) << 4);
}

/**
 * Descriptor of k-step `kk` (16 columns) of a K-major operand: `rows` rows of a tile of
 * `tileRows` rows starting at row `firstRow` (a multiple of 8), at shared address `base`.
 */
export function kMajorDescriptor(base: number, tileRows: number, firstRow: number, kk: number): MatrixDescriptor {
  const panel = Math.floor((16 * kk) / PANEL_COLUMNS);
  const inPanel = ((16 * kk) % PANEL_COLUMNS) * 2;
  return { start: base + panel * tileRows * ROW_BYTES + firstRow * ROW_BYTES + inPanel, leadingByteOffset: 16, strideByteOffset: SWIZZLE_ATOM_BYTES, swizzle: '128B' };
}

/** Descriptor of k-step `kk` (16 rows) of an MN-major operand (the N dim along the columns) of a `tileRows`-row tile at `base`. */
export function mnMajorDescriptor(base: number, tileRows: number, kk: number): MatrixDescriptor {
  return { start: base + 16 * kk * ROW_BYTES, leadingByteOffset: tileRows * ROW_BYTES, strideByteOffset: SWIZZLE_ATOM_BYTES, swizzle: '128B' };
}

/** Bytes of a `rows` × `cols` 16-bit tile (cols a multiple of 64). */
export function tileBytes(rows: number, cols: number): number {
  return rows * cols * 2;
}

/**
 * The CUDA side of the same layout: the constant descriptor fields as `constexpr`s computed
 * here (so the kernel uses exactly the numbers the tests check), for the kernel body; the
 * encoding itself is `tsf_desc` (wgmma-primitives.ts).
 */
export function descriptorConstants(blockM: number, blockN: number): string {
  const k = kMajorDescriptor(0, blockM, 0, 0);
  const v = mnMajorDescriptor(0, blockN, 0);
  return `  // wgmma descriptors (wgmma-layout.ts): 128B swizzle; K-major LBO ${k.leadingByteOffset} (unused), SBO ${k.strideByteOffset} (the next 8 rows);
  // V MN-major LBO ${v.leadingByteOffset} (the next 64 columns), SBO ${v.strideByteOffset} (the next 8 rows).
  constexpr unsigned kKMajorLbo = ${k.leadingByteOffset}, kKMajorSbo = ${k.strideByteOffset};
  constexpr unsigned kVLbo = ${v.leadingByteOffset}, kVSbo = ${v.strideByteOffset};`;
}
