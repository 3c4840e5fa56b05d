// The indexing ops through FusionDefinition: nvFuser's python names and keywords (printed and
// imported back, the older `arg1` keyword accepted), execution on the reference backend with
// PyTorch's results, out-of-range indices as one clear error, how fusions with indexed loads
// segment (a pointwise consumer fuses; a reduction consumer and a computed lookup get a segment
// boundary; scatter is a greedy segment of its own on the GPU path), and the embedding_lookup.py fixture.
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition, hashRecords, importPythonDefinition, importPythonScript } from '../src/index.js';
import { explainSegments } from '../src/cli/explain.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { fixtureText } from './helpers.js';

const cache = (): { cache: FusionCache } => ({ cache: new FusionCache() });

function allOps(fd: FusionDefinition): void {
  const x = fd.defineTensor(2, DataType.Float);
  const i1 = fd.defineTensor(1, DataType.Int);
  const i2 = fd.defineTensor(2, DataType.Int32);
  const s = fd.defineScalar(null, DataType.Int);
  fd.addOutput(fd.ops.indexSelect(x, i1, 0));
  fd.addOutput(fd.ops.select(x, s, 1));
  fd.addOutput(fd.ops.gather(x, i2, 1));
  fd.addOutput(fd.ops.takeAlongAxis(x, i2, 1));
  fd.addOutput(fd.ops.scatter(x, i2, x, 1));
  fd.addOutput(fd.ops.indexPutAccumulate(x, i1, x));
  fd.addOutput(fd.ops.embeddingFwd(i2, x, 0));
}

