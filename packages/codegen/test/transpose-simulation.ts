// Test helper for transpose kernels: compile a fusion for a given device (a small device makes
// small sizes take the transpose scheduler, so simulations stay fast), lower it with the kernel
// IR verifier after every pass, run it in the kernel simulator on NaN-poisoned outputs and compare
// every element with the reference evaluator. Failure messages carry the label and the seed.
import { evaluate, HostTensor, type DataType, type EvalValue, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, H100_PROPERTIES, type SchedulerDevice as DeviceProperties, type KernelParams } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion, verifyKernelIr } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { compareOutput, poisonedOutput, randomTensor, runtimeInfoOf, seeded } from './shape-ops-simulation.js';

/** An H100 with 2 SMs: one full wave of 32×32 tiles is 2,048 elements. */
export const SMALL_DEVICE: DeviceProperties = { ...H100_PROPERTIES, smCount: 2 };

/**
 * Simulates `fusion` compiled for `device`. `inputs`: the values, or the sizes of random inputs
 * of `dtype`. Throws, naming `label`, on a verifier violation or a mismatch.
 */
export function simulateOnDevice(fusion: Fusion, inputs: readonly EvalValue[] | readonly (readonly number[])[], dtype: DataType | null, seed: number, device: DeviceProperties, label = `seed ${seed}`): { params: KernelParams } {
  const r = seeded(seed);
  const values: EvalValue[] = inputs.map((v) => (Array.isArray(v) ? randomTensor(dtype ?? 'Float', v as number[], r) : (v as EvalValue)));
  const info = { ...runtimeInfoOf(fusion, values), device };
  const registry = defaultSchedulerRegistry();
  const compiled = compileFusion(fusion, info, { registry });
  const { scheduler } = registry.pick(fusion, info);
  const scheduled = scheduler.schedule(fusion.clone().fusion, compiled.params);
  const lp = compiled.params.lparams;
  const problems: string[] = [];
  const kernel = lowerFusion(scheduled, {
    kernelName: compiled.kernelName,
    maxThreadsPerBlock: Math.max(1, lp.bdimx * lp.bdimy * lp.bdimz),
    observe: (pass, body, params) => problems.push(...verifyKernelIr(body, params, { pendingAllowed: pass === 'kernel-signature' || pass === 'loop-nest' || pass === 'allocation' }).map((p) => `${pass}: ${p}`)),
  });
  if (problems.length > 0) throw new Error(`${label}: kernel IR verifier:\n${problems.join('\n')}`);
  const want = evaluate(fusion, values) as HostTensor[];
  const outputs = fusion.outputs.map((o, i) => poisonedOutput(o as TensorView, want[i] as HostTensor));
  const args = values.map((v) => (v instanceof HostTensor ? v : Number(v)));
  const got = simulateKernel(kernel, compiled.launch, [...args, ...outputs]).slice(args.filter((a) => typeof a !== 'number').length);
  want.forEach((w, i) => compareOutput(w, got[i] as HostTensor, `${label}: output ${i}`));
  return { params: compiled.params };
}
