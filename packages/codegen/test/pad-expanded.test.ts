// pad of an expanded broadcast dim (stride 0, extent E): l + E + r elements, [l, l + E) the
// broadcast value, as nvFuser materializes it (test_pad_expanded_empty pads a [2, 0, 3] tensor of
// strides [0, 0, 0]). The pointwise scheduler refused it before ("pad producing T1 resizes
// broadcast dim 0 of T0"): pad() now builds it, like a plain broadcast's pad, from the squeezed,
// re-broadcast tensor expanded to the new size and a where() on an iota mask.
// Checked against a formula written here (reference evaluator), by the CPU kernel simulator
// against the reference evaluator (random inputs, seed printed) and by nvcc -cubin -arch=sm_90.
import { describe, expect, it } from 'vitest';
import { broadcast, evaluate, expand, Fusion, HostTensor, makeTensor, mul, pad, type TensorView } from '@tsfuser/fusion-ir';
import { segmentFusion, defaultSchedulerRegistry } from '@tsfuser/scheduler';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { baseSeed, randomTensor, runtimeInfoOf, seeded, simulateAndCheck } from './shape-ops-simulation.js';

/** x [C] broadcast and expanded to [rows, C], padded by (left, right) on dim 0 with -2.5, then doubled. */
function expandedPadFusion(rows: number, left: number, right: number): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x);
  const e = expand(broadcast(x, [true, false]), [rows, -1]);
  f.addOutput(mul(pad(e, [0, 0, left, right], f.constant(-2.5, 'Float')), 2) as TensorView);
  return f;
}

/** The expected output, element by element. */
function expected(x: HostTensor, rows: number, left: number, right: number): number[] {
  const c = x.sizes[0] as number;
  const out: number[] = [];
  for (let i = 0; i < left + rows + right; i += 1) {
    for (let j = 0; j < c; j += 1) out.push(i >= left && i < left + rows ? 2 * Number(x.get(j)) : -5);
  }
  return out;
}

describe('pad of an expanded broadcast', () => {
  const shapes = [[3, 1, 2], [4, 0, 0], [5, 2, 1], [0, 1, 1], [6, -2, 1]] as const;

  it('gives the broadcast value inside [left, left + E) and the pad value elsewhere; one pointwise segment', () => {
    const seed = baseSeed();
    const rng = seeded(seed);
    for (const [rows, left, right] of shapes) {
      const f = expandedPadFusion(rows, left, right);
      const x = randomTensor('Float', [7], rng);
      const out = evaluate(f, [x])[0] as HostTensor;
      expect(out.sizes, `rows ${rows}, pad (${left}, ${right})`).toEqual([left + rows + right, 7]);
      expect([...Array(out.numel).keys()].map((k) => Number(out.get(k))), `seed ${seed}`).toEqual(expected(x, rows, left, right));
      expect(segmentFusion(f, runtimeInfoOf(f, [x]), defaultSchedulerRegistry()).groups.map((g) => g.schedulerType)).toEqual(['pointwise']);
    }
  });

  it('simulates like the fusion', () => {
    const seed = baseSeed();
    const rng = seeded(seed);
    for (const [rows, left, right] of shapes) {
      simulateAndCheck(expandedPadFusion(rows, left, right), [randomTensor('Float', [7], rng)], `rows ${rows}, pad (${left}, ${right}) (TSFUSER_SEED=${seed})`);
    }
  });

  it.skipIf(!hasNvcc)('compiles with nvcc -cubin -arch=sm_90', async () => {
    const f = expandedPadFusion(64, 3, 5);
    const kernels: CompiledKernel[] = [compileFusion(f, runtimeInfoOf(f, [randomTensor('Float', [1000], seeded(1))]), { fusionId: 41300 })];
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'pad-expanded', cubin: true });
  }, 120_000);
});
