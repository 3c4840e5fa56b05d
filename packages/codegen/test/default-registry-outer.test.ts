// Batch-norm-like fusions (batch-norm-fixtures.ts) through the default registry, as the runtime
// runs them: segmentation (segmentPlanFor) picks the schedulers — outer_persistent for
// channels-last batch_norm, x − mean(x, 0) and var_mean(x, 0) + normalize, inner_persistent
// for NCHW batch_norm, reduction (sum or Welford) + pointwise when a column does not fit in
// registers or there are too few columns for a persistent kernel — every
// segment is compiled with compileFusion's default registry, lowered, and simulated on the CPU
// in plan order, each segment reading the simulated outputs of the earlier ones; the final
// outputs are compared with the reference evaluator on fresh random inputs, and every
// segment's kernel is compiled with nvcc -ptx -arch=sm_90. The GPU suite's larger cases are
// checked for their segments only.
import { describe, expect, it } from 'vitest';
import { evaluate, HostTensor, type DataType } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentPlanFor } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion, type CompiledKernel } from '../src/index.js';
import { batchNormCases, gpuBatchNormCases, randomBatchNormInputs, seededRandom, testSeed, type BatchNormCase } from '@tsfuser/test-support';
import { simulateKernel } from './kernel-simulator.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';

interface PlanRun {
  types: string[];
  outputs: HostTensor[];
  kernels: CompiledKernel[];
}

/** Segments with the default registry and runs every segment's simulated kernel in order. */
function runPlan(c: BatchNormCase, inputs: readonly HostTensor[], fusionId: number): PlanRun {
  const plan = segmentPlanFor(c.fusion, c.info);
  const values = new Map(c.fusion.inputs.map((v, i) => [v, inputs[i] as HostTensor]));
  const kernels: CompiledKernel[] = [];
  plan.groups.forEach((g, gi) => {
    const args = g.inputs.map((v) => {
      const t = values.get(v);
      if (t === undefined) throw new Error(`${c.name}: segment ${gi} reads a value no earlier segment wrote`);
      return t;
    });
    const ginfo = makeRuntimeInfo(g.fusion, args.map((t) => ({ sizes: [...t.sizes] })));
    const compiled = compileFusion(g.fusion, ginfo, { fusionId, groupId: gi });
    kernels.push(compiled);
    const { scheduler } = defaultSchedulerRegistry().pick(g.fusion, ginfo);
    const scheduled = scheduler.schedule(g.fusion.clone().fusion, compiled.params);
    const b = compiled.launch.block;
    const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: b[0] * b[1] * b[2] });
    const shapes = evaluate(g.fusion, args) as HostTensor[];
    const outs = shapes.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
    const got = simulateKernel(kernel, compiled.launch, [...args, ...outs]).slice(args.length);
    g.outputs.forEach((v, i) => values.set(v, got[i] as HostTensor));
  });
  const outputs = c.fusion.outputs.map((v) => {
    const t = values.get(v);
    if (t === undefined) throw new Error(`${c.name}: no segment wrote a fusion output`);
    return t;
  });
  return { types: plan.groups.map((g) => g.schedulerType ?? 'none'), outputs, kernels };
}

function tolerance(dtype: DataType, reduced: number): number {
  const out = dtype === 'Half' ? 4e-3 : dtype === 'BFloat16' ? 3.2e-2 : 2e-6;
  return out + 2e-7 * Math.sqrt(Math.max(1, reduced)) * 16;
}

describe('batch-norm-like fusions through the default registry', () => {
  const compiled: CompiledKernel[] = [];

  it('segment as expected and the simulated kernels match the reference evaluator', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    batchNormCases().forEach((c, ci) => {
      const inputs = randomBatchNormInputs(c, rand);
      const want = evaluate(c.fusion, inputs) as HostTensor[];
      const run = runPlan(c, inputs, 61000 + ci * 10);
      expect(run.types, c.name).toEqual(c.segments);
      compiled.push(...run.kernels);
      const tol = tolerance(c.dtype, c.reduced);
      want.forEach((w, i) => {
        const g = (run.outputs[i] as HostTensor).toNumbers();
        w.toNumbers().forEach((x, k) => {
          const y = g[k] as number;
          if (!(Math.abs(x - y) <= tol * Math.max(1, Math.abs(x)))) expect.fail(`${c.name} (inputs: seed ${seed}) output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol})`);
        });
      });
    });
  }, 300_000);

  it.skipIf(!hasNvcc)('every segment kernel compiles with nvcc -ptx -arch=sm_90', async () => {
    const kernels = compiled.length > 0 ? compiled : batchNormCases().flatMap((c, ci) => runPlan(c, randomBatchNormInputs(c), 61000 + ci * 10).kernels);
    await compileKernelsWithNvcc(kernels, { label: 'default-outer' });
  }, 300_000);

  it('the GPU suite\'s cases get the segments they expect', () => {
    for (const c of gpuBatchNormCases()) {
      expect(segmentPlanFor(c.fusion, c.info).groups.map((g) => g.schedulerType ?? 'none'), c.name).toEqual(c.segments);
    }
  });
});
