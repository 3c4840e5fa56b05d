import { describe, expect, it } from 'vitest';
import { parameterLayout, packArguments, packArgumentsInto, parameterSizeAndAlign } from '../src/index.js';

describe('argument layout', () => {
  it('aligns each parameter to its own size, as the CUDA ABI does', () => {
    const layout = parameterLayout([
      { kind: 'scalar', dtype: 'Bool' },
      { kind: 'scalar', dtype: 'Float' },
      { kind: 'scalar', dtype: 'Half' },
      { kind: 'scalar', dtype: 'Double' },
      { kind: 'pointer' },
      { kind: 'scalar', dtype: 'Int32' },
    ]);
    expect(layout.slots.map((s) => [s.offset, s.size])).toEqual([
      [0, 1],
      [4, 4],
      [8, 2],
      [16, 8],
      [24, 8],
      [32, 4],
    ]);
    expect(layout.size).toBe(36);
  });

  it("lays out nvFuser's Tensor<T, N> as pointer + sizes[N] + strides[N]", () => {
    expect(parameterSizeAndAlign({ kind: 'tensor', rank: 2 })).toEqual({ size: 40, align: 8 });
    expect(parameterSizeAndAlign({ kind: 'tensor', rank: 0 })).toEqual({ size: 8, align: 8 });
    expect(parameterSizeAndAlign({ kind: 'tensor', rank: 3, indexType: 'Int32' })).toEqual({ size: 32, align: 8 });
    const layout = parameterLayout([
      { kind: 'scalar', dtype: 'Int32' },
      { kind: 'tensor', rank: 1 },
      { kind: 'tensor', rank: 3, indexType: 'Int32' },
    ]);
    expect(layout.slots.map((s) => s.offset)).toEqual([0, 8, 32]);
    expect(layout.size).toBe(64);
  });

  it('rejects a negative or fractional tensor rank', () => {
    expect(() => parameterLayout([{ kind: 'tensor', rank: -1 }])).toThrow(RangeError);
    expect(() => parameterLayout([{ kind: 'tensor', rank: 1.5 }])).toThrow(RangeError);
  });
});

describe('packArguments', () => {
  it('writes tensors, pointers and scalars little-endian at their offsets', () => {
    const layout = parameterLayout([
      { kind: 'tensor', rank: 2 },
      { kind: 'scalar', dtype: 'Float' },
      { kind: 'scalar', dtype: 'Half' },
      { kind: 'pointer' },
      { kind: 'scalar', dtype: 'Int' },
      { kind: 'scalar', dtype: 'Bool' },
    ]);
    const bytes = packArguments(layout, [
      { dataPtr: 0x7f00_1234_5678n, sizes: [3, 5], strides: [5, 1] },
      2.5,
      1,
      0xdead_beefn,
      -7n,
      true,
    ]);
    const view = new DataView(bytes.buffer);
    expect(bytes.length).toBe(layout.size);
    expect(view.getBigUint64(0, true)).toBe(0x7f00_1234_5678n);
    expect([8, 16, 24, 32].map((o) => view.getBigInt64(o, true))).toEqual([3n, 5n, 5n, 1n]);
    expect(view.getFloat32(40, true)).toBe(2.5);
    expect(view.getUint16(44, true)).toBe(0x3c00); // half 1.0
    expect(view.getBigUint64(48, true)).toBe(0xdead_beefn);
    expect(view.getBigInt64(56, true)).toBe(-7n);
    expect(view.getUint8(64)).toBe(1);
  });

  it('packs 32-bit index tensors with int32 sizes and strides', () => {
    const layout = parameterLayout([{ kind: 'tensor', rank: 1, indexType: 'Int32' }]);
    const view = new DataView(packArguments(layout, [{ dataPtr: 16n, sizes: [7], strides: [2] }]).buffer);
    expect([view.getInt32(8, true), view.getInt32(12, true)]).toEqual([7, 2]);
  });

  it('writes 64-bit sizes and strides as the int64 of the value across the 32-bit boundary and up to 2^53', () => {
    const values = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, 3 * 2 ** 40 + 7, Number.MAX_SAFE_INTEGER, -1, -(2 ** 32) - 3];
    const layout = parameterLayout([{ kind: 'tensor', rank: values.length }]);
    const view = new DataView(packArguments(layout, [{ dataPtr: 8n, sizes: values, strides: [...values].reverse() }]).buffer);
    const sizes = values.map((_, d) => view.getBigInt64(8 + 8 * d, true));
    const strides = values.map((_, d) => view.getBigInt64(8 + 8 * (values.length + d), true));
    expect(sizes).toEqual(values.map((v) => BigInt(v)));
    expect(strides).toEqual([...values].reverse().map((v) => BigInt(v)));
  });

  it('refuses a fractional size and a 32-bit index type overflow, naming the argument', () => {
    expect(() => packArguments(parameterLayout([{ kind: 'tensor', rank: 1 }]), [{ dataPtr: 8n, sizes: [1.5], strides: [1] }])).toThrow(/argument 0: tensor size or stride 1.5 is not an integer/);
    const narrow = parameterLayout([{ kind: 'tensor', rank: 1, indexType: 'Int32' }]);
    expect(() => packArguments(narrow, [{ dataPtr: 8n, sizes: [2 ** 31], strides: [1] }])).toThrow(/argument 0: 2147483648 does not fit the kernel's 32-bit index type/);
  });

  it('reports mismatched argument lists, ranks and kinds', () => {
    const layout = parameterLayout([{ kind: 'tensor', rank: 2 }, { kind: 'scalar', dtype: 'Int32' }]);
    expect(() => packArguments(layout, [1])).toThrow(/1 values for 2 parameters/);
    expect(() => packArguments(layout, [{ dataPtr: 0n, sizes: [1], strides: [1] }, 1])).toThrow(/rank 1/);
    expect(() => packArguments(layout, [3, 1])).toThrow(/expected a tensor/);
    expect(() => packArguments(layout, [{ dataPtr: 0n, sizes: [1, 1], strides: [1, 1] }, 2 ** 31])).toThrow(RangeError);
    expect(() => packArguments(parameterLayout([{ kind: 'pointer' }]), [-1n])).toThrow(/pointer/);
  });
});

describe('packArgumentsInto (one buffer reused per kernel)', () => {
  const layout = parameterLayout([{ kind: 'tensor', rank: 2 }, { kind: 'scalar', dtype: 'Int32' }, { kind: 'pointer' }]);
  const a = [{ dataPtr: 0x1000n, sizes: [3, 4], strides: [4, 1] }, 7, 0x2000n] as const;
  const b = [{ dataPtr: 0x9900n, sizes: [5, 6], strides: [1, 5] }, -2, 0x4400n] as const;

  it('writes what packArguments writes, and a second pack overwrites every slot', () => {
    const bytes = new Uint8Array(layout.size);
    const view = new DataView(bytes.buffer);
    packArgumentsInto(layout, a, view);
    expect(bytes).toEqual(packArguments(layout, a));
    packArgumentsInto(layout, b, view);
    expect(bytes).toEqual(packArguments(layout, b));
  });

  it('refuses a buffer smaller than the layout and a wrong argument count', () => {
    expect(() => packArgumentsInto(layout, a, new DataView(new ArrayBuffer(layout.size - 1)))).toThrow(/byte buffer for/);
    expect(() => packArgumentsInto(layout, a.slice(0, 2), new DataView(new ArrayBuffer(layout.size)))).toThrow(/2 values for 3 parameters/);
  });
});
