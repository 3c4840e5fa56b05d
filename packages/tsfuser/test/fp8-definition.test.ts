// fp8 through FusionDefinition: nvFuser's names (DataType.Float8_e4m3fn, torch.float8_e5m2),
// printed python that imports back to the same records, PyTorch's promotion rule (fp8 mixes
// with no other tensor dtype), and the usual fp8 scaling recipe (amax of bf16, scale, cast to
// e4m3) on the reference backend, checked byte for byte against an independent computation.
import { numberToFloat8E4M3FnBits, roundToBFloat16 } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition, hashRecords, importPythonDefinition } from '../src/index.js';
import { seededRandom } from '@tsfuser/test-support';

describe('fp8 data types in FusionDefinition', () => {
  it('prints DataType.Float8_* and imports back to the same records', () => {
    const fd = FusionDefinition.build((fd) => {
      const t = fd.defineTensor(2, DataType.Float8_e4m3fn);
      const f = fd.ops.cast(t, DataType.Float);
      fd.addOutput(fd.ops.cast(fd.ops.mul(f, 2.0), DataType.Float8_e5m2));
      fd.addOutput(fd.ops.cast(f, DataType.Float8_e8m0fnu));
    }, { cache: new FusionCache() });
    const py = fd.printPython();
    expect(py).toMatch(/dtype=DataType\.Float8_e4m3fn/);
    expect(py).toMatch(/fd\.ops\.cast\(T\d+, dtype=DataType\.Float8_e5m2\)/);
    expect(py).toMatch(/DataType\.Float8_e8m0fnu/);
    const again = importPythonDefinition(py, { cache: new FusionCache() });
    expect(hashRecords(again.records())).toBe(hashRecords(fd.records()));
  });

  it('accepts torch.float8_* dtypes and refuses fp8 promotion with another tensor dtype', () => {
    const text = [
      'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
      '    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=torch.float8_e5m2, is_cpu=False)',
      '    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)',
      '    T2 = fd.ops.add(T0, T1)',
      '    fd.add_output(T2)',
    ].join('\n');
    expect(() => importPythonDefinition(text, { cache: new FusionCache() })).toThrow(/Float8_e5m2 with Float is not supported/);
  });

  it('an fp8 tensor with a Python scalar stays fp8 (computed in float)', async () => {
    const fd = FusionDefinition.build((fd) => {
      const t = fd.defineTensor(1, DataType.Float8_e4m3fn);
      fd.addOutput(fd.ops.mul(t, 3.0));
    }, { cache: new FusionCache() });
    const x = Tensor.from(Uint8Array.from([0x38, 0x40, 0x7e, 0x01]), [4], 'Float8_e4m3fn'); // 1, 2, 448, 2^-9
    const [y] = await fd.execute([x]);
    expect(y?.dtype).toBe('Float8_e4m3fn');
    expect(y?.toArray()).toEqual([3, 6, 448, 3 * 2 ** -9]);
  });

  it('scales bf16 by 448 / amax and casts to e4m3 byte for byte (seed printed)', async () => {
    const seed = 2426;
    console.log(`fp8 scaling recipe seed ${seed}`);
    const rand = seededRandom(seed);
    const rows = 8;
    const cols = 64;
    const values = Array.from({ length: rows * cols }, () => roundToBFloat16((rand() - 0.5) * 20));
    const fd = FusionDefinition.build((fd) => {
      const x = fd.defineTensor(2, DataType.BFloat16);
      const xf = fd.ops.cast(x, DataType.Float);
      const amax = fd.ops.max(fd.ops.abs(xf), [0, 1]);
      const scale = fd.ops.div(448.0, amax);
      fd.addOutput(fd.ops.cast(fd.ops.mul(xf, scale), DataType.Float8_e4m3fn));
      fd.addOutput(fd.ops.reciprocal(scale));
    }, { cache: new FusionCache() });
    const x = Tensor.from(values, [rows, cols], 'BFloat16');
    const [q, scaleInv] = await fd.execute([x]);
    const amax = Math.max(...values.map(Math.abs));
    const scale = Math.fround(448 / amax);
    const expected = values.map((v) => numberToFloat8E4M3FnBits(Math.fround(v * scale)));
    expect([...(q?.toHost().data as Uint8Array)]).toEqual(expected);
    expect(scaleInv?.toArray()[0]).toBe(Math.fround(1 / scale));
  });

  it("the README's scaling recipe imports and runs (keepdim max, explicit casts)", async () => {
    const text = [
      'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
      '    x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)',
      '    xf = fd.ops.cast(x, DataType.Float)',
      '    scale = fd.ops.div(448.0, fd.ops.max(fd.ops.abs(xf), dims=[1], keepdim=True))',
      '    fd.add_output(fd.ops.cast(fd.ops.mul(xf, scale), DataType.Float8_e4m3fn))',
    ].join('\n');
    const fd = importPythonDefinition(text, { cache: new FusionCache() });
    const values = [1, -2, 0.5, 4, -0.25, 3, 8, -1];
    const [q] = await fd.execute([Tensor.from(values, [2, 4], 'BFloat16')]);
    const expected = values.map((v, i) => numberToFloat8E4M3FnBits(Math.fround(v * Math.fround(448 / (i < 4 ? 4 : 8)))));
    expect([...(q?.toHost().data as Uint8Array)]).toEqual(expected);
  });
});
