// Outer reductions vectorized along the iteration dim (scheduler reduction/outer-vectorization.ts,
// lowering's gapped tensors in loop-groups.ts, pass group-iteration-lanes): the kernel simulator
// against the reference evaluator on random shapes (divisible and not, bias before / after the
// reduction, keepdim, grid reductions; seed printed, TSFUSER_SEED replays), the structure of the
// kernels (vector loads, one grouped block / grid reduction of the lanes), the scalar schedule
// still reachable (ReductionOverrides.iterVector = 1), and nvcc -ptx of the emitted CUDA.
import { describe, expect, it } from 'vitest';
import { PointwiseScheduler, ReductionScheduler, SchedulerRegistry, type ReductionOverrides } from '@tsfuser/scheduler';
import { buildReduction, seededRandom, testSeed, type ReductionCase, type ReductionSpec } from '@tsfuser/test-support';
import { compileFusion, lowerFusion, type CompiledKernel, type Kernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { simulateKernel } from './kernel-simulator.js';
import { evaluate, HostTensor, type TensorView } from '@tsfuser/fusion-ir';
import { coarsestDtype, randomValues, tolerance, walk } from './reduction-simulation.js';

function registry(overrides: ReductionOverrides = {}): SchedulerRegistry {
  return new SchedulerRegistry([new PointwiseScheduler(), new ReductionScheduler({ preReductionOutputs: true }, overrides)]);
}

function lower(c: ReductionCase, overrides: ReductionOverrides = {}): { kernel: Kernel; compiled: CompiledKernel } {
  const reg = registry(overrides);
  const compiled = compileFusion(c.fusion, c.info, { registry: reg });
  const { scheduler } = reg.pick(c.fusion, c.info);
  const scheduled = scheduler.schedule(c.fusion.clone().fusion, compiled.params);
  const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] * compiled.launch.block[1] });
  return { kernel, compiled };
}

/** Simulates the kernel on seeded random inputs and compares every output with the reference. */
function check(c: ReductionCase, seed: number, overrides: ReductionOverrides = {}): CompiledKernel {
  const { kernel, compiled } = lower(c, overrides);
  const rand = seededRandom(seed);
  const inputs = c.fusion.inputs.map((v, i) => {
    const tv = v as TensorView;
    const sizes = c.sizes[i] as number[];
    return HostTensor.fromValues(tv.dtype, sizes, randomValues(tv.dtype, sizes.reduce((a, b) => a * b, 1), c.op, rand));
  });
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.sizes.reduce((a, b) => a * b, 1)).fill(NaN)));
  const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  const tol = tolerance(coarsestDtype(c), c.reductionSize) * 4;
  want.forEach((w, i) => {
    const wn = w.toNumbers();
    const gn = (got[i] as HostTensor).toNumbers();
    wn.forEach((x, k) => {
      const y = gn[k] as number;
      if (!(Math.abs(x - y) <= tol * Math.max(1, Math.abs(x)))) throw new Error(`${c.name} (seed ${seed}): output ${i} element ${k}: got ${y}, want ${x}`);
    });
  });
  return compiled;
}

function vectorOf(k: CompiledKernel): number {
  const m = /Iteration Domain: .*vectorize \/ factor (\d+)/.exec(k.dumps.schedulerParams);
  return m === null ? 1 : Number(m[1]);
}

