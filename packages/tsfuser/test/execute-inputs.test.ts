// execute()'s inputs (issue 21): scalar values checked against their dtype with the input index
// named, the inputs list itself checked, and the reference backend's allocation limit.
import { describe, expect, it } from 'vitest';
import { EvaluationError, HostTensor, allocateStorage } from '@tsfuser/fusion-ir';
import { AllocationLimitError, DataType, FusionCache, FusionDefinition, InputListError, InputMismatchError, Tensor, importPythonScript } from '../src/index.js';

/** T0 Float[-1], S1 Double, S2 Int, S3 Bool, S4 Int32: out = T0 * S1 + S2 + S4. */
function definition(): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const t0 = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: DataType.Float });
    const s1 = fd.defineScalar(null, DataType.Double);
    const s2 = fd.defineScalar(null, DataType.Int);
    fd.defineScalar(null, DataType.Bool);
    const s4 = fd.defineScalar(null, DataType.Int32);
    fd.addOutput(fd.ops.add(fd.ops.add(fd.ops.mul(t0, s1), s2), s4));
  }, { cache: new FusionCache() });
}

const ones = (): Tensor => Tensor.from(new Float32Array([1, 1]), [2], 'Float');

async function run(inputs: unknown[]): Promise<number[]> {
  const [out] = await definition().execute(inputs as never, { backend: 'reference' });
  return out?.toHost().toNumbers() ?? [];
}

async function rejection(inputs: unknown): Promise<Error> {
  try {
    await definition().execute(inputs as never, { backend: 'reference' });
  } catch (e) {
    if (e instanceof Error) return e;
  }
  throw new Error(`expected execute to refuse ${String(inputs)}`);
}

describe('scalar inputs are checked against the definition dtype', () => {
  const intCases: [string, unknown, RegExp][] = [
    ['a fraction', 2.5, /is not an integer/],
    ['1e30', 1e30, /outside the int64 range/],
    ['NaN', NaN, /is not a number/],
    ['Infinity', Infinity, /is infinite/],
    ['2^53 + 1 as a number', 2 ** 53 + 2, /past 2\^53.*pass a bigint/],
    ['a bigint past int64', 2n ** 63n, /outside the int64 range/],
    ['a boolean', true, /is not an integer/],
    ['a string', '3', /got the string "3"/],
    ['null', null, /got null/],
  ];
  it.each(intCases)('an Int scalar refuses %s, naming input 2', async (_what, value, message) => {
    const e = await rejection([ones(), 1.5, value, true, 0]);
    expect(e).toBeInstanceOf(InputMismatchError);
    expect((e as InputMismatchError).inputIndex).toBe(2);
    expect(e.message).toMatch(/^input 2: S2 expects a Int scalar, got /);
    expect(e.message).toMatch(message);
  });

  it('an Int scalar accepts safe integers and exact bigints', async () => {
    expect(await run([ones(), 2, 3, true, 4])).toEqual([9, 9]);
    expect(await run([ones(), 2, 3n, true, 4])).toEqual([9, 9]);
    // 2^53 + 1 exactly: accepted as a bigint (a Float output rounds it, as PyTorch would).
    expect(await run([ones(), 0, 2n ** 53n + 1n, true, 0])).toEqual([2 ** 53, 2 ** 53]);
  });

  it('a Bool scalar refuses 7 and accepts true, false, 0 and 1', async () => {
    const e = await rejection([ones(), 1, 0, 7, 0]);
    expect(e.message).toBe('input 3: S3 expects a Bool scalar, got the number 7, which is not a boolean (true, false, 0 or 1)');
    for (const ok of [true, false, 0, 1]) expect(await run([ones(), 1, 0, ok, 0])).toEqual([1, 1]);
  });

  it('an Int32 scalar refuses 2^31', async () => {
    const e = await rejection([ones(), 1, 0, true, 2 ** 31]);
    expect(e.message).toMatch(/^input 4: S4 expects a Int32 scalar, got the number 2147483648, which is outside the int32 range/);
  });

  it('a Double scalar accepts NaN and ±Inf and refuses non-numbers', async () => {
    expect(await run([ones(), Infinity, 0, true, 0])).toEqual([Infinity, Infinity]);
    expect(await run([ones(), -Infinity, 0, true, 0])).toEqual([-Infinity, -Infinity]);
    expect((await run([ones(), NaN, 0, true, 0])).every(Number.isNaN)).toBe(true);
    expect((await rejection([ones(), true, 0, true, 0])).message).toMatch(/^input 1: S1 expects a Double scalar, got the boolean true, which is not a number/);
  });
});

describe('the inputs list', () => {
  it.each([
    ['null', null, /got null/],
    ['undefined', undefined, /got undefined/],
    ['an object', {}, /got an object/],
    ['a tensor', ones(), /got a Float tensor of sizes \[2\]/],
    ['a string', 'x', /got the string "x"/],
  ])('execute(%s) is one InputListError', async (_what, value, message) => {
    const e = await rejection(value);
    expect(e).toBeInstanceOf(InputListError);
    expect(e.message).toMatch(/^execute: inputs must be an array of 5 values \(T0: Float\[-1\]; S1: Double scalar; S2: Int scalar; S3: Bool scalar; S4: Int32 scalar\)/);
    expect(e.message).toMatch(message);
  });

  it('a wrong length names the first missing or extra input', async () => {
    expect((await rejection([ones()])).message).toMatch(/^input 1: missing \(S1: Double scalar\)/);
    expect((await rejection([ones(), 1, 2, true, 3, 4])).message).toMatch(/^input 5: is extra/);
    // A hole in a sparse array is a missing value at its index, not a TypeError.
    expect((await rejection([, 1, 2, true, 3])).message).toMatch(/^input 0: T0 expects a Float tensor, got undefined/);
  });
});

