// Welford codegen through the reduction scheduler (var_mean, welford): golden dumps of a block
// and a grid Welford kernel, structure (serial welfordCombine per thread, blockWelford /
// gridWelford outside any `if`, results under thread predicates, shared memory for three
// values per thread, count work buffer), kernels simulated on the CPU against the reference
// evaluator with fresh random inputs (inner, outer, multi-axis, odd, size 1 and 0, keepdim,
// Half / BFloat16, with and without grid reduction, random specs, data with a large mean),
// and nvcc -ptx of every Welford fixture with 32- and 64-bit indexing.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkGolden, evaluate, HostTensor, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentPlanFor } from '@tsfuser/scheduler';
import { compileFusion } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import {
  batchNormCase, buildReduction, isWelfordKind, randomReductionSpec, reductionFixtures, reductionRegistry, seededRandom, testSeed, tierCases, tierCount, type ReductionCase, type ReductionSpec,
} from '@tsfuser/test-support';
import { byName, lowerCase, simulateAndCompare, walk } from './reduction-simulation.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/reduction/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function welfordFixtures(): ReductionCase[] {
  return reductionFixtures().filter((c) => isWelfordKind(c.op));
}

const numel = (c: ReductionCase): number => Math.max(...c.sizes.map((s) => s.reduce((a, b) => a * b, 1)));

