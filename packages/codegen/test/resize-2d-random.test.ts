// The pointwise scheduler's 2-D schedule for slice / pad / cat (scheduler pointwise/resize/two-d.ts)
// in the kernel simulator against the reference evaluator: random pads (crops, values, odd
// widths), cats along dims 0 / 1 / last and slices with offsets (test-support's
// resize-2d-random.ts; Float / Half / BFloat16, rank 2–3), each under forced 2-D parameters
// (break point rank − 1, blockDim.x 8 / 32 / 128, unroll 1 / 2 / 4) and under the default
// heuristics, both for a one-SM device (at these sizes an H100's heuristics would neither
// vectorize nor pick 2-D). Seeded
// (TSFUSER_SEED, printed on failure). No reductions: outputs compare element-wise by dtype.
import { describe, expect, it } from 'vitest';
import { cat, evaluate, Fusion, HostTensor, makeTensor, pad, type DataType, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { canSchedulePointwise, computePointwiseHeuristics, H100_PROPERTIES, makeRuntimeInfo, schedulePointwise, type PointwiseOverrides, type PointwiseParams } from '@tsfuser/scheduler';
import { compareOutput, randomResize2dCase } from '@tsfuser/test-support';
import { lowerFusion } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { baseSeed, poisonedOutput, seeded } from './shape-ops-simulation.js';

const ONE_SM = { ...H100_PROPERTIES, smCount: 1 };

function simulateWith(fusion: Fusion, inputs: readonly EvalValue[], label: string, overrides: PointwiseOverrides | null): PointwiseParams {
  const sizes = inputs.map((v) => (v instanceof HostTensor ? { sizes: v.sizes, strides: v.strides } : { value: v as number }));
  const info = makeRuntimeInfo(fusion, sizes, ONE_SM);
  const ok = canSchedulePointwise(fusion, info);
  if (!ok.ok) throw new Error(`${label}: the pointwise scheduler refuses: ${ok.reason}`);
  const params = computePointwiseHeuristics(fusion, info, overrides ?? {});
  const lp = params.lparams;
  const kernel = lowerFusion(schedulePointwise(fusion.clone().fusion, params), { kernelName: 'resize_2d', maxThreadsPerBlock: lp.bdimx * lp.bdimy * lp.bdimz });
  const want = evaluate(fusion, inputs) as HostTensor[];
  const outputs = fusion.outputs.map((o, i) => poisonedOutput(o as TensorView, want[i] as HostTensor));
  const args = inputs.map((v) => (v instanceof HostTensor ? v : Number(v)));
  const launch = { grid: [lp.gdimx, lp.gdimy, lp.gdimz] as [number, number, number], block: [lp.bdimx, lp.bdimy, lp.bdimz] as [number, number, number], sharedMemBytes: kernel.sharedMemBytes };
  const got = simulateKernel(kernel, launch, [...args, ...outputs]).slice(args.length);
  want.forEach((w, i) => compareOutput(w, got[i] as HostTensor, `${label}: output ${i}`));
  return params;
}

describe('slice / pad / cat under the 2-D pointwise schedule', () => {
  it('random cases, forced 2-D and by the heuristics, simulate like the reference evaluator', () => {
    const base = baseSeed();
    let vectorized = 0;
    let chosen2d = 0;
    const n = 40;
    for (let it = 0; it < n; it += 1) {
      const seed = base + it;
      const c = randomResize2dCase(seed);
      const r = seeded(seed ^ 0x5a5a);
      const rank = (c.fusion.outputs[0] as TensorView).domain.logicalNoReductions().length;
      const forced: PointwiseOverrides = { breakPoint: rank - 1, bdimx: [8, 32, 128][Math.floor(r() * 3)] as number, unroll: [1, 2, 4][Math.floor(r() * 3)] as number };
      const label = `seed ${seed} (TSFUSER_SEED=${base}, iteration ${it}; ${c.description})`;
      try {
        const p = simulateWith(c.fusion, c.inputs, `${label} forced ${JSON.stringify(forced)}`, forced);
        expect(p.breakPoint).toBe(rank - 1);
        if (p.vectorizationFactor > 1) vectorized += 1;
        const h = simulateWith(c.fusion, c.inputs, `${label} heuristics (one SM)`, null);
        if (h.breakPoint > 0) chosen2d += 1;
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 800)}`);
      }
    }
    // The generator's mix: about 60% aligned cases (most vectorize) and most rows wide enough for 2-D.
    expect(vectorized).toBeGreaterThan(n / 5);
    expect(chosen2d).toBeGreaterThan(n / 4);
  }, 120_000);

  it('rows of >= 256 vectors: the heuristics run 128 threads x 2 vectors of a row, tail of the row included, like the reference', () => {
    const r = seeded(baseSeed() ^ 0x2d2d);
    const values = (dtype: DataType, sizes: number[]): HostTensor =>
      HostTensor.fromValues(dtype, sizes, Array.from({ length: sizes.reduce((a, b) => a * b, 1) }, () => Math.round((r() * 8 - 4) * 64) / 64));
    const padded = (dtype: DataType, cols: number, widths: number[]): [Fusion, EvalValue[]] => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], dtype });
      f.addInput(x);
      f.addOutput(pad(x, widths));
      return [f, [values(dtype, [3, cols])]];
    };
    const catted = (): [Fusion, EvalValue[]] => {
      const f = new Fusion();
      const a = makeTensor(f, { shape: [-1, -1] });
      const b = makeTensor(f, { shape: [-1, -1] });
      f.addInput(a);
      f.addInput(b);
      f.addOutput(cat([a, b], 1));
      return [f, [values('Float', [2, 600]), values('Float', [2, 424])]];
    };
    // [vectors a row, vector width]: 1046 / 2 = 523 (a partial last block), 1024 / 4 = 256 (exact), 2066 / 2 = 1033
    const cases: [string, [Fusion, EvalValue[]], number][] = [
      ['Float pad (8, 8, 1, 1) of [3, 1030]', padded('Float', 1030, [8, 8, 1, 1]), 523],
      ['Float cat of [2, 600] and [2, 424] along dim 1', catted(), 256],
      ['BFloat16 pad (8, 8, 1, 1) of [3, 2050]', padded('BFloat16', 2050, [8, 8, 1, 1]), 1033],
    ];
    for (const [label, [fusion, inputs], vectors] of cases) {
      const p = simulateWith(fusion, inputs, label, null);
      expect([p.breakPoint, p.lparams.bdimx, p.lparams.bdimy, p.unrollFactorInner], label).toEqual([1, 128, 1, 2]);
      expect(p.lparams.gdimx, label).toBe(Math.ceil(vectors / 256));
    }
  }, 120_000);
});
