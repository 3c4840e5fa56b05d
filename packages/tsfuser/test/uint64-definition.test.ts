// UInt64 through FusionDefinition: nvFuser's name (DataType.UInt64, torch.uint64), printed python
// that imports back to the same records, PyTorch's promotion rules (an error with another
// integer tensor dtype), and wrapping arithmetic on the reference backend with BigUint64Array data.
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition, hashRecords, importPythonDefinition } from '../src/index.js';

describe('UInt64 in FusionDefinition', () => {
  it('prints DataType.UInt64 and imports back to the same records', () => {
    const fd = FusionDefinition.build((fd) => {
      const t = fd.defineTensor(1, DataType.UInt64);
      fd.addOutput(fd.ops.mul(t, t));
      fd.addOutput(fd.ops.cast(t, DataType.Double));
    }, { cache: new FusionCache() });
    const py = fd.printPython();
    expect(py).toMatch(/dtype=DataType\.UInt64/);
    const again = importPythonDefinition(py, { cache: new FusionCache() });
    expect(hashRecords(again.records())).toBe(hashRecords(fd.records()));
  });

  it('refuses UInt64 with an Int tensor (PyTorch does not promote them)', () => {
    const text = [
      'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
      '    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=torch.uint64, is_cpu=False)',
      '    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)',
      '    T2 = fd.ops.add(T0, T1)',
      '    fd.add_output(T2)',
    ].join('\n');
    expect(() => importPythonDefinition(text, { cache: new FusionCache() })).toThrow(/UInt64 with Int is not supported/);
  });

  it('wraps modulo 2^64 on the reference backend (BigUint64Array in and out)', async () => {
    const fd = FusionDefinition.build((fd) => {
      const a = fd.defineTensor(1, DataType.UInt64);
      const b = fd.defineTensor(1, DataType.UInt64);
      fd.addOutput(fd.ops.sub(a, b));
      fd.addOutput(fd.ops.mul(a, b));
      fd.addOutput(fd.ops.lt(a, b));
    }, { cache: new FusionCache() });
    const M = 2n ** 64n;
    const a = BigUint64Array.from([0n, 5n, M - 1n, 2n ** 63n]);
    const b = BigUint64Array.from([1n, 3n, 2n, 2n ** 63n + 1n]);
    const [d, p, l] = await fd.execute([Tensor.from(a, [4], 'UInt64'), Tensor.from(b, [4], 'UInt64')]);
    expect(d?.toHost().data).toBeInstanceOf(BigUint64Array);
    expect(d?.toArray()).toEqual([M - 1n, 2n, M - 3n, M - 1n]);
    expect(p?.toArray()).toEqual([0n, 15n, M - 2n, 2n ** 63n]);
    expect(l?.toArray()).toEqual([1, 0, 0, 1]);
  });
});
