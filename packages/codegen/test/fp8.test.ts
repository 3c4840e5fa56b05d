// fp8 in generated kernels, simulated against the reference evaluator byte for byte (the
// test-support fp8 fixtures): casts to and from Float8_e4m3fn / Float8_e5m2 / Float8_e8m0fnu
// through the pointwise scheduler (vectorized), fp8 inputs computed in float, an fp8 row sum,
// the e8m0 block scale (reduction epilogue) and the per-row e4m3 scaling recipe (persistent).
// The emitted CUDA names the runtime's conversions (emit/runtime/fp8.ts; their bits are checked
// on the host against PyTorch by fp8-nvcc.test.ts).
import { evaluate, HostTensor, type Fusion } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo } from '@tsfuser/scheduler';
import { fp8Cases, fp8DirectReductionCases } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { compileFusion, lowerFusion, type CompiledKernel } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';

/** Compiles `f` for `inputs`, simulates the kernel and returns the outputs next to the reference's. */
function run(f: Fusion, inputs: readonly HostTensor[]): { got: HostTensor[]; want: HostTensor[]; compiled: CompiledKernel } {
  const info = makeRuntimeInfo(f, inputs.map((t) => ({ sizes: t.sizes })));
  const compiled = compileFusion(f, info);
  const { scheduler } = defaultSchedulerRegistry().pick(f, info);
  const b = compiled.launch.block;
  const kernel = lowerFusion(scheduler.schedule(f.clone().fusion, compiled.params), { kernelName: compiled.kernelName, maxThreadsPerBlock: b[0] * b[1] * b[2] });
  const want = evaluate(f, [...inputs]) as HostTensor[];
  const outs = want.map((w) => HostTensor.empty(w.dtype, w.sizes));
  const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  return { got, want, compiled };
}

/** The stored bits of a tensor (NaN payloads and −0 included). */
function bits(t: HostTensor): number[] {
  const d = t.contiguous().data;
  if (d instanceof Float32Array) return Array.from(new Uint32Array(d.buffer, d.byteOffset, d.length));
  return Array.from(d as Uint8Array | Uint16Array, Number);
}

// Large enough for a full wave of the fake H100, so the pointwise heuristics vectorize.
const SIZES: Readonly<Record<string, [number, number]>> = {
  fp8_cast_round_trip: [64, 1024],
  fp8_e4m3_times_e5m2: [64, 512],
  fp8_e4m3_row_sum: [32, 512],
  fp8_e8m0_block_scale: [64, 32],
  fp8_row_scaled_e4m3: [32, 1024],
};

describe('fp8 kernels (simulated, bit-exact against the reference)', () => {
  for (const c of [...fp8Cases(), ...fp8DirectReductionCases()]) {
    it(`${c.name} (${c.scheduler})`, () => {
      const seed = 8100 + c.name.length;
      console.log(`${c.name} seed ${seed}`);
      const [rows, cols] = SIZES[c.name] ?? [16, 128];
      const { got, want, compiled } = run(c.fusion, c.inputs(seed, rows, cols));
      expect(compiled.params.schedulerType).toBe(c.scheduler);
      want.forEach((w, i) => {
        const g = bits(got[i] as HostTensor);
        const e = bits(w);
        const bad = g.findIndex((v, k) => v !== e[k]);
        expect(bad, `output ${i} (${w.dtype}) element ${bad}: ${g[bad]} vs ${e[bad]}`).toBe(-1);
      });
      if (c.scheduler === 'pointwise') expect((compiled.params as { vectorizationFactor?: number }).vectorizationFactor).toBeGreaterThanOrEqual(4);
    });
  }

  it('emits the runtime conversions and fp8 tensor types', () => {
    const c = fp8Cases().find((k) => k.name === 'fp8_cast_round_trip');
    if (c === undefined) throw new Error('fixture missing');
    const { cuda } = compileFusion(c.fusion, makeRuntimeInfo(c.fusion, [{ sizes: [64, 1024] }])).dumps;
    for (const fn of ['__float2e4m3(', '__float2e5m2(', '__float2e8m0(', '__e4m32float(', '__e5m22float(', '__e8m02float(', 'Tensor<__e4m3', 'Tensor<__e8m0']) expect(cuda).toContain(fn);
  });
});
