// The host half of codegen's fast division (lower/fast-division.ts, emit/runtime/fast-division.ts):
// PyTorch's IntDivider magic numbers for a 32-bit divisor, the quotient the device helper
// computes from them (for the kernel simulator and tests), and the words of a kernel's divisor
// parameter for given extents (what the runtime's packer, the kernel_args dump and
// tools/bench/kernel_ab.py write).
// Invariant: for every divisor 1 ≤ d < 2^31 and dividend 0 ≤ n < 2^31,
// fastQuotient(n, divisorMagic(d)) = ⌊n / d⌋ (test/divisor-magic.test.ts checks it against
// BigInt arithmetic and plain division); all arithmetic here is exact in doubles (no value
// reaches 2^53), so no BigInt is needed on the packing path.

import type { ArgumentLayout } from './arguments.js';

/** `n / d = (umulhi(n, magic) + n) >> shift`. */
export interface DivisorMagic {
  magic: number;
  shift: number;
}

const TWO_16 = 65536;
const TWO_31 = 2 ** 31;

/**
 * With s = ⌈log2 d⌉ and m = ⌊2^32 (2^s − d) / d⌋ + 1 (PyTorch's IntDivider). A divisor below 1 —
 * an empty extent, whose divisions no thread executes for a real point — gets d = 1's (0 shift,
 * magic 1: the identity), so the parameter is always well defined.
 */
export function divisorMagic(d: number): DivisorMagic {
  if (!Number.isInteger(d) || d >= TWO_31) throw new RangeError(`fast division: divisor ${d} is not an integer below 2^31`);
  const divisor = Math.max(1, d);
  let shift = 0;
  while (2 ** shift < divisor) shift += 1;
  // ⌊r · 2^32 / d⌋ for r = 2^s − d < d, as two 16-bit long-division steps (each < 2^47).
  const r = 2 ** shift - divisor;
  const high = r * TWO_16;
  const q1 = Math.floor(high / divisor);
  const low = (high - q1 * divisor) * TWO_16;
  const q2 = Math.floor(low / divisor);
  return { magic: q1 * TWO_16 + q2 + 1, shift };
}

/** ⌊n · m / 2^32⌋ for 0 ≤ n < 2^31, 0 ≤ m ≤ 2^32 (CUDA's __umulhi), exactly. */
export function umulhi(n: number, m: number): number {
  const mHigh = Math.floor(m / TWO_16);
  const mLow = m - mHigh * TWO_16;
  return Math.floor((n * mHigh + Math.floor((n * mLow) / TWO_16)) / TWO_16);
}

/** The device helper's quotient; `n` must be in [0, 2^31) (the helper's precondition), else a RangeError. */
export function fastQuotient(n: number, m: DivisorMagic): number {
  if (!Number.isInteger(n) || n < 0 || n >= TWO_31) throw new RangeError(`fast division: dividend ${n} is outside [0, 2^31)`);
  return Math.floor((umulhi(n, m.magic) + n) / 2 ** m.shift);
}

/**
 * The 32-bit words of a kernel's divisor parameter (`NvfDivisorMagic<N>`: magic, shift per
 * divisor, in the layout's order); `size(slot, dim)` is tensor parameter `slot`'s logical size
 * `dim` at this launch. Empty for a kernel without fast division.
 */
export function divisorWords(layout: ArgumentLayout, size: (slot: number, dim: number) => number): number[] {
  const out: number[] = [];
  for (const s of layout.divisors?.sources ?? []) {
    const m = divisorMagic(size(s.slot, s.dim));
    out.push(m.magic, m.shift);
  }
  return out;
}
