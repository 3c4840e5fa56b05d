// Extents computed at run time from scalar inputs through scalar math the integer extent
// arithmetic does not cover: a reshape to [S0, 192 * reciprocal(S0) - (signbit(S0) & fmod(192, S0)
// != 0)] (nvFuser's test_reshape_dynamic, the sizes torch's reshape(-1) inference computes) and a
// pad by (int64)(2.5 * S0). Both were refused ("cannot evaluate extent i20 from the input sizes
// and integral scalar inputs"; then, in the kernel, "extent i20 is neither constant nor derived
// from a tensor argument's sizes"). The scheduler evaluates such an extent with the reference
// evaluator's scalar semantics; the kernel computes it at its start from the scalar argument.
// Checked by the CPU kernel simulator against the reference evaluator at several scalar values
// (random inputs, seed printed) and, where nvcc is installed, by nvcc -cubin -arch=sm_90.
import { describe, expect, it } from 'vitest';
import {
  bitwiseAnd, cast, fmod, Fusion, makeTensor, mul, ne, pad, reciprocal, reshape, signbit, sub, sum, type EvalValue, type Scalar, type TensorView,
} from '@tsfuser/fusion-ir';
import { evaluateExtent, bindExtents, makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { baseSeed, randomTensor, runtimeInfoOf, seeded, simulateAndCheck } from './shape-ops-simulation.js';

/** x [4, 8, 6] reshaped to [S0, 192 / S0 (as test_reshape_dynamic computes it)] and summed over dim 1. */
function reshapeDynamicFusion(): { fusion: Fusion; rows: Scalar; cols: Scalar } {
  const f = new Fusion();
  const s0 = f.newSymbolicScalar('Int');
  const x = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
  f.addInput(s0);
  f.addInput(x);
  const negative = ne(signbit(s0), false);
  const inexact = ne(cast(fmod(192, s0), 'Int'), 0);
  const cols = cast(sub(mul(192, reciprocal(s0)), cast(bitwiseAnd(negative, inexact), 'Int')), 'Int') as Scalar;
  f.addOutput(sum(reshape(x, [s0, cols]), [1]));
  return { fusion: f, rows: s0, cols };
}

/** x [R, C] padded by (int64)(2.5 * S0) on both sides of its last dim (a gather: one kernel per padded dim), then doubled. */
function runtimePadFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
  const s0 = f.newSymbolicScalar('Int');
  f.addInput(x);
  f.addInput(s0);
  const w = cast(mul(2.5, s0), 'Int') as Scalar;
  f.addOutput(mul(pad(x, [w, w]), 2) as TensorView);
  return f;
}

describe('extents computed from scalar inputs by scalar math', () => {
  it('the scheduler evaluates a reshape size computed with reciprocal, signbit, fmod and casts', () => {
    const { fusion, cols } = reshapeDynamicFusion();
    for (const [s0, want] of [[32, 6], [12, 16], [64, 3]] as const) {
      const bindings = bindExtents(fusion, makeRuntimeInfo(fusion, [{ value: s0 }, { sizes: [4, 8, 6] }]));
      expect(evaluateExtent(cols, bindings), `S0 = ${s0}`).toBe(want);
    }
  });

  it('a reshape to run-time sizes then a reduction simulates like the fusion (test_reshape_dynamic)', () => {
    const { fusion } = reshapeDynamicFusion();
    const seed = baseSeed();
    const rng = seeded(seed);
    for (const s0 of [32, 12, 64]) {
      const inputs: EvalValue[] = [BigInt(s0), randomTensor('Float', [4, 8, 6], rng)];
      simulateAndCheck(fusion, inputs, `reshape to [${s0}, 192 / ${s0}] (TSFUSER_SEED=${seed})`);
    }
  });

  it('a pad by widths computed from a scalar input simulates like the fusion', () => {
    const fusion = runtimePadFusion();
    const seed = baseSeed();
    const rng = seeded(seed);
    for (const s0 of [0, 1, 3]) {
      simulateAndCheck(fusion, [randomTensor('Float', [5, 7], rng), BigInt(s0)], `pad by (int64)(2.5 * ${s0}) (TSFUSER_SEED=${seed})`);
    }
  });

  it.skipIf(!hasNvcc)('both kernels compile with nvcc -cubin -arch=sm_90', async () => {
    const { fusion } = reshapeDynamicFusion();
    const rng = seeded(1);
    const kernels: CompiledKernel[] = [
      compileFusion(fusion, runtimeInfoOf(fusion, [32n, randomTensor('Float', [4, 8, 6], rng)]), { fusionId: 41100 }),
    ];
    const padded = runtimePadFusion();
    const info = runtimeInfoOf(padded, [randomTensor('Float', [5, 7], rng), 3n]);
    kernels.push(compileFusion(padded, info, { fusionId: 41101 }));
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'runtime-extents', cubin: true });
  }, 120_000);
});
