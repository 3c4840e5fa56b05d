// Random numbers inside reduction kernels: sum(rand_like(x) · x) over the inner or the outer
// dim through the default registry (the reduction scheduler, rFactor partials included),
// simulated against the reference evaluator — the RNG tensor is indexed by its logical linear
// index there too.
import { evaluate, Fusion, HostTensor, makeTensor, mul, randLike, sum } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { compileFusion, lowerFusion } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';

describe('RNG in reduction kernels', () => {
  for (const [rows, cols, axis] of [[64, 1000, 1], [1000, 64, 0], [4, 30000, 1]] as const) {
    it(`sum(rand_like(x) · x, [${axis}]) over [${rows}, ${cols}]`, () => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1] });
      f.addInput(x);
      f.addOutput(sum(mul(randLike(x, { rngSeed: 1, rngOffset: 2 }), x), [axis]));
      const info = makeRuntimeInfo(f, [{ sizes: [rows, cols] }]);
      const compiled = compileFusion(f, info);
      expect(compiled.params.schedulerType).toBe('reduction');
      const { scheduler } = defaultSchedulerRegistry().pick(f, info);
      const b = compiled.launch.block;
      const kernel = lowerFusion(scheduler.schedule(f.clone().fusion, compiled.params), { kernelName: compiled.kernelName, maxThreadsPerBlock: b[0] * b[1] * b[2] });
      const input = HostTensor.fromValues('Float', [rows, cols], Array.from({ length: rows * cols }, (_, i) => Math.cos(i)));
      const want = (evaluate(f, [input])[0] as HostTensor).toNumbers();
      const n = axis === 1 ? rows : cols;
      const out = HostTensor.fromValues('Float', [n], new Array<number>(n).fill(NaN));
      const got = (simulateKernel(kernel, compiled.launch, [input, out])[1] as HostTensor).toNumbers();
      // Sums in another order: Float rounding of the partial sums only.
      const bad = got.findIndex((v, i) => !(Math.abs(v - (want[i] as number)) <= 1e-4 * Math.max(1, Math.abs(want[i] as number))));
      expect(bad, `element ${bad}: ${got[bad]} vs ${want[bad]}`).toBe(-1);
    });
  }
});
