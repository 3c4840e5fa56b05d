// Random-number ops through FusionDefinition: nvFuser's python keywords (rng_seed, rng_offset,
// dtype, minval/maxval, mean/std, diagonal), execution on the reference backend, dropout with a
// residual add as one pointwise segment, and the dropout_residual.py definition fixture.
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition, hashRecords, importPythonDefinition, importPythonScript } from '../src/index.js';
import { explainSegments } from '../src/cli/explain.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { fixtureText } from './helpers.js';

function dropoutResidual(fd: FusionDefinition): void {
  const x = fd.defineTensor(2, DataType.Float);
  const res = fd.defineTensor(2, DataType.Float);
  const seed = fd.defineScalar(null, DataType.Int);
  const offset = fd.defineScalar(null, DataType.Int);
  const r = fd.ops.randLike(x, seed, offset);
  const keep = fd.ops.lt(r, 0.75);
  fd.addOutput(fd.ops.add(fd.ops.mul(fd.ops.mul(x, keep), 1 / 0.75), res));
  fd.addOutput(r);
}

describe('RNG ops in FusionDefinition', () => {
  it('records rng_seed / rng_offset and prints nvFuser\'s keywords', () => {
    const fd = FusionDefinition.build((fd) => {
      const t = fd.defineTensor(2, DataType.Half);
      fd.addOutput(fd.ops.randLike(t, 5, 6));
      fd.addOutput(fd.ops.uniform(-1, 2, [4, 8], 5, 7, DataType.BFloat16));
      fd.addOutput(fd.ops.normal(0.5, 2, [4, 8], null, null, DataType.Double));
      fd.addOutput(fd.ops.triu(t, -1));
      fd.addOutput(fd.ops.erfcinv(t));
    }, { cache: new FusionCache() });
    const py = fd.printPython();
    expect(py).toMatch(/fd\.ops\.rand_like\(T0, rng_seed=S\d+, rng_offset=S\d+\)/);
    expect(py).toMatch(/fd\.ops\.uniform\(minval=S\d+, maxval=S\d+, shape=\[4, 8\], rng_seed=S\d+, rng_offset=S\d+, dtype=DataType\.BFloat16\)/);
    expect(py).toMatch(/fd\.ops\.normal\(mean=S\d+, std=S\d+, shape=\[4, 8\], rng_seed=None, rng_offset=None, dtype=DataType\.Double\)/);
    expect(py).toMatch(/fd\.ops\.triu\(T0, diagonal=-1\)/);
    expect(py).toMatch(/fd\.ops\.erfcinv\(T0\)/);
    // The printed python imports back to the same records.
    const again = importPythonDefinition(py, { cache: new FusionCache() });
    expect(hashRecords(again.records())).toBe(hashRecords(fd.records()));
  });

  it('gives the same numbers for the same seed and offset, other numbers for another offset', async () => {
    const fd = FusionDefinition.build(dropoutResidual, { cache: new FusionCache() });
    const x = Tensor.from(Float32Array.from({ length: 32 * 16 }, (_, i) => (i % 13) - 6), [32, 16], 'Float');
    const res = Tensor.from(new Float32Array(32 * 16).fill(0.5), [32, 16], 'Float');
    const [a, ra] = await fd.execute([x, res, 42n, 0n]);
    const [b] = await fd.execute([x, res, 42n, 0n]);
    const [c] = await fd.execute([x, res, 42n, 4n]);
    expect(a?.toArray()).toEqual(b?.toArray());
    expect(a?.toArray()).not.toEqual(c?.toArray());
    const rand = ra?.toArray() as number[];
    const xs = x.toArray() as number[];
    (a?.toArray() as number[]).forEach((v, i) => {
      const kept = (rand[i] as number) < 0.75;
      // Float · Double scalar computes in double and rounds once (the evaluator's rule).
      expect(v).toBe(kept ? Math.fround(Math.fround((xs[i] as number) * (1 / 0.75)) + 0.5) : 0.5);
    });
  });

  it('dropout with a residual add is one pointwise kernel', () => {
    const fd = FusionDefinition.build(dropoutResidual, { cache: new FusionCache() });
    const x = Tensor.from(new Float32Array(1024 * 512), [1024, 512], 'Float');
    const text = explainSegments(fd.fusionIr(), [x, x, 1n, 0n]);
    expect(text).toContain('1 segment (1 kernel)');
    expect(text).toMatch(/segment 0 \[pointwise\]/);
  });

  it('runs the dropout_residual.py fixture with its inputs', async () => {
    const script = importPythonScript(fixtureText('dropout_residual.py'), { cache: new FusionCache() });
    const { inputs } = planInputs(script.definition.inputs(), script.inputs, { seed: 1, cwd: '.' });
    expect(inputs.slice(2)).toEqual([20241124, 8]);
    const outs = await script.definition.execute(inputs);
    expect(outs).toHaveLength(2);
    const mask = (outs[1]?.toArray() ?? []).map(Number);
    expect(mask.length).toBe(64 * 256);
    const kept = mask.filter((v) => v !== 0).length / mask.length;
    // 64 × 256 Bernoulli(0.9) draws: 5 standard deviations.
    expect(Math.abs(kept - 0.9)).toBeLessThan(5 * Math.sqrt(0.09 / mask.length));
    const text = explainSegments(script.definition.fusionIr(), inputs);
    expect(text).toContain('1 segment (1 kernel)');
  });

  it('rejects a seed without an offset with one clear error', () => {
    expect(() =>
      FusionDefinition.build((fd) => {
        const t = fd.defineTensor(1);
        fd.addOutput(fd.ops.randLike(t, 3));
      }, { cache: new FusionCache() }),
    ).toThrow(/rand_like: rng_seed and rng_offset must be provided together/);
  });
});
