import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bfloat16BitsToNumber,
  halfBitsToNumber,
  numberToBFloat16Bits,
  numberToHalfBits,
  roundToHalf,
  HostTensor,
} from '../src/index.js';

describe('half rounding (round to nearest, ties to even) against hand-checked bit patterns', () => {
  const cases: [string, number, number][] = [
    ['one', 1, 0x3c00],
    ['max half', 65504, 0x7bff],
    ['just below the overflow tie', 65519.99, 0x7bff],
    ['overflow tie rounds to inf (even)', 65520, 0x7c00],
    ['-0 keeps its sign', -0, 0x8000],
    ['smallest subnormal', 2 ** -24, 0x0001],
    ['half the smallest subnormal ties to 0', 2 ** -25, 0x0000],
    ['1.5 subnormal units tie to 2', 1.5 * 2 ** -24, 0x0002],
    ['2.5 subnormal units tie to 2', 2.5 * 2 ** -24, 0x0002],
    ['smallest normal', 2 ** -14, 0x0400],
    ['largest subnormal rounding up to the smallest normal', 2 ** -14 - 2 ** -26, 0x0400],
    ['1 + half ulp ties down to even', 1 + 2 ** -11, 0x3c00],
    ['1 + 3 half ulps ties up to even', 1 + 3 * 2 ** -11, 0x3c02],
    ['just above a tie (float32 would round twice)', 1 + 2 ** -11 + 2 ** -40, 0x3c01],
    ['negative', -2.5, 0xc100],
    ['inf', Infinity, 0x7c00],
    ['-inf', -Infinity, 0xfc00],
    ['NaN', NaN, 0x7e00],
    ['tiny underflows to 0', 1e-10, 0x0000],
  ];
  for (const [name, value, bits] of cases) {
    it(name, () => expect(numberToHalfBits(value).toString(16)).toBe(bits.toString(16)));
  }

  it('decodes patterns', () => {
    expect(halfBitsToNumber(0x0001)).toBe(2 ** -24);
    expect(halfBitsToNumber(0x7bff)).toBe(65504);
    expect(halfBitsToNumber(0xfc00)).toBe(-Infinity);
    expect(Object.is(halfBitsToNumber(0x8000), -0)).toBe(true);
    expect(halfBitsToNumber(0x7e00)).toBeNaN();
  });
});

describe('bfloat16 rounding against hand-checked bit patterns', () => {
  const cases: [string, number, number][] = [
    ['one', 1, 0x3f80],
    ['1 + half ulp ties down to even', 1 + 2 ** -8, 0x3f80],
    ['1 + 3 half ulps ties up to even', 1 + 3 * 2 ** -8, 0x3f82],
    ['just above a tie (float32 would round twice)', 1 + 2 ** -8 + 2 ** -30, 0x3f81],
    ['max bf16', (2 - 2 ** -7) * 2 ** 127, 0x7f7f],
    ['overflow tie rounds to inf', (2 - 2 ** -8) * 2 ** 127, 0x7f80],
    ['below the overflow tie', (2 - 2 ** -8) * 2 ** 127 - 2 ** 100, 0x7f7f],
    ['beyond float32 range', 1e39, 0x7f80],
    ['smallest subnormal', 2 ** -133, 0x0001],
    ['half the smallest subnormal ties to 0', 2 ** -134, 0x0000],
    ['3 half units tie to 2', 3 * 2 ** -134, 0x0002],
    ['-0', -0, 0x8000],
    ['NaN', NaN, 0x7fc0],
    ['-inf', -Infinity, 0xff80],
  ];
  for (const [name, value, bits] of cases) {
    it(name, () => expect(numberToBFloat16Bits(value).toString(16)).toBe(bits.toString(16)));
  }
  it('decodes patterns', () => {
    expect(bfloat16BitsToNumber(0x3f80)).toBe(1);
    expect(bfloat16BitsToNumber(0x0001)).toBe(2 ** -133);
    expect(bfloat16BitsToNumber(0xff80)).toBe(-Infinity);
  });
});

