// UInt64 in the reference evaluator against PyTorch (test-fixtures/torch-values/uint64.json,
// written by tools/torch-values/uint64_values.py) for what PyTorch's CPU build implements on
// uint64: mul (wrapping), bitwise and/or/xor, eq, sum (wrapping), casts to Float (one rounding),
// Double, Int and from in-range floats and from Int (wrapping). Then what PyTorch CPU lacks, as
// C++ uint64_t arithmetic: add/sub/neg wrap modulo 2^64, unsigned comparisons, shifts, max/min
// reductions (init 0 / 2^64 − 1), saturating float → UInt64 (CUDA's cvt), and the promotion rules.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  add,
  bitwiseAnd,
  bitwiseOr,
  bitwiseRightShift,
  bitwiseXor,
  cast,
  castTo,
  eq,
  evaluate,
  Fusion,
  HostTensor,
  lt,
  makeTensor,
  max,
  min,
  mul,
  neg,
  resultType,
  sub,
  sum,
  type DataType,
  type TensorView,
} from '../src/index.js';

interface Fixture {
  torch: string;
  a: string[];
  b: string[];
  mul: string[];
  and: string[];
  or: string[];
  xor: string[];
  eq: boolean[];
  sum: string[];
  toFloat: number[];
  toDouble: number[];
  toInt64: string[];
  floats64: number[];
  floats64ToUInt64: string[];
  floats32: number[];
  floats32ToUInt64: string[];
  int64s: string[];
  int64sToUInt64: string[];
}
const fx = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/uint64.json', import.meta.url)), 'utf8')) as Fixture;

const big = (xs: readonly string[]): bigint[] => xs.map((s) => BigInt(s));

function run(build: (f: Fusion, a: TensorView, b: TensorView) => TensorView[], a: HostTensor, b: HostTensor): HostTensor[] {
  const f = new Fusion();
  const ta = makeTensor(f, { shape: [-1], dtype: a.dtype });
  const tb = makeTensor(f, { shape: [-1], dtype: b.dtype });
  f.addInput(ta);
  f.addInput(tb);
  for (const o of build(f, ta, tb)) f.addOutput(o);
  return evaluate(f, [a, b]) as HostTensor[];
}

const A = new HostTensor('UInt64', [fx.a.length], [1], BigUint64Array.from(big(fx.a)));
const B = new HostTensor('UInt64', [fx.b.length], [1], BigUint64Array.from(big(fx.b)));
const values = (t: HostTensor): (number | bigint | boolean)[] => Array.from({ length: t.numel }, (_, i) => t.get(i) as number | bigint | boolean);

describe(`UInt64 against PyTorch ${fx.torch}`, () => {
  it('mul wraps, bitwise and/or/xor, eq, sum wraps', () => {
    const [m, and, or, xor, e, s] = run((_f, a, b) => [mul(a, b), bitwiseAnd(a, b), bitwiseOr(a, b), bitwiseXor(a, b), eq(a, b), sum(a, [0])], A, B) as HostTensor[];
    expect(m?.dtype).toBe('UInt64');
    expect(m?.data).toBeInstanceOf(BigUint64Array);
    expect(values(m as HostTensor)).toEqual(big(fx.mul));
    expect(values(and as HostTensor)).toEqual(big(fx.and));
    expect(values(or as HostTensor)).toEqual(big(fx.or));
    expect(values(xor as HostTensor)).toEqual(big(fx.xor));
    expect(values(e as HostTensor)).toEqual(fx.eq);
    expect(values(s as HostTensor)).toEqual(big(fx.sum));
  });

  it('casts to Float (rounded once), Double and Int', () => {
    const [f32, f64, i64] = run((_f, a) => [cast(a, 'Float'), cast(a, 'Double'), cast(a, 'Int')], A, B) as HostTensor[];
    expect(values(f32 as HostTensor)).toEqual(fx.toFloat);
    expect(values(f64 as HostTensor)).toEqual(fx.toDouble);
    expect(values(i64 as HostTensor)).toEqual(big(fx.toInt64));
  });

  it('casts in-range floats and Int values to UInt64', () => {
    const d = HostTensor.fromValues('Double', [fx.floats64.length], fx.floats64);
    const s = HostTensor.fromValues('Float', [fx.floats32.length], fx.floats32);
    const [fromD] = run((_f, a) => [cast(a, 'UInt64')], d, d) as HostTensor[];
    const [fromS] = run((_f, a) => [cast(a, 'UInt64')], s, s) as HostTensor[];
    expect(values(fromD as HostTensor)).toEqual(big(fx.floats64ToUInt64));
    expect(values(fromS as HostTensor)).toEqual(big(fx.floats32ToUInt64));
    const i = new HostTensor('Int', [fx.int64s.length], [1], BigInt64Array.from(big(fx.int64s)));
    const [fromI] = run((_f, a) => [cast(a, 'UInt64')], i, i) as HostTensor[];
    expect(values(fromI as HostTensor)).toEqual(big(fx.int64sToUInt64));
  });
});

