import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { EvaluationError, HostTensor, type BinaryOpType } from '../src/index.js';
import { inputLike, runFusion } from './eval-helpers.js';

const I32_EDGE = [-2147483648, 2147483647, 0, -1, 1, 2, -2, 7, -7, 31, 33];

function randomInt32(n: number, nonZero = false): number[] {
  return Array.from({ length: n }, () => {
    const v = Math.random() < 0.4 ? (I32_EDGE[Math.floor(Math.random() * I32_EDGE.length)] as number) : Math.floor((Math.random() - 0.5) * 2000);
    return nonZero && v === 0 ? 3 : v;
  });
}

/** Exact reference semantics in BigInt, independent of the evaluator. */
const wrap32 = (v: bigint): bigint => BigInt.asIntN(32, v);
const truncDiv = (a: bigint, b: bigint): bigint => a / b; // BigInt division truncates
const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return q * b !== a && (a < 0n) !== (b < 0n) ? q - 1n : q;
};
const REF: Partial<Record<BinaryOpType, (a: bigint, b: bigint) => bigint | boolean>> = {
  add: (a, b) => wrap32(a + b),
  sub: (a, b) => wrap32(a - b),
  mul: (a, b) => wrap32(a * b),
  div: (a, b) => wrap32(truncDiv(a, b)),
  floordiv: (a, b) => wrap32(floorDiv(a, b)),
  remainder: (a, b) => wrap32(a - floorDiv(a, b) * b),
  fmod: (a, b) => wrap32(a - truncDiv(a, b) * b),
  bitwise_and: (a, b) => a & b,
  bitwise_or: (a, b) => a | b,
  bitwise_xor: (a, b) => a ^ b,
  minimum: (a, b) => (a < b ? a : b),
  maximum: (a, b) => (a > b ? a : b),
  lt: (a, b) => a < b,
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  ge: (a, b) => a >= b,
};

describe('Int32 binary ops against exact BigInt math', () => {
  for (const [op, ref] of Object.entries(REF) as [BinaryOpType, (a: bigint, b: bigint) => bigint | boolean][]) {
    it(op, () => {
      const a = randomInt32(200);
      const b = randomInt32(200, true);
      const ta = HostTensor.fromValues('Int32', [200], a);
      const tb = HostTensor.fromValues('Int32', [200], b);
      const [y] = runFusion((f) => {
        f.addOutput(ops.binaryOp(op, inputLike(f, ta), inputLike(f, tb)));
      }, [ta, tb]) as [HostTensor];
      for (let i = 0; i < 200; i += 1) {
        const want = ref(BigInt(a[i] as number), BigInt(b[i] as number));
        const got = y.get(i);
        if (typeof want === 'boolean') expect(got).toBe(want);
        else expect(BigInt(got as number)).toBe(want);
      }
    });
  }

  it('shifts wrap to 32 bits; amounts ≥ 32 give 0 (left) or the sign (right); logical shift is unsigned 32-bit', () => {
    const a = randomInt32(100);
    const s = Array.from({ length: 100 }, () => Math.floor(Math.random() * 40));
    const ta = HostTensor.fromValues('Int32', [100], a);
    const ts = HostTensor.fromValues('Int32', [100], s);
    const outs = runFusion((f) => {
      const x = inputLike(f, ta);
      const k = inputLike(f, ts);
      for (const op of ['bitwise_left_shift', 'bitwise_right_shift', 'logical_right_shift'] as const) f.addOutput(ops.binaryOp(op, x, k));
    }, [ta, ts]) as HostTensor[];
    for (let i = 0; i < 100; i += 1) {
      const x = BigInt(a[i] as number);
      const k = BigInt(s[i] as number);
      expect(BigInt((outs[0] as HostTensor).get(i) as number)).toBe(k >= 32n ? 0n : wrap32(x << k));
      expect(BigInt((outs[1] as HostTensor).get(i) as number)).toBe(k >= 32n ? (x < 0n ? -1n : 0n) : x >> k);
      expect(BigInt((outs[2] as HostTensor).get(i) as number)).toBe(k >= 32n ? 0n : wrap32(BigInt.asUintN(32, x) >> k));
    }
  });

  it('integer pow wraps like repeated multiplication; negative exponents are an error', () => {
    const base = HostTensor.fromValues('Int32', [4], [3, -2, 7, 2]);
    const exp = HostTensor.fromValues('Int32', [4], [5, 31, 40, 1000000]);
    const [y] = runFusion((f) => {
      f.addOutput(ops.pow(inputLike(f, base), inputLike(f, exp)));
    }, [base, exp]) as [HostTensor];
    const want = [3n ** 5n, (-2n) ** 31n, 7n ** 40n, 2n ** 1000000n].map(wrap32);
    expect([0, 1, 2, 3].map((i) => BigInt(y.get(i) as number))).toEqual(want);
    expect(() =>
      runFusion((f) => {
        f.addOutput(ops.pow(inputLike(f, base.contiguous()), inputLike(f, HostTensor.fromValues('Int32', [4], [1, 1, -1, 1]))));
      }, [base, HostTensor.fromValues('Int32', [4], [1, 1, -1, 1])]),
    ).toThrow(/negative integer powers/);
  });

  it('Int64 keeps full precision and wraps at 2^63', () => {
    const a = HostTensor.fromValues('Int', [3], [9007199254740993n, 9223372036854775807n, -9223372036854775808n]);
    const b = HostTensor.fromValues('Int', [3], [2n, 1n, -1n]);
    const [sum, quo] = runFusion((f) => {
      const x = inputLike(f, a);
      const y = inputLike(f, b);
      f.addOutput(ops.add(x, y));
      f.addOutput(ops.div(x, y));
    }, [a, b]) as [HostTensor, HostTensor];
    expect([sum.get(0), sum.get(1), sum.get(2)]).toEqual([9007199254740995n, -9223372036854775808n, 9223372036854775807n]);
    expect(quo.get(2)).toBe(-9223372036854775808n); // INT64_MIN / -1 wraps
  });

  it('integer division by zero names the expression', () => {
    for (const op of ['div', 'remainder', 'fmod', 'floordiv'] as const) {
      const a = HostTensor.fromValues('Int32', [2], [5, 6]);
      const b = HostTensor.fromValues('Int32', [2], [1, 0]);
      expect(() => runFusion((f) => f.addOutput(ops.binaryOp(op, inputLike(f, a), inputLike(f, b))), [a, b])).toThrow(EvaluationError);
      expect(() => runFusion((f) => f.addOutput(ops.binaryOp(op, inputLike(f, a), inputLike(f, b))), [a, b])).toThrow(
        new RegExp(`${op} producing T2.*by zero`),
      );
    }
  });

  it('float → int casts truncate toward zero and saturate (CUDA cvt.rzi), NaN → 0; int → float rounds', () => {
    const x = HostTensor.fromValues('Double', [7], [2.9, -2.9, -0.5, 1e10, -1e10, NaN, Infinity]);
    const [i32, i64, b] = runFusion((f) => {
      const t = inputLike(f, x);
      f.addOutput(ops.cast(t, 'Int32'));
      f.addOutput(ops.cast(t, 'Int'));
      f.addOutput(ops.cast(t, 'Bool'));
    }, [x]) as [HostTensor, HostTensor, HostTensor];
    expect(i32.toNumbers()).toEqual([2, -2, 0, 2147483647, -2147483648, 0, 2147483647]);
    expect(i64.get(3)).toBe(10000000000n);
    expect(i64.get(6)).toBe(9223372036854775807n);
    expect(b.toNumbers()).toEqual([1, 1, 1, 1, 1, 1, 1]);
    const big = HostTensor.fromValues('Int', [1], [16777217n]);
    const [f32] = runFusion((f) => f.addOutput(ops.cast(inputLike(f, big), 'Float')), [big]) as [HostTensor];
    expect(f32.getNumber(0)).toBe(16777216); // tie to even in float32
  });
});