describe('indexing ops in FusionDefinition', () => {
  it("print with nvFuser's names and keywords and import back to the same records", () => {
    const fd = FusionDefinition.build(allOps, cache());
    const py = fd.printPython();
    expect(py).toMatch(/fd\.ops\.index_select\(T0, T1, dim=0\)/);
    expect(py).toMatch(/fd\.ops\.select\(T0, S3, dim=1\)/);
    expect(py).toMatch(/fd\.ops\.gather\(T0, T2, dim=1\)/);
    expect(py).toMatch(/fd\.ops\.take_along_axis\(T0, T2, dim=1\)/);
    expect(py).toMatch(/fd\.ops\.scatter\(T0, T2, T0, dim=1\)/);
    expect(py).toMatch(/fd\.ops\.index_put_accumulate\(T0, T1, T0\)/);
    expect(py).toMatch(/fd\.ops\.embedding_fwd\(T2, T0, S\d+, None, None, None, None\)/);
    const again = importPythonDefinition(py, cache());
    expect(hashRecords(again.records())).toBe(hashRecords(fd.records()));
  });

  it("accepts the older frontend's arg1 keyword and keyword-only calls", () => {
    const py = [
      'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
      '    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)',
      '    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)',
      '    T2 = fd.ops.gather(arg1=T0, index=T1, dim=0)',
      '    T3 = fd.ops.take_along_axis(arg1=T0, index=T1, dim=-1)',
      '    T4 = fd.ops.scatter(arg1=T0, index=T1, src=1.5, dim=1)',
      '    fd.add_output(T2)',
      '    fd.add_output(T3)',
      '    fd.add_output(T4)',
    ].join('\n');
    const fd = importPythonDefinition(py, cache());
    expect(fd.printPython()).toMatch(/fd\.ops\.scatter\(T0, T1, S\d+, dim=1\)/);
  });

  it('executes on the reference backend with PyTorch values', async () => {
    const fd = FusionDefinition.build((fd) => {
      const ids = fd.defineTensor(2, DataType.Int);
      const w = fd.defineTensor(2, DataType.Float);
      fd.addOutput(fd.ops.embeddingFwd(ids, w));
      fd.addOutput(fd.ops.select(w, -1, 0));
      fd.addOutput(fd.ops.indexPutAccumulate(w, fd.ops.select(ids, 0, 0), fd.ops.indexSelect(w, fd.ops.select(ids, 0, 0), 0)));
    }, cache());
    const ids = Tensor.from([2n, 0n, 2n, 1n], [2, 2], 'Int');
    const w = Tensor.from(Float32Array.from([1, 2, 3, 4, 5, 6]), [3, 2], 'Float');
    const [emb, last, acc] = await fd.execute([ids, w]);
    // torch.nn.functional.embedding(ids, w), w.select(0, -1), w.index_put([ids[0]], w[ids[0]], accumulate=True)
    // (ids[0] = [2, 0]: row 2 += row 2, row 0 += row 0)
    expect(emb?.sizes).toEqual([2, 2, 2]);
    expect(emb?.toArray()).toEqual([5, 6, 1, 2, 5, 6, 3, 4]);
    expect(last?.toArray()).toEqual([5, 6]);
    expect(acc?.toArray()).toEqual([2, 4, 3, 4, 10, 12]);
  });

  it('reports an out-of-range index as one error naming the op, the value and where it sits', async () => {
    const fd = FusionDefinition.build((fd) => {
      const x = fd.defineTensor(2, DataType.Float);
      const i = fd.defineTensor(1, DataType.Int);
      fd.addOutput(fd.ops.indexSelect(x, i, 1));
    }, cache());
    const x = Tensor.from(new Float32Array(6), [2, 3], 'Float');
    await expect(fd.execute([x, Tensor.from([0n, 3n], [2], 'Int')])).rejects.toThrow(
      /index_select producing T\d+: index 3 is out of bounds for dim 1 of T0 with size 3 \(at index position \[0, 1\]\)/,
    );
    await expect(fd.execute([x, Tensor.from([-1n], [1], 'Int')])).rejects.toThrow(/index -1 is out of bounds for dim 1 of T0 with size 3/);
  });

  it('segments: a pointwise consumer fuses, a reduction consumer gets a boundary, scatter is a greedy segment', () => {
    const emb = FusionDefinition.build((fd) => {
      const ids = fd.defineTensor(1, DataType.Int);
      const w = fd.defineTensor(2, DataType.BFloat16);
      fd.addOutput(fd.ops.cast(fd.ops.mul(fd.ops.embeddingFwd(ids, w), 2.0), DataType.BFloat16));
    }, cache());
    const ids = Tensor.from(new BigInt64Array(64), [64], 'Int');
    const w = Tensor.from(new Uint16Array(100 * 128), [100, 128], 'BFloat16');
    expect(explainSegments(emb.fusionIr(), [ids, w])).toContain('1 segment (1 kernel)');

    const sum = FusionDefinition.build((fd) => {
      const x = fd.defineTensor(2, DataType.Float);
      const i = fd.defineTensor(1, DataType.Int);
      fd.addOutput(fd.ops.sum(fd.ops.indexSelect(x, i, 0), [1]));
    }, cache());
    const x = Tensor.from(new Float32Array(100 * 128), [100, 128], 'Float');
    const text = explainSegments(sum.fusionIr(), [x, ids]);
    expect(text).toContain('2 segments (2 kernels)');
    expect(text).toMatch(/segment 0 \[pointwise\]/);

    const computed = FusionDefinition.build((fd) => {
      const x = fd.defineTensor(2, DataType.Float);
      const i = fd.defineTensor(1, DataType.Int);
      fd.addOutput(fd.ops.indexSelect(fd.ops.exp(x), i, 0));
    }, cache());
    expect(explainSegments(computed.fusionIr(), [x, ids])).toContain('2 segments (2 kernels)');

    const scatter = FusionDefinition.build((fd) => {
      const x = fd.defineTensor(2, DataType.Float);
      const i = fd.defineTensor(2, DataType.Int);
      fd.addOutput(fd.ops.scatter(x, i, 0.5, 1));
    }, cache());
    expect(explainSegments(scatter.fusionIr(), [x, Tensor.from(new BigInt64Array(100), [100, 1], 'Int')])).toMatch(/1 segment \(2 kernels\)[\s\S]*segment 0 \[greedy\]/);
  });

  it('runs the embedding_lookup.py fixture with its inputs', async () => {
    const script = importPythonScript(fixtureText('embedding_lookup.py'), cache());
    const { inputs } = planInputs(script.definition.inputs(), script.inputs, { seed: 3, cwd: '.' });
    const [scaled, rows] = await script.definition.execute(inputs);
    expect(scaled?.sizes).toEqual([4, 16, 64]);
    expect(rows?.sizes).toEqual([32, 64]);
    expect(explainSegments(script.definition.fusionIr(), inputs)).toContain('2 segments (2 kernels)');
  });
});
