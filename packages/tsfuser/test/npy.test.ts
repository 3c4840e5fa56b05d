import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HostTensor, type DataType } from '@tsfuser/fusion-ir';
import { readNpy, writeNpy, NpyError } from '../src/io/npy.js';

function header(descr: string, fortran: boolean, shape: string, major = 1): Uint8Array {
  let h = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shape}, }`;
  const pre = major === 1 ? 10 : 12;
  h += ' '.repeat((64 - ((pre + h.length + 1) % 64)) % 64) + '\n';
  const out = new Uint8Array(pre + h.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, h.length, true);
  else view.setUint32(8, h.length, true);
  for (let i = 0; i < h.length; i += 1) out[pre + i] = h.charCodeAt(i);
  return out;
}

function concat(a: Uint8Array, b: ArrayBufferView): Uint8Array {
  const out = new Uint8Array(a.length + b.byteLength);
  out.set(a);
  out.set(new Uint8Array(b.buffer, b.byteOffset, b.byteLength), a.length);
  return out;
}

describe('.npy', () => {
  const dtypes: DataType[] = ['Float', 'Double', 'Half', 'BFloat16', 'Int32', 'Int', 'Bool'];
  it.each(dtypes)('round-trips %s tensors bit-exactly', (dtype) => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }), fc.integer(), (shape, seed) => {
        const t = HostTensor.empty(dtype, shape);
        for (let i = 0; i < t.numel; i += 1) t.setFlat(i, dtype === 'Bool' ? (seed + i) % 2 === 0 : ((seed + i * 7919) % 1000) / 8);
        const back = readNpy(writeNpy(t), dtype);
        expect(back.dtype).toBe(dtype);
        expect(back.sizes).toEqual(shape);
        expect(Array.from(back.data as ArrayLike<number | bigint>)).toEqual(Array.from(t.data as ArrayLike<number | bigint>));
      }),
      { numRuns: 30 },
    );
  });

  it('writes 64-byte aligned version 1.0 headers', () => {
    const bytes = writeNpy(HostTensor.fromValues('Float', [3], [1, 2, 3]));
    const headerLen = new DataView(bytes.buffer).getUint16(8, true);
    expect((10 + headerLen) % 64).toBe(0);
    expect(new TextDecoder().decode(bytes.subarray(10, 10 + headerLen))).toMatch(/'descr': '<f4', 'fortran_order': False, 'shape': \(3,\)/);
  });

  it('reads Fortran order and version 2 headers', () => {
    // 2x3 Fortran order: memory holds columns [a00, a10, a01, a11, a02, a12].
    const data = new Float64Array([0, 10, 1, 11, 2, 12]);
    const t = readNpy(concat(header('<f8', true, '(2, 3)', 2), data));
    expect(t.sizes).toEqual([2, 3]);
    expect(t.toNumbers()).toEqual([0, 1, 2, 10, 11, 12]);
  });

  it('rejects big-endian and truncated files', () => {
    expect(() => readNpy(concat(header('>f4', false, '(1,)'), new Float32Array(1)))).toThrow(/big-endian/);
    expect(() => readNpy(header('<f4', false, '(4,)'))).toThrow(NpyError);
  });
});
