// Reduction codegen: golden dumps, structure (block reductions outside any `if`, thread
// predicates on the results, shared memory), kernels simulated on the CPU against the
// reference evaluator with fresh random inputs, and nvcc -ptx for every fixture and random
// reduction fusions.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { add, broadcast, checkGolden, evaluate, Fusion, HostTensor, makeTensor, max, mean, mul, square, sum, unaryOp } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { simulateKernel } from './kernel-simulator.js';
import { buildReduction, randomReductionSpec, reductionFixtures, reductionRegistry, seededRandom, testSeed, tierCases, tierCount, type ReductionCase } from '@tsfuser/test-support';
import { byName, lowerCase, randomValues, simulateAndCompare, walk } from './reduction-simulation.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/reduction/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, text: string): void {
  expect(checkGolden(text, `${dir}${name}`, update).diff).toBe('');
}

describe('reduction codegen', () => {
  it('golden dumps: inner (vectorized, block reduce over TIDx), outer (TIDy), full, keepdim + bias, pre-reduction output', () => {
    for (const name of ['inner_sum_Float', 'outer_sum_Half', 'full_sum_2d', 'pre_exp_post_bias', 'multi_axis_1_2_keepdim', 'pre_output_outer_half', 'grid_inner', 'grid_outer']) {
      const k = compileFusion(byName(name).fusion, byName(name).info, { registry: reductionRegistry() });
      golden(`${name}.kernel_ir.txt`, k.dumps.kernelIr);
      golden(`${name}.cuda_kernel.txt`, k.dumps.cuda);
      golden(`${name}.scheduler_params.txt`, k.dumps.schedulerParams + k.dumps.launchParams);
    }
  });

  it('block reductions are never under an if; results are guarded by thread predicates; shared memory sized', () => {
    for (const c of reductionFixtures()) {
      const { kernel, compiled } = lowerCase(c);
      let blockReduces = 0;
      walk(kernel.body, false, (s, insideIf) => {
        if (s.kind === 'BlockReduce' || s.kind === 'GridReduce' || s.kind === 'BlockWelford' || s.kind === 'GridWelford') {
          blockReduces += 1;
          expect(insideIf, `${c.name}: BlockReduce inside an if`).toBe(false);
        }
      });
      expect(compiled.launch.sharedMemBytes > 0, c.name).toBe(blockReduces > 0);
      if (blockReduces > 0) {
        expect(compiled.dumps.cuda).toMatch(/(block|grid)(Reduce|Welford)(Lanes)?</);
        expect(compiled.dumps.kernelIr).toMatch(/IF .*threadIdx\.[xy] < 1/);
      }
    }
  });

  it('grid reductions: few outputs and long reductions split over blockIdx.y, the last block guards the results', () => {
    for (const name of ['grid_inner', 'grid_outer', 'grid_full', 'full_sum_1d_large']) {
      const { kernel, compiled } = lowerCase(byName(name));
      expect(compiled.launch.grid[1], name).toBeGreaterThan(1);
      expect(kernel.deviceGlobals.map((g) => g.ctype)).toEqual(['double', 'unsigned int']);
      expect(compiled.dumps.kernelIr).toMatch(/IF T\d+_grid_pending < 1/);
      expect(compiled.dumps.schedulerParams).toContain('cross grid - blockIdx.y');
    }
    // many outputs: no grid reduction
    expect(lowerCase(byName('inner_sum_Float')).compiled.launch.grid[1]).toBe(1);
  });

  it('half and bfloat16 accumulate in float (partials in Float registers, rounded once)', () => {
    const k = compileFusion(byName('inner_sum_Half').fusion, byName('inner_sum_Half').info, { registry: reductionRegistry() });
    expect(k.dumps.kernelIr).toMatch(/ALLOCATE T\d+_l Float\[1\]/);
    expect(k.dumps.cuda).toContain('[](float& a, float b)');
  });

  it('simulated kernels match the reference evaluator (fixtures of moderate size)', () => {
    const small = reductionFixtures().filter((c) => c.sizes.every((s) => s.reduce((a, b) => a * b, 1) <= 200_000));
    expect(small.length).toBeGreaterThan(20);
    // The fast test tier (testTier): an evenly spread 10 of them.
    for (const c of tierCases(small, 10)) simulateAndCompare(c);
  });

  it('simulated random reduction fusions match the reference evaluator', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    let n = 0;
    while (n < tierCount(60, 8)) {
      const spec = randomReductionSpec(rand);
      if (spec.shape.reduce((a, b) => a * b, 1) > 60_000) continue;
      const c = buildReduction(`random_${seed}_${n}`, spec);
      try {
        simulateAndCompare(c);
      } catch (e) {
        throw new Error(`seed ${seed} case ${n} ${JSON.stringify(spec)}: ${(e as Error).message}`);
      }
      n += 1;
    }
  });

  it('edge fusions: constant broadcast dims, several outputs after the reduction, output also used, middle dim', () => {
    const make = (name: string, sizes: number[][], op: ReductionCase['op'], reductionSize: number, build: (f: Fusion) => void): ReductionCase => {
      const fusion = new Fusion();
      build(fusion);
      return { name, fusion, sizes, info: makeRuntimeInfo(fusion, sizes.map((z) => ({ sizes: z }))), op, reductionSize };
    };
    const cases = [
      make('bcast_reduced', [[7, 1]], 'sum', 1, (f) => {
        const x = makeTensor(f, { shape: [-1, 1] });
        f.addInput(x);
        f.addOutput(sum(x, [1]));
      }),
      make('bcast_kept_outer', [[50, 1, 20]], 'sum', 50, (f) => {
        const x = makeTensor(f, { shape: [-1, 1, -1] });
        f.addInput(x);
        f.addOutput(sum(x, [0]));
      }),
      make('fork', [[30, 40]], 'sum', 40, (f) => {
        const x = makeTensor(f, { shape: [-1, -1] });
        f.addInput(x);
        const r = sum(x, [1]);
        f.addOutput(r);
        f.addOutput(mul(r, 2));
      }),
      make('two_after_outer', [[300, 40]], 'max', 300, (f) => {
        const x = makeTensor(f, { shape: [-1, -1] });
        f.addInput(x);
        const r = max(x, [0]);
        f.addOutput(mul(r, 2));
        f.addOutput(add(r, 1));
      }),
      make('row_bias_outer', [[300, 40], [300]], 'sum', 300, (f) => {
        const x = makeTensor(f, { shape: [-1, -1] });
        const b = makeTensor(f, { shape: [-1] });
        f.addInput(x);
        f.addInput(b);
        f.addOutput(sum(add(x, broadcast(b, [false, true])), [0]));
      }),
      make('middle_dim', [[3, 50, 7]], 'sum', 50, (f) => {
        const x = makeTensor(f, { shape: [-1, -1, -1] });
        f.addInput(x);
        f.addOutput(sum(x, [1], true));
      }),
    ];
    for (const c of cases) {
      expect(reductionRegistry().pick(c.fusion, c.info).scheduler.type, c.name).toBe('reduction');
      simulateAndCompare(c);
    }
  });

  it('mean (extent arithmetic in scalar locals) and a scalar input', () => {
    const meanF = new Fusion();
    const x = makeTensor(meanF, { shape: [-1, -1], dtype: 'Half' });
    meanF.addInput(x);
    meanF.addOutput(mean(x, [1]));
    const normF = new Fusion();
    const y = makeTensor(normF, { shape: [-1, -1] });
    const scale = normF.newSymbolicScalar('Double');
    normF.addInput(y);
    normF.addInput(scale);
    normF.addOutput(unaryOp('sqrt', sum(square(mul(y, scale)), [0])));
    const seed = testSeed();
    const rand = seededRandom(seed);
    for (const [f, sizes] of [[meanF, [30, 500]], [normF, [300, 50]]] as const) {
      const info = makeRuntimeInfo(f, f.inputs.map((v) => (v.kind === 'tensorView' ? { sizes: [...sizes] } : null)));
      const c: ReductionCase = { name: 'scalar', fusion: f, sizes: [[...sizes]], info, op: 'sum', reductionSize: sizes[1] };
      const { kernel, compiled } = lowerCase(c);
      const args = f.inputs.map((v) => (v.kind === 'tensorView' ? HostTensor.fromValues(v.dtype, [...sizes], randomValues(v.dtype, sizes[0] * sizes[1], 'sum', rand)) : 1.5));
      const want = evaluate(f, args) as HostTensor[];
      const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
      const got = simulateKernel(kernel, compiled.launch, [...args, ...outs]);
      const g = (got[got.length - 1] as HostTensor).toNumbers();
      (want[0] as HostTensor).toNumbers().forEach((w, k) => expect(Math.abs((g[k] as number) - w), `element ${k} (inputs: seed ${seed})`).toBeLessThanOrEqual(2e-3 * Math.max(1, Math.abs(w))));
    }
  });

  it.skipIf(!hasNvcc)('every fixture and 80 random reduction fusions compile with nvcc -ptx -arch=sm_90', async () => {
    const cases = reductionFixtures();
    const seed = testSeed();
    const rand = seededRandom(seed);
    const randomCount = tierCount(80, 8);
    for (let i = 0; i < randomCount; i += 1) cases.push(buildReduction(`random_${i}`, randomReductionSpec(rand)));
    const kernels = cases.map((c, i) => compileFusion(c.fusion, c.info, { fusionId: 20000 + i, registry: reductionRegistry() }));
    // 64-bit indexing (never run: 2.8e9 elements)
    for (const [axes, sizes] of [[[1], [70000, 40000]], [[0], [40000, 70000]]] as const) {
      const big = buildReduction(`index64_${axes[0]}`, { op: 'sum', dtype: 'Float', shape: [...sizes], axes: [...axes] });
      const k = compileFusion(big.fusion, big.info, { fusionId: 29990 + axes[0], registry: reductionRegistry() });
      expect(k.indexType).toBe('Int');
      kernels.push(k);
    }
    expect(kernels.length).toBeGreaterThanOrEqual(tierCount(100, randomCount + 2));
    await compileKernelsWithNvcc(kernels, { label: 'red', context: `random seed ${seed}` });
  });
});
