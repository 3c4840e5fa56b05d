// Lower-rank inputs read through a broadcast that feeds a slice / pad / cat (issue 38: RoPE's
// backward multiplies grad_out by sin [T, E] broadcast to [B, n, T, E] before rotate-half's
// slices, so sin is read at two shifted indices). The pointwise schedule takes each per-space
// copy of the broadcast as that input's cache (scheduler src/pointwise/broadcast-reads.ts), so
// the kernel reads it with vector loads at the shifted index instead of one element at a time
// inside the vector loop (8 two-byte loads and 8 index divisions per vector in bf16 before).
// Each case is simulated against the reference evaluator on random inputs (NaN-poisoned
// outputs, seed printed) and the loads of the broadcast input are checked to be vectors of the
// heuristics' width.
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

/**
 * The sweep's rope_bwd (tsfuser src/bench/sweep-resize-definitions.ts): v = dy · sin,
 * dx = dy · cos + cat(v[…, E/2:], −v[…, :E/2]); dy [B, n, T, E], cos / sin [T, E].
 */
function ropeBackward(e: number, dtype: DataType): { f: Fusion; cos: TensorView; sin: TensorView } {
  const f = new Fusion();
  const dy = input(f, 4, dtype);
  const cos = input(f, 2, dtype);
  const sin = input(f, 2, dtype);
  const shape = [0, 1, 2, 3].map((d) => dy.axis(d).extent);
  const [b, n, t] = [shape[0], shape[1], shape[2]] as [never, never, never];
  const dyf = cast(dy, 'Float');
  const table = (tv: TensorView): TensorView => cast(broadcastInDim(tv, shape, [2, 3]), 'Float');
  const v = mul(dyf, table(sin));
  const lo = slice(v, [0, 0, 0, 0], [b, n, t, e / 2]);
  const hi = slice(v, [0, 0, 0, e / 2], [b, n, t, e]);
  f.addOutput(cast(add(mul(dyf, table(cos)), cat([hi, neg(lo)], 3)), dtype));
  return { f, cos, sin };
}

function pointwiseVector(compiled: { params: { schedulerType: string } }): number {
  const p = compiled.params as { schedulerType: string; vectorizationFactor?: number };
  return p.schedulerType === 'pointwise' ? (p.vectorizationFactor ?? 0) : 0;
}

describe('pointwise: lower-rank inputs read through a broadcast feeding a resize', () => {
  it("RoPE backward's sin (sliced after the multiply) and cos are read with vector loads, bf16 and f32", () => {
    const r = seeded(seed);
    for (const dtype of ['BFloat16', 'Float'] as const) {
      for (const [b, n, t, e] of [[1, 8, 136, 128], [2, 8, 136, 64], [1, 12, 97, 128]] as const) {
        const { f, cos, sin } = ropeBackward(e, dtype);
        const inputs = [randomTensor(dtype, [b, n, t, e], r), randomTensor(dtype, [t, e], r), randomTensor(dtype, [t, e], r)];
        const { kernel, compiled } = simulateAndCheck(f, inputs, label(`rope_bwd ${dtype} [${b}, ${n}, ${t}, ${e}]`));
        expect(compiled.params.schedulerType).toBe('pointwise');
        const v = pointwiseVector(compiled);
        expect(v, `${dtype} [${b}, ${n}, ${t}, ${e}] is vectorized`).toBe(dtype === 'Float' ? 4 : 8);
        for (const tv of [cos, sin]) {
          const widths = loadWidths(kernel, tv);
          expect(widths.length).toBeGreaterThan(0);
          expect(widths.every((w) => w === v), `T${tv.name} loads (${dtype}): widths ${widths.join(', ')}, vector ${v}`).toBe(true);
        }
        // sin is read in the two shifted spaces of the slices: two vector loads.
        expect(loadWidths(kernel, sin).length).toBe(2);
      }
    }
  });

  it('a bias [H] broadcast, scaled and concatenated with its own shifted half, and a padded bias product', () => {
    const r = seeded(seed + 1);
    for (const [rows, h] of [[136, 1024], [300, 512]] as const) {
      const f = new Fusion();
      const x = input(f, 2, 'BFloat16');
      const bias = input(f, 1, 'BFloat16');
      const [n, w] = [x.axis(0).extent, x.axis(1).extent];
      const p = mul(cast(x, 'Float'), cast(broadcastInDim(bias, [n, w], [1]), 'Float'));
      const left = slice(p, [0, 0], [n, h / 2]);
      const right = slice(p, [0, h / 2], [n, h]);
      f.addOutput(cast(cat([right, left], 1), 'BFloat16'));
      const { kernel, compiled } = simulateAndCheck(f, [randomTensor('BFloat16', [rows, h], r), randomTensor('BFloat16', [h], r)], label(`bias cat ${rows}x${h}`));
      const v = pointwiseVector(compiled);
      expect(v).toBe(8);
      const widths = loadWidths(kernel, bias);
      expect(widths.length).toBe(2);
      expect(widths.every((x2) => x2 === v), `bias loads: ${widths.join(', ')}`).toBe(true);
    }
    // At least a wave of 128-thread blocks × 8 elements (132 SMs) above, so the heuristics vectorize.
    // A pad after the product: whatever width the heuristics pick, the values match.
    const g = new Fusion();
    const y = input(g, 2, 'Float');
    const bias = input(g, 1, 'Float');
    g.addOutput(pad(mul(y, broadcastInDim(bias, [y.axis(0).extent, y.axis(1).extent], [1])), [8, 8]));
    simulateAndCheck(g, [randomTensor('Float', [64, 256], r), randomTensor('Float', [256], r)], label('bias product then pad'));
  });
});