describe('float floor division and remainder follow torch', () => {
  it('floordiv from fmod, remainder with the divisor sign, fmod with the dividend sign', () => {
    const a = HostTensor.fromValues('Double', [6], [1, 7.5, -7.5, 7.5, 0, -0.0]);
    const b = HostTensor.fromValues('Double', [6], [0.1, -2, 2, 0, -3, 5]);
    const [fd, rem, fm] = runFusion((f) => {
      const x = inputLike(f, a);
      const y = inputLike(f, b);
      f.addOutput(ops.binaryOp('floordiv', x, y));
      f.addOutput(ops.remainder(x, y));
      f.addOutput(ops.fmod(x, y));
    }, [a, b]) as [HostTensor, HostTensor, HostTensor];
    const fdv = fd.toNumbers();
    expect(fdv[0]).toBe(9); // torch.floor_divide(1., .1) == 9 (fmod(1, .1) ≈ .09999)
    expect(fdv.slice(1, 4)).toEqual([-4, -4, Infinity]);
    expect(Object.is(fdv[4], -0)).toBe(true);
    expect(rem.toNumbers().slice(1, 3)).toEqual([-0.5, 0.5]);
    expect(fm.toNumbers().slice(1, 3)).toEqual([1.5, -1.5]);
    expect(Number.isNaN(rem.toNumbers()[3])).toBe(true);
  });

  it('pow follows C: pow(1, NaN) = 1, pow(NaN, 0) = 1, pow(-1, inf) = 1', () => {
    const a = HostTensor.fromValues('Double', [4], [1, NaN, -1, 2]);
    const b = HostTensor.fromValues('Double', [4], [NaN, 0, Infinity, 0.5]);
    const [y] = runFusion((f) => f.addOutput(ops.pow(inputLike(f, a), inputLike(f, b))), [a, b]) as [HostTensor];
    expect(y.toNumbers()).toEqual([1, 1, 1, Math.SQRT2]);
  });
});
