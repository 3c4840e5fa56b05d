// Fast division's host half (src/divisor-magic.ts): PyTorch's IntDivider magic numbers must give
// ⌊n / d⌋ through the device helper's `(umulhi(n, m) + n) >> s` for every divisor 1 ≤ d < 2^31 and
// dividend 0 ≤ n < 2^31. Checked against BigInt arithmetic (the magic, umulhi) and plain
// division (the quotient) for edge divisors (1, 2, 3, 7, every 2^k, 2^k ± 1, 2^31 − 1, …) and
// random ones, each with edge dividends (0, 1, d − 1, d, d + 1, multiples of d ± 1, 2^31 − 1, …)
// and random ones; the seed is printed (TSFUSER_SEED replays it).
import { describe, expect, it } from 'vitest';
import { seededRandom, testSeed } from '@tsfuser/test-support';
import { argumentLayout, divisorMagic, divisorWords, fastQuotient, umulhi } from '../src/index.js';

const TWO_31 = 2 ** 31;

/** The magic by its definition, in BigInt: s = ⌈log2 d⌉, m = ⌊2^32 (2^s − d) / d⌋ + 1. */
function bigMagic(d: number): { magic: number; shift: number } {
  let shift = 0;
  while (2 ** shift < d) shift += 1;
  return { magic: Number(((1n << 32n) * ((1n << BigInt(shift)) - BigInt(d))) / BigInt(d) + 1n), shift };
}

function edgeDivisors(): number[] {
  const out = new Set<number>([1, 2, 3, 5, 6, 7, 9, 10, 11, 12, 13, 24, 25, 100, 127, 129, 255, 257, 1000, 4095, 4097, 65535, 65537, 1e6, 1e9, TWO_31 - 1, TWO_31 - 2, 1431655765]);
  for (let k = 0; k < 31; k += 1) for (const d of [2 ** k - 1, 2 ** k, 2 ** k + 1]) if (d >= 1 && d < TWO_31) out.add(d);
  return [...out];
}

function edgeDividends(d: number): number[] {
  const out = [0, 1, 2, d - 1, d, d + 1, 2 * d - 1, 2 * d, 2 * d + 1, TWO_31 - 1, TWO_31 - 2, TWO_31 - d, Math.floor((TWO_31 - 1) / d) * d, Math.floor((TWO_31 - 1) / d) * d - 1];
  for (let k = 0; k < 31; k += 1) out.push(2 ** k - 1, 2 ** k);
  return out.filter((n) => Number.isInteger(n) && n >= 0 && n < TWO_31);
}

describe('divisorMagic / fastQuotient', () => {
  const seed = testSeed();
  const random = seededRandom(seed);
  const randomBelow = (n: number): number => Math.floor(random() * n);

  it(`equal PyTorch's IntDivider definition (BigInt) and give ⌊n / d⌋ for edge and random divisors and dividends (TSFUSER_SEED=${seed})`, () => {
    const divisors = [...edgeDivisors(), ...Array.from({ length: 3000 }, () => 1 + randomBelow(TWO_31 - 1)), ...Array.from({ length: 1000 }, () => 1 + randomBelow(5000))];
    let checked = 0;
    for (const d of divisors) {
      const m = divisorMagic(d);
      expect(m, `divisor ${d} (TSFUSER_SEED=${seed})`).toEqual(bigMagic(d));
      expect(m.magic).toBeGreaterThan(0);
      expect(m.magic).toBeLessThan(2 ** 32);
      for (const n of [...edgeDividends(d), ...Array.from({ length: 40 }, () => randomBelow(TWO_31)), ...Array.from({ length: 20 }, () => randomBelow(Math.min(TWO_31, 4 * d)))]) {
        const q = fastQuotient(n, m);
        if (q !== Math.floor(n / d)) throw new Error(`${n} / ${d}: fast ${q}, plain ${Math.floor(n / d)} (magic ${m.magic}, shift ${m.shift}; TSFUSER_SEED=${seed})`);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(200_000);
  });

  it('divides every dividend below 2^16 exactly by every divisor below 300', () => {
    for (let d = 1; d < 300; d += 1) {
      const m = divisorMagic(d);
      for (let n = 0; n < 2 ** 16; n += 1) if (fastQuotient(n, m) !== Math.floor(n / d)) throw new Error(`${n} / ${d}`);
    }
  });

  it(`umulhi is the high word of the 64-bit product (TSFUSER_SEED=${seed})`, () => {
    for (let i = 0; i < 20000; i += 1) {
      const n = i < 4 ? [0, 1, TWO_31 - 1, TWO_31 - 2][i] as number : randomBelow(TWO_31);
      const m = i % 7 === 0 ? 2 ** 32 - 1 - randomBelow(3) : randomBelow(2 ** 32);
      expect(umulhi(n, m)).toBe(Number((BigInt(n) * BigInt(m)) >> 32n));
    }
  });

  it('maps an empty extent to the identity pair and refuses what 32 bits cannot divide', () => {
    expect(divisorMagic(0)).toEqual({ magic: 1, shift: 0 });
    expect(divisorMagic(1)).toEqual({ magic: 1, shift: 0 });
    expect(divisorMagic(4096)).toEqual({ magic: 1, shift: 12 });
    expect(() => divisorMagic(TWO_31)).toThrow(/below 2\^31/);
    expect(() => divisorMagic(2.5)).toThrow(/not an integer/);
    expect(() => fastQuotient(-1, divisorMagic(3))).toThrow(/outside \[0, 2\^31\)/);
    expect(() => fastQuotient(TWO_31, divisorMagic(3))).toThrow(/outside \[0, 2\^31\)/);
  });

  it('divisorWords gives (magic, shift) per divisor of the layout, from the sizes its sources name', () => {
    const params = [{ kind: 'tensor' as const, name: 'T0', dtype: 'Float' as const, rank: 3, role: 'input' as const, position: 0 }, { kind: 'tensor' as const, name: 'T1', dtype: 'Float' as const, rank: 3, role: 'output' as const, position: 0 }];
    const layout = argumentLayout(params, 'Int32', [
      { name: 'i2_div', extent: 'i2', param: 0, dim: 2 },
      { name: 'i1_div', extent: 'i1', param: 1, dim: 1 },
    ]);
    expect(layout.divisors).toEqual({ name: 'nvf_divisors', offset: 64, size: 16, align: 4, sources: [{ slot: 0, dim: 2, name: 'i2_div' }, { slot: 1, dim: 1, name: 'i1_div' }] });
    expect(layout.size).toBe(80);
    const sizes = [[4, 5, 7], [4, 12, 7]];
    const words = divisorWords(layout, (slot, dim) => sizes[slot]?.[dim] as number);
    expect(words).toEqual([divisorMagic(7).magic, divisorMagic(7).shift, divisorMagic(12).magic, divisorMagic(12).shift]);
    expect(divisorWords(argumentLayout(params, 'Int32'), () => 1)).toEqual([]);
  });
});
