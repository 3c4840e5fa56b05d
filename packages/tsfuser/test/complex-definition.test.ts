// Complex numbers through FusionDefinition: DataType.ComplexFloat / torch.complex64 tensors,
// complex scalars (`Complex` in TypeScript; `1.5+2.0j`, `2j`, `complex(1.0, float("inf"))` in
// python), fd.ops.complex / real / imag and the elementwise ops, printed python (nvFuser's
// `re+imj` form) importing back to the same records, printed TypeScript, execution on the
// reference backend with interleaved (re, im) host data, and one clear error for an op PyTorch
// refuses on complex.
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { Complex, DataType, FusionCache, FusionDefinition, hashRecords, importPythonDefinition, printTypeScriptDefinition } from '../src/index.js';

function build(): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const z = fd.defineTensor(2, DataType.ComplexFloat);
    const re = fd.defineTensor(2, DataType.Float);
    const c = fd.defineScalar(new Complex(1.5, -2));
    const w = fd.ops.mul(fd.ops.add(z, c), fd.ops.complex(re, re));
    fd.addOutput(w);
    fd.addOutput(fd.ops.abs(w));
    fd.addOutput(fd.ops.real(w));
    fd.addOutput(fd.ops.imag(w));
    fd.addOutput(fd.ops.sum(w, [1]));
  }, { cache: new FusionCache() });
}

describe('complex numbers in FusionDefinition', () => {
  it("prints nvFuser's complex literal and imports back to the same records", () => {
    const fd = build();
    const py = fd.printPython();
    expect(py).toMatch(/fd\.define_tensor\(shape=\[-1, -1\], contiguity=\[\w+, \w+\], dtype=DataType\.ComplexFloat/);
    expect(py).toMatch(/fd\.define_scalar\(1\.5\+-2\.0j, dtype=DataType\.ComplexDouble\)/);
    expect(py).toMatch(/fd\.ops\.complex\(T1, T1\)/);
    expect(py).toMatch(/fd\.ops\.real\(T\d+\)/);
    const again = importPythonDefinition(py, { cache: new FusionCache() });
    expect(hashRecords(again.records())).toBe(hashRecords(fd.records()));
    const ts = printTypeScriptDefinition(fd.records(), { module: true });
    expect(ts).toMatch(/import \{ Complex, DataType, FusionDefinition \} from 'tsfuser'/);
    expect(ts).toMatch(/fd\.defineScalar\(new Complex\(1\.5, -2\), DataType\.ComplexDouble\)/);
  });

  it('reads python complex literals, complex() and torch.complex128', () => {
    const text = [
      'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
      '    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=torch.complex128, is_cpu=False)',
      '    S1 = fd.define_scalar(2j, dtype=DataType.ComplexDouble)',
      '    S2 = fd.define_scalar(complex(1.0, float("inf")), dtype=DataType.ComplexDouble)',
      '    S3 = fd.define_scalar(-1-0.5j)',
      '    T4 = fd.ops.add(fd.ops.mul(T0, S1), S3)',
      '    T5 = fd.ops.eq(T0, S2)',
      '    fd.add_output(T4)',
      '    fd.add_output(T5)',
    ].join('\n');
    const fd = importPythonDefinition(text, { cache: new FusionCache() });
    const py = fd.printPython();
    expect(py).toMatch(/fd\.define_scalar\(0\.0\+2\.0j, dtype=DataType\.ComplexDouble\)/);
    expect(py).toMatch(/fd\.define_scalar\(complex\(1\.0, float\("inf"\)\), dtype=DataType\.ComplexDouble\)/);
    expect(py).toMatch(/fd\.define_scalar\(-1\.0\+-0\.5j, dtype=DataType\.ComplexDouble\)/);
    expect(hashRecords(importPythonDefinition(py, { cache: new FusionCache() }).records())).toBe(hashRecords(fd.records()));
  });

  it('executes on the reference backend with interleaved (re, im) data', async () => {
    const fd = build();
    // z = [[1+1j, 2-1j], [0+0j, -1+3j]], re = [[1, 2], [0.5, -1]]
    const z = Tensor.fromComplexInterleaved(Float32Array.from([1, 1, 2, -1, 0, 0, -1, 3]), [2, 2], 'ComplexFloat');
    const re = Tensor.from(Float32Array.from([1, 2, 0.5, -1]), [2, 2], 'Float');
    const [w, a, r, i, s] = await fd.execute([z, re]);
    // (z + 1.5-2j) · (re + re·j), by hand
    const expected = [
      [2.5, -1, 1, 1],
      [3.5, -3, 2, 2],
      [1.5, -2, 0.5, 0.5],
      [0.5, 1, -1, -1],
    ].flatMap(([p, q, u, v]) => [(p as number) * (u as number) - (q as number) * (v as number), (p as number) * (v as number) + (q as number) * (u as number)]);
    expect(w?.dtype).toBe('ComplexFloat');
    expect(Array.from(w?.toComplexInterleaved() ?? [])).toEqual(expected);
    expect(a?.dtype).toBe('Float');
    expect(a?.toArray()).toEqual([0, 1, 2, 3].map((k) => Math.fround(Math.hypot(expected[2 * k] as number, expected[2 * k + 1] as number))));
    expect(r?.toArray()).toEqual([0, 1, 2, 3].map((k) => expected[2 * k]));
    expect(i?.toArray()).toEqual([0, 1, 2, 3].map((k) => expected[2 * k + 1]));
    expect(Array.from(s?.toComplexInterleaved() ?? [])).toEqual([
      (expected[0] as number) + (expected[2] as number), (expected[1] as number) + (expected[3] as number),
      (expected[4] as number) + (expected[6] as number), (expected[5] as number) + (expected[7] as number),
    ]);
  });

  it('refuses an op PyTorch does not define on complex with one clear error', () => {
    expect(() =>
      FusionDefinition.build((fd) => {
        const z = fd.defineTensor(1, DataType.ComplexFloat);
        fd.addOutput(fd.ops.lt(z, z));
      }, { cache: new FusionCache() }),
    ).toThrow(/lt: not supported for complex dtype ComplexFloat/);
    expect(() =>
      FusionDefinition.build((fd) => {
        const z = fd.defineTensor(1, DataType.ComplexDouble);
        fd.addOutput(fd.ops.max(z, [0]));
      }, { cache: new FusionCache() }),
    ).toThrow(/max: not supported for complex dtype ComplexDouble/);
  });
});