describe('Welford codegen (reduction scheduler)', () => {
  it('golden dumps: block Welford over TIDx (var_mean, inner), grid Welford (outer, keepdim, BFloat16)', () => {
    for (const name of ['var_mean_inner_Float', 'grid_var_mean_outer']) {
      const c = byName(name);
      const k = compileFusion(c.fusion, c.info, { registry: reductionRegistry() });
      for (const [suffix, text] of [['kernel_ir', k.dumps.kernelIr], ['cuda_kernel', k.dumps.cuda], ['scheduler_params', k.dumps.schedulerParams + k.dumps.launchParams]] as const) {
        expect(checkGolden(text, `${dir}${name}.${suffix}.txt`, update).diff).toBe('');
      }
    }
  });

  it('structure: serial welfordCombine, block/grid Welford never under an if, thread predicates, shared memory', () => {
    for (const c of welfordFixtures()) {
      const { kernel, compiled } = lowerCase(c);
      let parallel = 0;
      let serial = 0;
      walk(kernel.body, false, (s, insideIf) => {
        if (s.kind === 'BlockWelford' || s.kind === 'GridWelford') {
          parallel += 1;
          expect(insideIf, `${c.name}: ${s.kind} inside an if`).toBe(false);
          expect(compiled.launch.sharedMemBytes, c.name).toBeGreaterThanOrEqual(compiled.launch.block[0] * compiled.launch.block[1] * (2 * 4 + 8));
        }
        if (s.kind === 'WelfordUpdate') serial += 1;
        expect(s.kind === 'BlockReduce' || s.kind === 'GridReduce', `${c.name}: a plain block reduction`).toBe(false);
      });
      expect(serial, c.name).toBeGreaterThan(0);
      if (parallel > 0) expect(compiled.dumps.kernelIr, c.name).toMatch(/IF .*threadIdx\.[xy] < 1/);
      expect(compiled.dumps.cuda).toContain('welfordCombine(');
    }
    const grid = lowerCase(byName('grid_var_mean_inner'));
    expect(grid.kernel.deviceGlobals.map((g) => g.ctype)).toEqual(['double', 'double', 'long long', 'unsigned int']);
    expect(grid.compiled.dumps.cuda).toMatch(/const nvfuser_index_t T\d+_grid_pending = gridWelford<true, false>/);
    expect(grid.compiled.dumps.kernelIr).toMatch(/IF T\d+_grid_pending < 1/);
  });

  it('grid Welford for few long rows (inner, outer, full); none for many rows', () => {
    for (const name of ['grid_var_mean_inner', 'grid_welford_inner_odd_half', 'grid_var_mean_outer', 'grid_var_mean_full']) {
      const { compiled } = lowerCase(byName(name));
      expect(compiled.launch.grid[1], name).toBeGreaterThan(1);
      expect(compiled.dumps.kernelIr, name).toContain('GRID_WELFORD');
    }
    expect(lowerCase(byName('var_mean_inner_Float')).compiled.launch.grid[1]).toBe(1);
  });

  it('simulated Welford fixtures match the reference evaluator (moderate sizes)', () => {
    const small = welfordFixtures().filter((c) => numel(c) <= 300_000);
    expect(small.length).toBeGreaterThan(20);
    // The fast test tier (testTier): an evenly spread 8 of them.
    for (const c of tierCases(small, 8)) simulateAndCompare(c);
  });

  it('simulated random var_mean / welford fusions match the reference evaluator', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    let n = 0;
    while (n < tierCount(40, 6)) {
      const base = randomReductionSpec(rand);
      const spec: ReductionSpec = { ...base, op: rand() < 0.5 ? 'var_mean' : 'welford' };
      if (spec.shape.reduce((a, b) => a * b, 1) > 60_000) continue;
      const c = buildReduction(`random_welford_${seed}_${n}`, spec);
      try {
        simulateAndCompare(c);
      } catch (e) {
        throw new Error(`seed ${seed} case ${n} ${JSON.stringify(spec)}: ${(e as Error).message}`);
      }
      n += 1;
    }
  });

  it('numerically stable: var of data with a large mean (1e4 + noise) in Float, inner and grid', () => {
    for (const [shape, axes] of [[[16, 2000], [1]], [[3, 40000], [1]], [[3000, 5], [0]]] as const) {
      const c = buildReduction('offset', { op: 'var_mean', dtype: 'Float', shape: [...shape], axes: [...axes] });
      const { kernel, compiled } = lowerCase(c);
      const n = shape[0] * shape[1];
      const seed = testSeed();
      const rand = seededRandom(seed);
      const x = HostTensor.fromValues('Float', [...shape], Array.from({ length: n }, () => 1e4 + (rand() - 0.5)));
      const want = evaluate(c.fusion, [x]) as HostTensor[];
      const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
      const got = simulateKernel(kernel, compiled.launch, [x, ...outs]).slice(1);
      // var ≈ 1/12 from values ≈ 1e4 stored in float (ulp 1e-3): Welford keeps it to ~1e-4
      // relative (E[x²] − E[x]² in float would lose every digit: x² ≈ 1e8 has an ulp of 8)
      const v = (got[0] as HostTensor).toNumbers();
      (want[0] as HostTensor).toNumbers().forEach((w, k) => expect(Math.abs((v[k] as number) - w), `${shape.join('x')} element ${k} (inputs: seed ${seed})`).toBeLessThan(1e-3 * w));
    }
  });

  it('batch-norm Welford fallbacks: the reduction segment compiles at full size and simulates at a small one', () => {
    for (const [dtype, shape, small] of [['BFloat16', [8, 32, 32, 64], [2, 4, 5, 6]], ['Float', [64, 64, 64, 32], [3, 7, 5, 4]]] as const) {
      const c = batchNormCase(dtype, [...shape], true, []);
      const groups = segmentPlanFor(c.fusion, c.info, defaultSchedulerRegistry()).groups.filter((g) => g.schedulerType === 'reduction');
      expect(groups.length, c.name).toBe(1);
      const gf = (groups[0] as (typeof groups)[number]).fusion;
      // inputs: x-shaped (the Welford's) or per-channel
      const sizesOf = (base: readonly number[]): number[][] =>
        gf.inputs.map((v) => ((v as TensorView).domain.logicalNoReductions().length === base.length ? [...base] : [base[base.length - 1] as number]));
      const full = compileFusion(gf, makeRuntimeInfo(gf, sizesOf(shape).map((z) => ({ sizes: z }))), { registry: reductionRegistry() });
      expect(full.dumps.kernelIr).toContain('WELFORD');
      const sizes = sizesOf(small);
      simulateAndCompare({ name: `${c.name}_reduction_segment`, fusion: gf, sizes, info: makeRuntimeInfo(gf, sizes.map((z) => ({ sizes: z }))), op: 'welford', reductionSize: small[0] * small[1] * small[2] });
    }
  });

  it.skipIf(!hasNvcc)('every Welford fixture, 40 random ones and 64-bit indexing compile with nvcc -ptx -arch=sm_90', async () => {
    const cases = welfordFixtures();
    const seed = testSeed();
    const rand = seededRandom(seed);
    for (let i = 0; i < tierCount(40, 6); i += 1) cases.push(buildReduction(`random_welford_${i}`, { ...randomReductionSpec(rand), op: i % 2 === 0 ? 'var_mean' : 'welford' }));
    const kernels = cases.map((c, i) => compileFusion(c.fusion, c.info, { fusionId: 30000 + i, registry: reductionRegistry() }));
    // 64-bit indexing (never run: 2.8e9 elements): nvfuser_index_t counts are long long
    for (const [axes, sizes, op] of [[[1], [70000, 40000], 'var_mean'], [[0], [40000, 70000], 'welford']] as const) {
      const big = buildReduction(`index64_welford_${axes[0]}`, { op, dtype: 'Half', shape: [...sizes], axes: [...axes] });
      const k = compileFusion(big.fusion, big.info, { fusionId: 39990 + axes[0], registry: reductionRegistry() });
      expect(k.indexType).toBe('Int');
      kernels.push(k);
    }
    await compileKernelsWithNvcc(kernels, { label: 'welford', context: `random seed ${seed}` });
  });
});
