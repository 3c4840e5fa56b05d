// Lower-rank inputs of a pointwise kernel read through a broadcast (a bias [H] under
// broadcast_in_dim to [N, H], RoPE's cos / sin [T, E] to [B, n, T, E]): the pointwise schedule
// takes the broadcast as the input's cache (scheduler src/pointwise/broadcast-reads.ts), so the
// kernel reads them with vector loads issued before the compute, instead of one element at a
// time inside the vector loop. Each case is simulated against the reference evaluator on random
// inputs (NaN-poisoned outputs), and the kernel's global loads of the broadcast input are checked
// to be vectors where the heuristics vectorized it and single elements where they did not (an
// inner broadcast, a row that 8 does not divide, a resize downstream of the broadcast).
import { add, broadcastInDim, cast, cat, Fusion, makeTensor, mul, neg, pad, slice, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { allStmts } from '../src/kernel-ir/effects.js';
import type { Kernel } from '../src/index.js';
import { baseSeed, randomTensor, seeded, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const label = (s: string): string => `${s} (TSFUSER_SEED=${seed})`;

function input(f: Fusion, rank: number, dtype: DataType): TensorView {
  const t = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(t);
  return t;
}

/** Widths of the kernel's global loads of fusion input `tv`. */
function loadWidths(kernel: Kernel, tv: TensorView): number[] {
  const name = `T${tv.name}`;
  return allStmts(kernel.body).flatMap((s) => (s.kind === 'LoadStore' && s.in.memory === 'Global' && s.in.tensor === name ? [s.width] : []));
}

/** bf16 x [N, H] + bias [H] (f32 math), the sweep's bias_add. */
function biasAdd(dtype: DataType): { f: Fusion; bias: TensorView } {
  const f = new Fusion();
  const x = input(f, 2, dtype);
  const bias = input(f, 1, dtype);
  const b = broadcastInDim(bias, [x.axis(0).extent, x.axis(1).extent], [1]);
  f.addOutput(cast(add(cast(x, 'Float'), cast(b, 'Float')), dtype));
  return { f, bias };
}

/** HF RoPE on x [B, n, T, E] with cos / sin [T, E] broadcast over B and n (the LLaMA block's). */
function ropeWithTables(e: number): { f: Fusion; cos: TensorView; sin: TensorView } {
  const f = new Fusion();
  const x = input(f, 4, 'BFloat16');
  const cos = input(f, 2, 'BFloat16');
  const sin = input(f, 2, 'BFloat16');
  const shape = [0, 1, 2, 3].map((d) => x.axis(d).extent);
  const [b, n, t] = [shape[0], shape[1], shape[2]] as [never, never, never];
  const xf = cast(x, 'Float');
  const x1 = slice(xf, [0, 0, 0, 0], [b, n, t, e / 2]);
  const x2 = slice(xf, [0, 0, 0, e / 2], [b, n, t, e]);
  const rotated = cat([neg(x2), x1], 3);
  const table = (tv: TensorView): TensorView => cast(broadcastInDim(tv, shape, [2, 3]), 'Float');
  f.addOutput(cast(add(mul(xf, table(cos)), mul(rotated, table(sin))), 'BFloat16'));
  return { f, cos, sin };
}

describe('pointwise: lower-rank inputs read through a broadcast', () => {
  it('a bias [H] is read with vector loads, 1-D and 2-D schedules, f32 and bf16', () => {
    const r = seeded(seed);
    for (const dtype of ['Float', 'BFloat16'] as const) {
      // At least a wave of 128-thread blocks (132 SMs), so the heuristics vectorize; 1-D and 2-D schedules.
      for (const [rows, h] of [[16, 1280], [300, 512], [17, 1032]] as const) {
        const { f, bias } = biasAdd(dtype);
        const { kernel, compiled } = simulateAndCheck(f, [randomTensor(dtype, [rows, h], r), randomTensor(dtype, [h], r)], label(`bias add ${dtype} ${rows}x${h}`));
        expect(compiled.params.schedulerType).toBe('pointwise');
        const v = compiled.params.schedulerType === 'pointwise' ? compiled.params.vectorizationFactor : 0;
        expect(v, `${dtype} ${rows}x${h} is vectorized`).toBeGreaterThan(1);
        const widths = loadWidths(kernel, bias);
        expect(widths.length).toBeGreaterThan(0);
        expect(widths.every((w) => w === v), `bias loads of ${dtype} ${rows}x${h}: widths ${widths.join(', ')}, vector ${v}`).toBe(true);
      }
    }
  });

  it('a row that no vector width divides keeps element loads of the bias, and the result', () => {
    const r = seeded(seed + 1);
    const { f, bias } = biasAdd('BFloat16');
    const { kernel, compiled } = simulateAndCheck(f, [randomTensor('BFloat16', [80, 257], r), randomTensor('BFloat16', [257], r)], label('bias add 80x257'));
    expect(compiled.params.schedulerType === 'pointwise' ? compiled.params.vectorizationFactor : 0).toBe(1);
    expect(loadWidths(kernel, bias).every((w) => w === 1)).toBe(true);
  });

  it("RoPE's cos / sin [T, E] are read with vector loads beside the sliced x", () => {
    const r = seeded(seed + 2);
    for (const [b, n, t, e] of [[3, 8, 24, 64], [2, 4, 40, 128]] as const) {
      const { f, cos, sin } = ropeWithTables(e);
      const inputs = [randomTensor('BFloat16', [b, n, t, e], r), randomTensor('BFloat16', [t, e], r), randomTensor('BFloat16', [t, e], r)];
      const { kernel, compiled } = simulateAndCheck(f, inputs, label(`rope [${b}, ${n}, ${t}, ${e}]`));
      expect(compiled.params.schedulerType).toBe('pointwise');
      const v = compiled.params.schedulerType === 'pointwise' ? compiled.params.vectorizationFactor : 0;
      expect(v).toBe(8);
      for (const tv of [cos, sin]) {
        const widths = loadWidths(kernel, tv);
        expect(widths.length).toBeGreaterThan(0);
        expect(widths.every((w) => w === 8), `T${tv.name} loads: widths ${widths.join(', ')}`).toBe(true);
      }
    }
  });

  it('an inner broadcast (a per-row scale [N] over [N, H]) and a pad after the bias stay element loads', () => {
    const r = seeded(seed + 3);
    const f = new Fusion();
    const x = input(f, 2, 'Float');
    const scale = input(f, 1, 'Float');
    f.addOutput(mul(x, broadcastInDim(scale, [x.axis(0).extent, x.axis(1).extent], [0])));
    const { kernel } = simulateAndCheck(f, [randomTensor('Float', [40, 256], r), randomTensor('Float', [40], r)], label('row scale'));
    expect(loadWidths(kernel, scale).every((w) => w === 1)).toBe(true);

    const g = new Fusion();
    const y = input(g, 2, 'Float');
    const bias = input(g, 1, 'Float');
    g.addOutput(pad(add(y, broadcastInDim(bias, [y.axis(0).extent, y.axis(1).extent], [1])), [0, 4]));
    const sim = simulateAndCheck(g, [randomTensor('Float', [24, 128], r), randomTensor('Float', [128], r)], label('bias add then pad'));
    expect(loadWidths(sim.kernel, bias).every((w) => w === 1)).toBe(true);
  });
});