describe('the reference backend working-set limit', () => {
  it('refuses inputs whose float64 copies pass the limit, with the size and the input index', async () => {
    const big = Tensor.fromHost(HostTensor.empty('Float', [300]));
    const limits = { maxElements: 1000, maxTotalBytes: 2000 };
    let error: unknown;
    try {
      await definition().execute([big, 1, 0, true, 0], { backend: 'reference', limits });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AllocationLimitError);
    expect((error as AllocationLimitError).inputIndex).toBe(0);
    expect((error as Error).message).toMatch(/^input 0: the reference backend's copy of input 0 needs 2.3 KiB \(300 elements of Float, 8 bytes each on the reference backend\).*more than the limit of 2.0 KiB/);
    const [out] = await definition().execute([Tensor.fromHost(HostTensor.empty('Float', [200])), 1, 0, true, 0], { backend: 'reference', limits });
    expect(out?.sizes).toEqual([200]);
  });

  it('refuses a tensor past the per-tensor element limit', async () => {
    const e = await definition()
      .execute([Tensor.fromHost(HostTensor.empty('Float', [11])), 1, 0, true, 0], { backend: 'reference', limits: { maxElements: 10, maxTotalBytes: 1e9 } })
      .catch((x: unknown) => x);
    expect((e as Error).message).toMatch(/^input 0: .* needs 11 elements \(44 bytes of Float\), more than the limit of 10 elements per tensor/);
  });
});

describe('input dims the fusion maps together', () => {
  const pair = (): FusionDefinition =>
    FusionDefinition.build((fd) => {
      const t0 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: DataType.Float });
      const t1 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: DataType.Float });
      fd.addOutput(fd.ops.add(t0, t1));
    }, { cache: new FusionCache() });
  const t = (rows: number, cols: number): Tensor => Tensor.fromHost(HostTensor.empty('Float', [rows, cols]));

  it('must agree in size, named by both inputs', async () => {
    const e = await pair()
      .execute([t(3, 2), t(4, 2)], { backend: 'reference' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputMismatchError);
    expect((e as Error).message).toBe('input 1: T1 dim 0 has size 4, but input 0 (T0) dim 0, the same dim of the fusion, has size 3');
    const [out] = await pair().execute([t(3, 2), t(3, 2)], { backend: 'reference' });
    expect(out?.sizes).toEqual([3, 2]);
  });

  it('are checked on every execute of one definition (the dim groups are computed once, the sizes each call)', async () => {
    const fd = pair();
    const [ok] = await fd.execute([t(3, 2), t(3, 2)], { backend: 'reference' });
    expect(ok?.sizes).toEqual([3, 2]);
    const e = await fd.execute([t(3, 2), t(3, 5)], { backend: 'reference' }).catch((x: unknown) => x);
    expect((e as Error).message).toBe('input 1: T1 dim 1 has size 5, but input 0 (T0) dim 1, the same dim of the fusion, has size 2');
    const [again] = await fd.execute([t(7, 1), t(7, 1)], { backend: 'reference' });
    expect(again?.sizes).toEqual([7, 1]);
  });

  it('a symbolic dim given size 1 is not a broadcast (fuzz case seed 1040203764)', async () => {
    // Before: "EvaluationError: add producing T2: operand 1 has sizes [5, 2], which do not broadcast".
    const e = await pair()
      .execute([t(1, 2), t(5, 2)], { backend: 'reference' })
      .catch((x: unknown) => x);
    expect((e as Error).message).toBe('input 1: T1 dim 0 has size 5, but input 0 (T0) dim 0, the same dim of the fusion, has size 1');
  });
});

describe('tensors the reference evaluator would make', () => {
  const broadcast = (): FusionDefinition =>
    importPythonScript(
      `def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    T2 = fd.ops.broadcast_in_dim(T0, shape=[S1, 3], broadcast_dims=[1])
    fd.add_output(T2)
`,
      { cache: new FusionCache() },
    ).definition;
  const t0 = (): Tensor => Tensor.from(new Float32Array([1, 2, 3]), [3], 'Float');

  it('are sized from the inputs before evaluation: a broadcast to 2^40 rows is refused at once', async () => {
    const started = Date.now();
    const e = await broadcast()
      .execute([t0(), 2 ** 40], { backend: 'reference' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AllocationLimitError);
    expect((e as Error).message).toBe(
      'the reference backend: T2 of sizes [1099511627776, 3] needs 3298534883328 elements (12.0 TiB of Float), more than the limit of 2147483647 elements per tensor',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a negative size from a scalar is an EvaluationError, not a RangeError', async () => {
    const e = await broadcast()
      .execute([t0(), -1], { backend: 'reference' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(EvaluationError);
    const [out] = await broadcast().execute([t0(), 2], { backend: 'reference' });
    expect(out?.toHost().toNumbers()).toEqual([1, 2, 3, 1, 2, 3]);
  });
});

describe("fusion-ir's allocateStorage", () => {
  it.each([-1, 2.5, NaN, 2 ** 32 + 1, 2 ** 60])('refuses %s elements with an EvaluationError, not a RangeError', (n) => {
    expect(() => allocateStorage('Float', n)).toThrow(EvaluationError);
    expect(() => allocateStorage('Float', n)).toThrow(/cannot allocate a Float tensor of/);
  });

  it('still allocates empty and small storage', () => {
    expect(allocateStorage('Int', 0)).toHaveLength(0);
    expect(allocateStorage('Half', 3)).toHaveLength(3);
  });
});