describe('UInt64 as C++ uint64_t where PyTorch CPU has no kernel', () => {
  const M = 2n ** 64n;
  const a = [0n, 1n, 2n ** 63n, M - 1n, 5n];
  const b = [1n, 2n, 2n ** 63n + 1n, 1n, 3n];
  const ta = new HostTensor('UInt64', [5], [1], BigUint64Array.from(a));
  const tb = new HostTensor('UInt64', [5], [1], BigUint64Array.from(b));

  it('add, sub, neg and a negative Python scalar wrap modulo 2^64', () => {
    const [s, d, n, m1] = run((_f, x, y) => [add(x, y), sub(x, y), neg(x), add(x, -1)], ta, tb) as HostTensor[];
    expect(values(s as HostTensor)).toEqual(a.map((x, i) => (x + (b[i] as bigint)) % M));
    expect(values(d as HostTensor)).toEqual(a.map((x, i) => (((x - (b[i] as bigint)) % M) + M) % M));
    expect(values(n as HostTensor)).toEqual(a.map((x) => (M - x) % M));
    expect(values(m1 as HostTensor)).toEqual(a.map((x) => (x + M - 1n) % M));
    expect(m1?.dtype).toBe('UInt64');
  });

  it('compares unsigned, shifts logically, reduces max/min from 0 / 2^64 − 1', () => {
    const [l, r, mx, mn] = run((_f, x, y) => [lt(x, y), bitwiseRightShift(x, 1), max(x, [0]), min(x, [0])], ta, tb) as HostTensor[];
    expect(values(l as HostTensor)).toEqual([true, true, true, false, false]);
    expect(values(r as HostTensor)).toEqual(a.map((x) => x >> 1n));
    expect(values(mx as HostTensor)).toEqual([M - 1n]);
    expect(values(mn as HostTensor)).toEqual([0n]);
  });

  it('float → UInt64 saturates as CUDA does (negative and NaN → 0, too large → 2^64 − 1)', () => {
    expect(castTo(-1.5, 'UInt64')).toBe(0n);
    expect(castTo(NaN, 'UInt64')).toBe(0n);
    expect(castTo(1e20, 'UInt64')).toBe(M - 1n);
    expect(castTo(Infinity, 'UInt64')).toBe(M - 1n);
    expect(castTo(2 ** 63, 'UInt64')).toBe(2n ** 63n);
  });

  it('promotes as PyTorch: with floats to the float, with other integers and Bool an error', () => {
    const t = (dtype: DataType) => ({ dtype, isTensor: true });
    expect(resultType([t('UInt64'), t('Float')])).toBe('Float');
    expect(resultType([t('UInt64'), t('BFloat16')])).toBe('BFloat16');
    expect(resultType([t('UInt64'), { dtype: 'Int', isTensor: false }])).toBe('UInt64');
    expect(resultType([t('UInt64'), { dtype: 'Double', isTensor: false }])).toBe('Float');
    for (const other of ['Int', 'Int32', 'Bool'] as const) {
      expect(() => resultType([t('UInt64'), t(other)])).toThrow(/UInt64 with .* is not supported/);
    }
  });
});
