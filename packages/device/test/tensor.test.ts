import { HostTensor } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { Tensor, allocationSpan, storageSpan } from '../src/index.js';

describe('Tensor (host storage)', () => {
  it('wraps a typed array of the dtype without copying', () => {
    const data = new Float32Array([1, 2, 3, 4, 5, 6]);
    const t = Tensor.from(data, [2, 3], 'Float');
    expect(t.isDevice).toBe(false);
    expect(t.sizes).toEqual([2, 3]);
    expect(t.strides).toEqual([3, 1]);
    expect(t.toHost().data).toBe(data);
    expect(t.toArray()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reads every dtype in its natural JS form', () => {
    expect(Tensor.from(new BigInt64Array([1n, -2n]), [2], 'Int').toArray()).toEqual([1n, -2n]);
    expect(Tensor.from(new BigInt64Array([5n]), [1], 'Index').toArray()).toEqual([5n]);
    expect(Tensor.from(new Int32Array([7, -8]), [2], 'Int32').toArray()).toEqual([7, -8]);
    expect(Tensor.from(new Uint8Array([1, 0]), [2], 'Bool').toArray()).toEqual([1, 0]);
    expect(Tensor.from(new Uint16Array([0x3c00, 0xc000]), [2], 'Half').toArray()).toEqual([1, -2]);
    expect(Tensor.from(new Uint16Array([0x3f80]), [1], 'BFloat16').toArray()).toEqual([1]);
    expect(Tensor.from(new Float64Array([0.1]), [1], 'Double').toArray()).toEqual([0.1]);
  });

  it('converts plain arrays through the dtype', () => {
    expect(Tensor.from([1.5, 2], [2], 'Half').toHost().data).toEqual(new Uint16Array([0x3e00, 0x4000]));
    expect(Tensor.from([1, 2, 3], [3], 'Int').toArray()).toEqual([1n, 2n, 3n]);
  });

  it('rejects a storage class that does not match the dtype, or a wrong element count', () => {
    expect(() => Tensor.from(new Float64Array(2), [2], 'Float')).toThrow(/Float needs a Float32Array/);
    expect(() => Tensor.from(new Float32Array(5), [2, 3], 'Float')).toThrow(/5 elements/);
    expect(() => Tensor.from(new Float32Array(0), [-1], 'Float')).toThrow(RangeError);
  });

  it('keeps strides and offset of a HostTensor (transposed view)', () => {
    const base = new Float32Array([0, 1, 2, 3, 4, 5, 99]);
    const transposed = new HostTensor('Float', [3, 2], [1, 3], base, 0);
    const t = Tensor.fromHost(transposed);
    expect(t.strides).toEqual([1, 3]);
    expect(t.toArray()).toEqual([0, 3, 1, 4, 2, 5]);
    const shifted = Tensor.fromHost(new HostTensor('Float', [2], [2], base, 1));
    expect(shifted.toArray()).toEqual([1, 3]);
  });

  it('poison() fills host storage with 0xFF bytes (NaN for floats, -1 for ints)', () => {
    const f = Tensor.from(new Float32Array([1, 2]), [2], 'Float');
    f.poison();
    expect(f.toArray().every((v) => Number.isNaN(v))).toBe(true);
    const i = Tensor.from(new Int32Array([1, 2]), [2], 'Int32');
    i.poison();
    expect(i.toArray()).toEqual([-1, -1]);
  });

  it('refuses device-only queries and use after dispose', () => {
    const t = Tensor.from(new Float32Array(1), [1], 'Float');
    expect(() => t.dataPtr).toThrow(/not a device tensor/);
    expect(t.device).toBeUndefined();
    t.dispose();
    t.dispose();
    expect(() => t.toArray()).toThrow(/after dispose/);
  });

  it('computes the storage span that strides reach', () => {
    expect(storageSpan([2, 3], [3, 1])).toBe(6);
    expect(storageSpan([3, 2], [1, 3])).toBe(6);
    expect(storageSpan([4, 1], [1, 0])).toBe(4); // broadcast dim
    expect(storageSpan([2, 2], [4, 1])).toBe(6); // padded rows
    expect(storageSpan([0, 5], [5, 1])).toBe(0);
    expect(storageSpan([], [])).toBe(1);
    expect(() => storageSpan([2], [-1])).toThrow(/negative stride/);
  });

  it('allocates an expanded layout for its base, also where the expanded extent is 0', () => {
    // [30, 1] expanded to [30, 0] (a row sum's output expanded over an empty dim): the kernel
    // writes the 30 row values, so the allocation holds them though the tensor has no elements.
    expect(storageSpan([30, 0], [1, 0])).toBe(0);
    expect(allocationSpan([30, 0], [1, 0])).toBe(30);
    expect(Tensor.deviceLayout('Half', [30, 0], [1, 0]).bytes).toBe(60);
    expect(allocationSpan([30, 5], [1, 0])).toBe(30);
    // A dim of size 0 with a real stride still empties it (nothing to hold).
    expect(allocationSpan([0, 5], [5, 1])).toBe(0);
    expect(allocationSpan([30, 0], [0, 1])).toBe(0);
    expect(Tensor.deviceLayout('Float', [0, 5]).bytes).toBe(0);
  });
});