/** The chosen pattern is a nearest representable value, and on a tie the even one. */
function checkNearest(x: number, bits: number, decode: (b: number) => number, maxFinite: number): void {
  const v = decode(bits);
  if (!Number.isFinite(v)) {
    expect(Math.abs(x)).toBeGreaterThanOrEqual(maxFinite);
    return;
  }
  const d = Math.abs(x - v);
  const mag = bits & 0x7fff;
  const sign = bits & 0x8000;
  for (const nb of [mag - 1, mag + 1]) {
    if (nb < 0) continue;
    const w = decode(sign | nb);
    if (!Number.isFinite(w)) continue;
    const e = Math.abs(x - w);
    expect(e).toBeGreaterThanOrEqual(d);
    if (e === d) expect(mag % 2).toBe(0);
  }
}

describe('rounding properties (fast-check, fresh values each run)', () => {
  it('half: nearest, ties to even, sign kept', () => {
    fc.assert(
      fc.property(fc.double({ min: -70000, max: 70000, noNaN: true }), (x) => {
        const b = numberToHalfBits(x);
        checkNearest(x, b, halfBitsToNumber, 65520);
        if (x !== 0) expect(b & 0x8000 ? -1 : 1).toBe(Math.sign(x));
      }),
      { numRuns: 3000 },
    );
  });

  it('half: exact ties between neighbours go to the even pattern', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7bfe }), (b) => {
        const mid = (halfBitsToNumber(b) + halfBitsToNumber(b + 1)) / 2;
        expect(numberToHalfBits(mid)).toBe(b % 2 === 0 ? b : b + 1);
        expect(roundToHalf(-mid)).toBe(-halfBitsToNumber(b % 2 === 0 ? b : b + 1));
      }),
      { numRuns: 3000 },
    );
  });

  it('bfloat16: nearest, ties to even', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        checkNearest(x, numberToBFloat16Bits(x), bfloat16BitsToNumber, (2 - 2 ** -8) * 2 ** 127);
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7f7e }), (b) => {
        const mid = (bfloat16BitsToNumber(b) + bfloat16BitsToNumber(b + 1)) / 2;
        expect(numberToBFloat16Bits(mid)).toBe(b % 2 === 0 ? b : b + 1);
      }),
      { numRuns: 3000 },
    );
  });

  it('every finite half and bf16 pattern round-trips', () => {
    for (let b = 0; b < 0x10000; b += 1) {
      const h = halfBitsToNumber(b);
      if (!Number.isNaN(h)) expect(numberToHalfBits(h)).toBe(b);
      const f = bfloat16BitsToNumber(b);
      if (!Number.isNaN(f)) expect(numberToBFloat16Bits(f)).toBe(b);
    }
  });
});

describe('HostTensor element readers', () => {
  it('toNumbers and toFloat64Array agree on dense and strided Half/BFloat16/Float tensors', () => {
    for (const dtype of ['Half', 'BFloat16', 'Float'] as const) {
      const values = Array.from({ length: 12 }, () => (Math.random() - 0.5) * 1e3);
      const dense = HostTensor.fromValues(dtype, [3, 4], values);
      expect(Array.from(dense.toFloat64Array())).toEqual(dense.toNumbers());
      // The transpose (strides [1, 4]) reads the storage out of order.
      const strided = new HostTensor(dtype, [4, 3], [1, 4], dense.data);
      const t = strided.toNumbers();
      expect(Array.from(strided.toFloat64Array())).toEqual(t);
      for (let i = 0; i < 4; i += 1) for (let j = 0; j < 3; j += 1) expect(t[i * 3 + j]).toBe(dense.getNumber(j * 4 + i));
      if (dtype === 'Half') expect(dense.toNumbers()).toEqual(values.map((v) => roundToHalf(v)));
    }
  });
});
