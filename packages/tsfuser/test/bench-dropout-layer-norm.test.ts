// The dropout_residual_layer_norm_bf16 bench workload: one inner persistent kernel at its bench
// size ([16384, 4096] bf16, RNG in the kernel), its byte count (x, residual, weight, bias read,
// y written; no mask), and at a small size on the reference backend it computes
// layer_norm(dropout(x, p = 0.1) + residual) · weight + bias: the keep mask is rand_like's
// numbers (same seed and offset) below 0.9, kept values scaled by 1 / 0.9, the rest in float64
// here, compared within bf16 rounding.
import { describe, expect, it } from 'vitest';
import { Tensor } from '@tsfuser/device';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import { DROPOUT_OFFSET, DROPOUT_SEED, dropoutResidualLayerNorm } from '../src/bench/workloads.js';
import { randomHost, Random } from '../src/bench/device-inputs.js';
import { importPythonDefinition } from '../src/python/import-definition.js';
import type { ExecuteInput } from '../src/execute/backend.js';

const RAND_LIKE = `def rand(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    T3 = fd.ops.rand_like(fd.ops.cast(T0, dtype=DataType.Float), rng_seed=S1, rng_offset=S2)
    fd.add_output(T3)
`;

describe('dropout_residual_layer_norm_bf16 workload', () => {
  it('is one inner persistent kernel at [16384, 4096] and moves x, residual, weight, bias and y', () => {
    const w = dropoutResidualLayerNorm();
    const fusion = w.build().fusionIr();
    const info = makeRuntimeInfo(fusion, w.inputs.map((i) => (i.scalar !== undefined ? { value: i.scalar } : { sizes: i.sizes })));
    expect(segmentFusion(fusion, info, defaultSchedulerRegistry()).groups.map((g) => g.schedulerType)).toEqual(['inner_persistent']);
    expect(w.bytes).toBe((3 * 16384 * 4096 + 2 * 4096) * 2);
    expect(fusion.outputs).toHaveLength(1);
  });

  it('computes layer_norm(dropout(x, 0.1) + residual) * weight + bias (reference backend, [6, 256])', async () => {
    const [rows, cols] = [6, 256];
    const w = dropoutResidualLayerNorm(rows, cols);
    const seed = Date.now() % 100000;
    const rng = new Random(seed);
    const x = randomHost('BFloat16', [rows, cols], [cols, 1], rng);
    const residual = randomHost('BFloat16', [rows, cols], [cols, 1], rng);
    const weight = randomHost('BFloat16', [cols], [1], rng);
    const bias = randomHost('BFloat16', [cols], [1], rng);
    const inputs: ExecuteInput[] = [...[x, residual, weight, bias].map((t) => Tensor.fromHost(t)), DROPOUT_SEED, DROPOUT_OFFSET];
    const [y] = await w.build().execute(inputs, { backend: 'reference' });
    const [u] = await importPythonDefinition(RAND_LIKE).execute([Tensor.fromHost(x), DROPOUT_SEED, DROPOUT_OFFSET], { backend: 'reference' });
    const got = (y as Tensor).toHost();
    const rand = (u as Tensor).toHost();
    let dropped = 0;
    for (let r = 0; r < rows; r += 1) {
      const z = Array.from({ length: cols }, (_, c) => {
        const k = r * cols + c;
        const keep = rand.getNumber(k) < 0.9;
        if (!keep) dropped += 1;
        return (keep ? x.getNumber(k) / 0.9 : 0) + residual.getNumber(k);
      });
      const mean = z.reduce((a, b) => a + b, 0) / cols;
      const variance = z.reduce((a, b) => a + (b - mean) ** 2, 0) / cols;
      const rstd = 1 / Math.sqrt(variance + 1e-5);
      z.forEach((v, c) => {
        const want = (v - mean) * rstd * weight.getNumber(c) + bias.getNumber(c);
        const have = got.getNumber(r * cols + c);
        expect(Math.abs(have - want), `seed ${seed} [${r}, ${c}]: ${have} vs ${want}`).toBeLessThanOrEqual(2 ** -7 * Math.abs(want) + 1e-3);
      });
    }
    // p = 0.1 of 1536 elements: about 154 dropped.
    expect(dropped).toBeGreaterThan(80);
    expect(dropped).toBeLessThan(240);
  });
});
