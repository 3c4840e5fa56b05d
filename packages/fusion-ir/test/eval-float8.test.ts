// fp8 conversions bit-exact against PyTorch (test-fixtures/torch-values/float8.json, written by
// tools/torch-values/float8_values.py): every fp8 value, its float32 neighbours, ties, subnormals,
// overflow thresholds, ±0, ±inf, NaN and random float32 patterns, for e4m3fn, e5m2 and e8m0fnu.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  castTo,
  float8E4M3FnBitsToNumber,
  Fusion,
  makeTensor,
  randLike,
  resultType,
  float8E5M2BitsToNumber,
  float8E8M0FnuBitsToNumber,
  HostTensor,
  numberToFloat8E4M3FnBits,
  numberToFloat8E5M2Bits,
  numberToFloat8E8M0FnuBits,
  type DataType,
} from '../src/index.js';

interface Fixture {
  torch: string;
  float32Bits: string;
  encoded: Record<Float8, string>;
  decoded: Record<Float8, string>;
  doubles: number[];
  doubleEncoded: Record<Float8, string>;
}
type Float8 = 'Float8_e4m3fn' | 'Float8_e5m2' | 'Float8_e8m0fnu';

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/float8.json', import.meta.url)), 'utf8')) as Fixture;

const ENCODE: Record<Float8, (x: number) => number> = {
  Float8_e4m3fn: numberToFloat8E4M3FnBits,
  Float8_e5m2: numberToFloat8E5M2Bits,
  Float8_e8m0fnu: numberToFloat8E8M0FnuBits,
};
const DECODE: Record<Float8, (b: number) => number> = {
  Float8_e4m3fn: float8E4M3FnBitsToNumber,
  Float8_e5m2: float8E5M2BitsToNumber,
  Float8_e8m0fnu: float8E8M0FnuBitsToNumber,
};
const FORMATS = Object.keys(ENCODE) as Float8[];

function chunks(hex: string, width: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < hex.length; i += width) out.push(parseInt(hex.slice(i, i + width), 16));
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function fromBits(bits: number): number {
  u32[0] = bits;
  return f32[0] as number;
}
function bitsOf(x: number): number {
  f32[0] = x;
  return u32[0] as number;
}

const inputs = chunks(fixture.float32Bits, 8);

describe(`fp8 encoding bit-exact against PyTorch ${fixture.torch}`, () => {
  for (const format of FORMATS) {
    it(`${format}: ${inputs.length} float32 inputs`, () => {
      const expected = chunks(fixture.encoded[format], 2);
      expect(expected.length).toBe(inputs.length);
      const mismatches: string[] = [];
      inputs.forEach((bits, i) => {
        const x = fromBits(bits);
        let got = ENCODE[format](x);
        let want = expected[i] as number;
        // JS NaN carries no reliable sign: compare NaN results without the sign bit.
        if (x !== x) {
          got &= 0x7f;
          want &= 0x7f;
        }
        if (got !== want) mismatches.push(`${bits.toString(16)} (${x}) -> ${got.toString(16)}, torch ${want.toString(16)}`);
      });
      expect(mismatches.slice(0, 10)).toEqual([]);
    });

    it(`${format}: double inputs go through float32 as PyTorch's .to()`, () => {
      const expected = chunks(fixture.doubleEncoded[format], 2);
      const got = fixture.doubles.map((d) => ENCODE[format](d));
      expect(got).toEqual(expected);
    });

    it(`${format}: decodes all 256 patterns as PyTorch`, () => {
      const expected = chunks(fixture.decoded[format], 8);
      for (let b = 0; b < 256; b += 1) {
        const v = DECODE[format](b);
        const want = fromBits(expected[b] as number);
        if (want !== want) expect(v).toBeNaN();
        else expect(bitsOf(v).toString(16)).toBe((expected[b] as number).toString(16));
      }
    });
  }
});

describe('fp8 storage and casts in the reference evaluator', () => {
  it('HostTensor stores bytes and reads back the rounded values', () => {
    const t = HostTensor.fromValues('Float8_e4m3fn', [4], [1.0625, 500, -0.001953125, 448]);
    expect(t.data).toBeInstanceOf(Uint8Array);
    expect([...(t.data as Uint8Array)]).toEqual([0x38, 0x7e, 0x81, 0x7e]);
    expect(t.toNumbers()).toEqual([1, 448, -0.001953125, 448]);
  });

  it('castTo rounds to each format', () => {
    const cases: [DataType, number, number][] = [
      ['Float8_e4m3fn', 1.0625, 1],
      ['Float8_e4m3fn', 1.1875, 1.25],
      ['Float8_e5m2', 70000, Infinity],
      ['Float8_e5m2', -1.125, -1],
      ['Float8_e8m0fnu', 3, 4],
      ['Float8_e8m0fnu', -0.75, 1],
    ];
    for (const [dtype, x, want] of cases) expect(castTo(x, dtype)).toBe(want);
    expect(castTo(Infinity, 'Float8_e4m3fn')).toBe(448);
    expect(castTo(NaN, 'Float8_e4m3fn')).toBeNaN();
  });
});

describe('fp8 promotion and refusals', () => {
  it('promotes as PyTorch: fp8 with a scalar or a lower-tier tensor keeps its tier rules; with another tensor dtype an error', () => {
    const t = (dtype: DataType) => ({ dtype, isTensor: true });
    expect(resultType([t('Float8_e4m3fn'), { dtype: 'Double', isTensor: false }])).toBe('Float8_e4m3fn');
    expect(resultType([t('Float8_e5m2'), { dtype: 'Int', isTensor: false }])).toBe('Float8_e5m2');
    expect(resultType([t('Float8_e4m3fn'), { dtype: 'Double', isTensor: true, isZeroDim: true }])).toBe('Float8_e4m3fn');
    expect(resultType([t('Float'), { dtype: 'Float8_e5m2', isTensor: true, isZeroDim: true }])).toBe('Float');
    expect(resultType([t('Float8_e8m0fnu'), t('Float8_e8m0fnu')])).toBe('Float8_e8m0fnu');
    expect(() => resultType([t('Float8_e4m3fn'), t('Float8_e5m2')])).toThrow(/Float8_e4m3fn with Float8_e5m2 is not supported/);
    expect(() => resultType([t('Float8_e4m3fn'), t('Float')])).toThrow(/cast one operand explicitly/);
    expect(() => resultType([t('Int'), { dtype: 'Float8_e5m2', isTensor: true, isZeroDim: true }])).toThrow(/Int with Float8_e5m2/);
  });

  it('refuses random numbers in fp8', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1], dtype: 'Float8_e4m3fn' });
    expect(() => randLike(x)).toThrow(/not generated in Float8_e4m3fn/);
  });
});
