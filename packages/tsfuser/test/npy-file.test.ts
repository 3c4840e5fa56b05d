// .npy files on disk, streamed (io/npy-file.ts), and the header checks NumPy makes
// (io/npy-header.ts). The chunking is exercised with chunk sizes that do not divide the data
// (a 2 GiB file would be the same loop with 64 MiB chunks); the header rules are NumPy's
// format.read_array_header: exactly the keys descr, fortran_order and shape.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostTensor, type DataType } from '@tsfuser/fusion-ir';
import { readNpy, writeNpy, NpyError } from '../src/io/npy.js';
import { NpyFileError, readNpyFile, writeNpyFile } from '../src/io/npy-file.js';
import { parseNpyHeader } from '../src/io/npy-header.js';

const dir = mkdtempSync(join(tmpdir(), 'tsfuser-npy-file-'));

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomTensor(dtype: DataType, sizes: number[], seed: number): HostTensor {
  const next = seeded(seed);
  const n = sizes.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => {
    const r = next();
    if (dtype === 'Bool') return r < 0.5;
    if (dtype === 'Int') return BigInt(Math.floor(r * 1e6) - 500000);
    if (dtype === 'Int32') return Math.floor(r * 1e6) - 500000;
    return r * 8 - 4;
  });
  return HostTensor.fromValues(dtype, sizes, values);
}

function npyWithHeader(dict: string, data: Uint8Array = new Uint8Array(0)): Uint8Array {
  let h = dict;
  h += ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + h.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, h.length, true);
  for (let i = 0; i < h.length; i += 1) out[10 + i] = h.charCodeAt(i);
  out.set(data, 10 + h.length);
  return out;
}

describe('streamed .npy files', () => {
  const dtypes: DataType[] = ['Float', 'Double', 'Half', 'Int32', 'Int', 'Bool'];
  it.each(dtypes)('%s: written and read in chunks of 1, 7 and 4096 bytes, bit-exact and byte-identical to writeNpy', (dtype) => {
    const seed = 1000 + dtypes.indexOf(dtype);
    const t = randomTensor(dtype, [3, 5, 7], seed);
    for (const chunk of [1, 7, 4096]) {
      const path = join(dir, `${dtype}-${chunk}.npy`);
      writeNpyFile(path, t, chunk);
      expect(new Uint8Array(readFileSync(path)), `seed ${seed} chunk ${chunk}`).toEqual(writeNpy(t));
      const back = readNpyFile(path, dtype, undefined, chunk);
      expect(back.sizes).toEqual([3, 5, 7]);
      expect(back.toNumbers(), `seed ${seed} chunk ${chunk}`).toEqual(t.toNumbers());
    }
  });

  it('a non-dense (transposed) tensor is written in C order', () => {
    const t = randomTensor('Float', [4, 6], 77);
    const transposed = new HostTensor('Float', [6, 4], [1, 6], t.data);
    const path = join(dir, 'transposed.npy');
    writeNpyFile(path, transposed, 5);
    expect(readNpyFile(path, 'Float', undefined, 3).toNumbers()).toEqual(transposed.contiguous().toNumbers());
  });

  it('a Fortran-order file read in chunks gives C order', () => {
    const data = new Float64Array([1, 4, 2, 5, 3, 6]);
    const path = join(dir, 'fortran.npy');
    writeFileSync(path, npyWithHeader("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", new Uint8Array(data.buffer)));
    expect(readNpyFile(path, undefined, undefined, 5).toNumbers()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a file shorter than its header claims: one NpyError, before any storage is allocated', () => {
    const path = join(dir, 'truncated.npy');
    writeFileSync(path, npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }", new Uint8Array(8)));
    expect(() => readNpyFile(path)).toThrow(NpyError);
    writeFileSync(path, npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", new Uint8Array(8)));
    expect(() => readNpyFile(path)).toThrow(/truncated data: shape \(3\) needs 12 bytes, the file has 8/);
  });

  it('file-system failures are NpyFileErrors with the code', () => {
    expect(() => readNpyFile(join(dir, 'missing.npy'))).toThrow(NpyFileError);
    expect(() => readNpyFile(dir)).toThrow(/EISDIR/);
    expect(() => writeNpyFile(join(dir, 'no', 'such', 'dir.npy'), randomTensor('Float', [2], 1))).toThrow(/cannot write .*ENOENT/);
  });
});

describe('.npy header checks (NumPy read_array_header)', () => {
  it('an extra key is refused as NumPy refuses it, whatever literal it holds (a number, None: NumPy reads them)', () => {
    for (const value of ['1', '-2.5e3', 'None', "'x'"]) {
      const bytes = npyWithHeader(`{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': ${value}, }`, new Uint8Array(4));
      // Before: an int value was "malformed header … expected a string, a bool or a tuple".
      expect(() => readNpy(bytes), value).toThrow(/Header does not contain the correct keys: \['descr', 'fortran_order', 'shape', 'extra'\]/);
    }
  });

  it.each([
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': (1,), }", /Header does not contain the correct keys: \['descr', 'fortran_order', 'shape', 'extra'\]/],
    ["{'descr': '<f4', 'shape': (1,), }", /Header does not contain the correct keys: \['descr', 'shape'\]/],
    ["{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", /fortran_order is not a valid bool/],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': 1, }", /shape is not valid/],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': [1], }", /malformed header/],
    ["{'descr': (1,), 'fortran_order': False, 'shape': (1,), }", /descr is not a valid dtype descriptor/],
    ["{'descr': '<f4', 'fortran_order': 'False', 'shape': (1,), }", /fortran_order is not a valid bool/],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", /shape is not valid/],
    ["{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", /duplicate key 'descr'/],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", /text after the dict/],
  ])('%s is refused', (dict, message) => {
    expect(() => parseNpyHeader(dict)).toThrow(message);
  });

  it('the forms NumPy writes parse: any key order, double quotes, no trailing comma, the empty shape', () => {
    expect(parseNpyHeader('{"shape": (2, 3), "fortran_order": True, "descr": "<i8"}')).toEqual({ descr: '<i8', fortranOrder: true, shape: [2, 3] });
    expect(parseNpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (), }").shape).toEqual([]);
    expect(parseNpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (5L,), }").shape).toEqual([5]);
  });

  it('a header longer than NumPy’s max_header_size (10000) is refused', () => {
    const big = npyWithHeader(`{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }${' '.repeat(10100)}`, new Uint8Array(4));
    // version 1 stores the header length in 16 bits: 10100+ fits
    expect(() => readNpy(big)).toThrow(/max_header_size/);
  });
});
