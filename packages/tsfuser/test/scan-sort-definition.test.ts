// Scans and sorts through FusionDefinition: nvFuser's python keywords (dim, init, descending,
// stable, k, largest, sorted), printed python that imports back to the same records, an nvFuser
// style definition text, and execution on the reference backend.
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition, hashRecords, importPythonDefinition } from '../src/index.js';

describe('scan and sort ops in FusionDefinition', () => {
  it("prints nvFuser's keywords and imports back to the same records", () => {
    const fd = FusionDefinition.build((fd) => {
      const t = fd.defineTensor(2, DataType.Float);
      fd.addOutput(fd.ops.cumsum(t, 1));
      fd.addOutput(fd.ops.cumprod(t, 0));
      fd.addOutput(fd.ops.cummin(t, -1));
      fd.addOutput(fd.ops.cummax(t, 1, 2.5));
      fd.addOutput(fd.ops.argsort(t, 1, true, true));
      const [v, i] = fd.ops.topk(t, 3, 1, false, true);
      fd.addOutput(v);
      fd.addOutput(i);
    }, { cache: new FusionCache() });
    const py = fd.printPython();
    expect(py).toMatch(/fd\.ops\.cumsum\(T0, dim=1, init=None\)/);
    expect(py).toMatch(/fd\.ops\.cummax\(T0, dim=1, init=S\d+\)/);
    expect(py).toMatch(/fd\.ops\.argsort\(T0, dim=1, descending=True, stable=True\)/);
    expect(py).toMatch(/T\d+, T\d+ = fd\.ops\.topk\(T0, k=S\d+, dim=1, largest=False, sorted=True\)/);
    const again = importPythonDefinition(py, { cache: new FusionCache() });
    expect(hashRecords(again.records())).toBe(hashRecords(fd.records()));
  });

  it('imports an nvFuser definition with positional and default arguments', async () => {
    const text = [
      'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
      '    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)',
      '    T1 = fd.ops.cumsum(T0, 1)',
      '    T2, T3 = fd.ops.topk(T0, 2)',
      '    T4 = fd.ops.argsort(T0, dim=-1, descending=True)',
      '    fd.add_output(T1)',
      '    fd.add_output(T2)',
      '    fd.add_output(T3)',
      '    fd.add_output(T4)',
    ].join('\n');
    const fd = importPythonDefinition(text, { cache: new FusionCache() });
    const x = Tensor.from(Float32Array.from([1, 5, 2, 5, -1, 0.5, 3, 3]), [2, 4], 'Float');
    const [cs, tv, ti, as] = await fd.execute([x]);
    expect(cs?.toArray()).toEqual([1, 6, 8, 13, -1, -0.5, 2.5, 5.5]);
    expect(tv?.toArray()).toEqual([5, 5, 3, 3]);
    expect(ti?.toArray()).toEqual([1n, 3n, 2n, 3n]);
    expect(as?.toArray()).toEqual([1n, 3n, 2n, 0n, 2n, 3n, 1n, 0n]);
  });

  it('rejects a wrong argument with one clear error', () => {
    expect(() =>
      FusionDefinition.build((fd) => {
        const t = fd.defineTensor(2, DataType.Float);
        fd.addOutput(fd.ops.cumsum(t, 3));
      }, { cache: new FusionCache() }),
    ).toThrow(/cumsum: dim 3 is out of range/);
  });
});
