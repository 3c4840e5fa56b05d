import { describe, expect, it } from 'vitest';
import { DataType, DefinitionError, FusionCache, FusionDefinition, OPS, Tensor, hashRecords } from '../src/index.js';

function readme(fd: FusionDefinition): void {
  const t0 = fd.defineTensor({ symbolicSizes: [-1, 1, -1], contiguous: [true, true, true], dtype: DataType.Float });
  const t1 = fd.defineTensor(3);
  const c0 = fd.defineConstant(3.0, DataType.Double);
  const t2 = fd.ops.add(t0, t1);
  const t3 = fd.ops.mul(t2, c0);
  fd.addOutput(fd.ops.sum(t3, [-1], false, DataType.Float));
}

describe('FusionDefinition', () => {
  it('defines tensors the three ways of nvFuser\'s README, normalized to one record form', () => {
    const cache = new FusionCache();
    const byRank = new FusionDefinition({ cache });
    const t = byRank.defineTensor(3, DataType.Half);
    expect(t.ndim).toBe(3);
    expect(byRank.records()[0]?.args).toEqual([[-1, -1, -1], [false, false, false], 'Half', false, []]);

    const strided = new FusionDefinition({ cache });
    strided.defineTensor({ sizes: [2, 4, 6], strides: [24, 6, 1], dtype: DataType.Half });
    // nvFuser's computeTensorDescriptor always states the stride order it found.
    expect(strided.records()[0]?.args).toEqual([[-1, -1, -1], [true, true, true], 'Half', false, [2, 1, 0]]);

    const transposed = new FusionDefinition({ cache });
    transposed.defineTensor({ sizes: [4, 1, 6], strides: [1, 6, 4] });
    // Allocation order dim 1 (stride 6), dim 2 (stride 4), dim 0 (stride 1); contiguity is per
    // allocation position: the size-1 dim is None, dim 2 (4 = 1·4) and dim 0 (1) contiguous.
    expect(transposed.records()[0]?.args).toEqual([[-1, 1, -1], [null, true, true], 'Float', false, [0, 2, 1]]);

    const symbolic = new FusionDefinition({ cache });
    symbolic.defineTensor({ symbolicSizes: [-1, 1, -1], contiguous: [true, true, true] });
    const shaped = new FusionDefinition({ cache });
    shaped.defineTensor({ shape: [-1, 1, -1], contiguity: [true, null, true], dtype: DataType.Float });
    expect(hashRecords(symbolic.records())).toBe(hashRecords(shaped.records()));
  });

  it('gives identical definitions the same id and different ones a new id', () => {
    const cache = new FusionCache();
    const a = FusionDefinition.build(readme, { cache });
    const b = new FusionDefinition({ cache }).define(readme);
    const c = FusionDefinition.build((fd) => {
      const t = fd.defineTensor(2);
      fd.addOutput(fd.ops.exp(t));
    }, { cache });
    expect(a.id()).toBe(b.id());
    expect(c.id()).not.toBe(a.id());
    expect(cache.numFusions()).toBe(2);
    expect(FusionDefinition.fromId(c.id(), cache).records()).toEqual(c.records());
    expect(() => FusionDefinition.fromId(7, cache)).toThrow(/no fusion with id 7/);
  });

  it('executes the README example on the reference evaluator with random inputs', async () => {
    const fd = FusionDefinition.build(readme, { cache: new FusionCache() });
    const a = Float32Array.from({ length: 2 * 8 }, () => Math.random() - 0.5);
    const b = Float32Array.from({ length: 2 * 4 * 8 }, () => Math.random() - 0.5);
    const notes: string[] = [];
    const [out] = await fd.execute([Tensor.from(a, [2, 1, 8], 'Float'), Tensor.from(b, [2, 4, 8], 'Float')], { notes: (m) => notes.push(m) });
    expect(out?.sizes).toEqual([2, 4]);
    const values = out?.toArray() as number[];
    for (let i = 0; i < 2; i += 1) {
      for (let j = 0; j < 4; j += 1) {
        let expected = 0;
        for (let k = 0; k < 8; k += 1) expected += Math.fround(Math.fround((a[i * 8 + k] as number) + (b[(i * 4 + j) * 8 + k] as number)) * 3);
        expect(values[i * 4 + j]).toBeCloseTo(expected, 4);
      }
    }
  });

  it('turns JS constants in operand slots into defineScalar records', () => {
    const fd = FusionDefinition.build((fd) => {
      const t = fd.defineTensor(1);
      fd.addOutput(fd.ops.mul(t, 2.5));
    }, { cache: new FusionCache() });
    expect(fd.records().map((r) => r.op)).toEqual(['defineTensor', 'defineScalar', 'mul', 'addOutput']);
    expect(fd.records()[1]?.args).toEqual([2.5, 'Double']);
  });

  it('records size() and shape() and returns tuples for multi-output ops', () => {
    const fd = FusionDefinition.build((fd) => {
      const t = fd.defineTensor(2);
      const [v, m] = fd.ops.varMean(t, [1], 0, true);
      fd.addOutput(v);
      fd.addOutput(m);
      fd.addOutput(t.size(0));
      fd.addOutput(fd.ops.broadcastInDim(fd.ops.sum(t, [1]), t.shape(), [0]));
    }, { cache: new FusionCache() });
    expect(fd.records().map((r) => r.op)).toContain('varMean');
    expect(fd.records().find((r) => r.op === 'varMean')?.outputs).toHaveLength(2);
    expect(fd.fusionIr().outputs).toHaveLength(4);
  });

  it('rejects bad calls with errors naming the op and the parameter', () => {
    const other = new FusionDefinition({ cache: new FusionCache() });
    const foreign = other.defineTensor(2);
    const fd = new FusionDefinition({ cache: new FusionCache() });
    const t = fd.defineTensor(2);
    expect(() => fd.ops.add(t, foreign)).toThrow(/belongs to another FusionDefinition/);
    expect(() => fd.ops.sum(t, [0.5])).toThrow(DefinitionError);
    expect(() => fd.ops.sum(t, [0.5])).toThrow(/sum: dims must be a list of integers/);
    expect(() => fd.ops.cast(t, 'Float64' as DataType)).toThrow(/cast: dtype must be a DataType/);
    expect(() => fd.defineTensor({ shape: [-2, 3] })).toThrow(/shape\[0\] is -2/);
    expect(() => fd.defineTensor({ shape: [-1, -1], contiguity: [true] })).toThrow(/contiguity has 1 entries/);
    fd.finalize();
    expect(() => fd.defineTensor(1)).toThrow(/finalized/);
  });

  it('exposes every op of the table on fd.ops', () => {
    const fd = new FusionDefinition({ cache: new FusionCache() });
    const names = Object.keys(OPS);
    expect(names.length).toBeGreaterThan(100);
    for (const n of names) expect(typeof (fd.ops as unknown as Record<string, unknown>)[n]).toBe('function');
  });
});