describe('outer reductions vectorized along the iteration dim', () => {
  it('vector loads, per-lane accumulators and one grouped block / grid reduction; iterVector 1 keeps the scalar schedule', () => {
    for (const [shape, dtype, lanes, grid] of [[[64, 2048], 'BFloat16', 8, false], [[4096, 512], 'BFloat16', 8, true], [[4096, 1024], 'Float', 4, true]] as const) {
      const c = buildReduction(`sum_${shape.join('x')}_${dtype}`, { op: 'sum', dtype, shape: [...shape], axes: [0] });
      const { kernel, compiled } = lower(c);
      expect(vectorOf(compiled), c.name).toBe(lanes);
      expect(compiled.dumps.cuda).toContain(`loadGlobalToLocal<${dtype === 'Float' ? 'float' : '__bfloat'}, ${lanes}>`);
      expect(compiled.dumps.cuda).toContain(`${grid ? 'gridReduceLanes' : 'blockReduceLanes'}<false, true, ${lanes}>`);
      const reductions: number[] = [];
      walk(kernel.body, false, (s) => {
        if (s.kind === 'BlockReduce' || s.kind === 'GridReduce') reductions.push(s.lanes ?? 1);
      });
      expect(reductions, c.name).toEqual([lanes]);
      // the output's lanes are stored one by one (a few bytes per column)
      expect(compiled.dumps.cuda).toMatch(/T1\[\(blockIdx\.x \* \d+ \+ threadIdx\.x\) \* \d \+ i\d+\] = /);
      const scalar = lower(c, { iterVector: 1 }).compiled;
      expect(vectorOf(scalar)).toBe(1);
      expect(scalar.dumps.cuda).not.toContain('ReduceLanes');
      expect(scalar.dumps.schedulerParams).not.toContain('vectorize');
    }
  });

  it('an output written inside the reduction loops (pre-reduction output) stores its lanes as one vector', () => {
    const c = buildReduction('pre_out', { op: 'sum', dtype: 'BFloat16', shape: [300, 512], axes: [0], pre: 'exp', preOutput: true });
    const k = check(c, testSeed());
    expect(vectorOf(k)).toBe(8);
    expect(k.dumps.cuda).toMatch(/loadLocalToGlobal<__bfloat, 8>/);
  });

  it('the vector only where the kept extent, strides and alignment allow it (widest first), never for Welford', () => {
    const vec = (spec: ReductionSpec): number => vectorOf(lower(buildReduction('v', spec)).compiled);
    expect(vec({ op: 'sum', dtype: 'BFloat16', shape: [100, 4096], axes: [0] })).toBe(8);
    expect(vec({ op: 'sum', dtype: 'Float', shape: [100, 4096], axes: [0] })).toBe(4);
    expect(vec({ op: 'sum', dtype: 'BFloat16', shape: [100, 4100], axes: [0] })).toBe(4);
    expect(vec({ op: 'sum', dtype: 'Float', shape: [100, 4099], axes: [0] })).toBe(1);
    // fewer than a warp of vector columns: narrower vectors
    expect(vec({ op: 'sum', dtype: 'BFloat16', shape: [100, 128], axes: [0] })).toBe(4);
    expect(vec({ op: 'var_mean', dtype: 'Float', shape: [100, 4096], axes: [0] })).toBe(1);
    // inner reductions are vectorized along the reduction dim, not here
    expect(vec({ op: 'sum', dtype: 'Float', shape: [100, 4096], axes: [1] })).toBe(1);
  });

  it('simulated kernels match the reference on random shapes (divisible and not, biases, keepdim, grid)', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    const dtypes = ['BFloat16', 'Half', 'Float'] as const;
    const pres = ['none', 'bias', 'scale'] as const;
    let vectorized = 0;
    for (let n = 0; n < 14; n += 1) {
      const dtype = dtypes[Math.floor(rand() * dtypes.length)] ?? 'Float';
      const inner = [8, 24, 64, 136, 264, 520, 1000][Math.floor(rand() * 7)] ?? 64;
      const rows = 1 + Math.floor(rand() * 400);
      const threeD = rand() < 0.3;
      const spec: ReductionSpec = {
        op: rand() < 0.8 ? 'sum' : 'max',
        dtype,
        shape: threeD ? [rows, 3, inner] : [rows, inner],
        axes: threeD && rand() < 0.5 ? [0, 1] : [0],
        keepdim: rand() < 0.25,
        pre: pres[Math.floor(rand() * pres.length)] ?? 'none',
        post: rand() < 0.3 ? 'bias' : 'none',
        // written inside the reduction loops: a vector store of the lanes
        preOutput: rand() < 0.3,
      };
      const c = buildReduction(`random_${n}`, spec);
      try {
        if (vectorOf(check(c, seed + n)) > 1) vectorized += 1;
      } catch (e) {
        throw new Error(`seed ${seed} case ${n} ${JSON.stringify(spec)}: ${(e as Error).message}`);
      }
    }
    expect(vectorized, `seed ${seed}`).toBeGreaterThan(0);
  });

  it('grid reductions of lanes over many blocks in y, with rows past the end', () => {
    const seed = testSeed();
    for (const [shape, dtype] of [[[3001, 512], 'BFloat16'], [[2500, 264], 'Float'], [[6000, 256], 'Half']] as const) {
      const c = buildReduction(`grid_${shape.join('x')}`, { op: 'sum', dtype, shape: [...shape], axes: [0] });
      const k = check(c, seed);
      expect(k.launch.grid[1], c.name).toBeGreaterThan(1);
      expect(vectorOf(k)).toBeGreaterThan(1);
    }
  });

  it.skipIf(!hasNvcc)('nvcc -ptx compiles the vectorized kernels (block and grid, bf16 / f32, biases)', async () => {
    const specs: ReductionSpec[] = [
      { op: 'sum', dtype: 'BFloat16', shape: [8192, 4096], axes: [0] },
      { op: 'sum', dtype: 'Float', shape: [8192, 4096], axes: [0] },
      { op: 'sum', dtype: 'BFloat16', shape: [64, 2048], axes: [0], pre: 'bias', post: 'bias' },
      { op: 'max', dtype: 'Half', shape: [300, 3, 520], axes: [0, 1], keepdim: true },
      { op: 'sum', dtype: 'BFloat16', shape: [8192, 4096], axes: [0], pre: 'exp', preOutput: true },
    ];
    const kernels = specs.map((s, i) => {
      const c = buildReduction(`nvcc_${i}`, s);
      return compileFusion(c.fusion, c.info, { fusionId: 31000 + i, registry: registry() });
    });
    for (const k of kernels) expect(vectorOf(k)).toBeGreaterThan(1);
    await compileKernelsWithNvcc(kernels, { label: 'outer-vec' });
  });
});
