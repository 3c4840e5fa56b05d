// Philox-4x32-10 against the Random123 known-answer vectors, and the 32×32 → 64 high word
// against BigInt on seeded random operands.
import { describe, expect, it } from 'vitest';
import { mulhi32, philox, philox4x32, rawUniformDouble, rawUniformFloat, uniformFloat } from '../src/eval/philox.js';

const hex = (ws: readonly number[]): string[] => ws.map((w) => w.toString(16).padStart(8, '0'));

/** A small seeded generator (mulberry32) for reproducible operands. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

describe('philox4x32-10', () => {
  // Random123's kat_vectors for philox4x32 with 10 rounds: counter, key → output.
  it('matches the Random123 known answers', () => {
    expect(hex(philox4x32([0, 0, 0, 0], [0, 0]))).toEqual(['6627e8d5', 'e169c58d', 'bc57ac4c', '9b00dbd8']);
    expect(hex(philox4x32([0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff]))).toEqual([
      '408f276d', '41c83b0e', 'a20bc7c6', '6d5451fd',
    ]);
    expect(hex(philox4x32([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]))).toEqual([
      'd16cfe09', '94fdcceb', '5001e420', '24126ea1',
    ]);
  });

  it('keys by the seed and counts (offset, subsequence) as nvFuser does', () => {
    const seed = 0x1234567890abcdefn;
    const offset = 0x0fedcba987654321n;
    const subsequence = 2 ** 40 + 77;
    const expected = philox4x32(
      [0x87654321, 0x0fedcba9, 77, 2 ** 8],
      [0x90abcdef, 0x12345678],
    );
    expect(philox(seed, subsequence, offset)).toEqual(expected);
    expect(philox(5, 3, 7)).toEqual(philox4x32([7, 0, 3, 0], [5, 0]));
  });

  it('mulhi32 equals the BigInt high word', () => {
    const seed = 20241124;
    const next = mulberry32(seed);
    const edges = [0, 1, 0xffffffff, 0x80000000, 0xd2511f53, 0xcd9e8d57];
    for (let i = 0; i < 2000; i += 1) {
      const a = i < edges.length ? (edges[i] as number) : next();
      const b = i < edges.length ? 0xffffffff : next();
      const want = Number((BigInt(a) * BigInt(b)) >> 32n);
      expect(mulhi32(a, b), `seed ${seed}, a=${a}, b=${b}`).toBe(want);
    }
  });
});

describe('uniform conversions', () => {
  it('map words into (0, 1] and uniformf maps 1 to 0', () => {
    expect(rawUniformFloat(0)).toBe(Math.fround(2 ** -33));
    expect(rawUniformFloat(0xffffffff)).toBe(1);
    expect(uniformFloat(0xffffffff)).toBe(0);
    expect(rawUniformDouble(0, 0)).toBe(2 ** -54);
    // z = x ^ (y << 21): x's bits 21..31 cancel against y's low bits when both are all ones.
    expect(rawUniformDouble(0xffffffff, 0xffffffff)).toBe((2 ** 53 - 2 ** 32 + 2 ** 21 - 1) * 2 ** -53 + 2 ** -54);
    expect(rawUniformDouble(0, 0xffe00000)).toBe(0xffe00000 * 2 ** 21 * 2 ** -53 + 2 ** -54);
    expect(rawUniformDouble(0, 1)).toBe(2 ** 21 * 2 ** -53 + 2 ** -54);
    expect(rawUniformDouble(5, 0)).toBe(5 * 2 ** -53 + 2 ** -54);
  });
});
