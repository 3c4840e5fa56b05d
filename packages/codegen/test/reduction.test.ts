// Reduction codegen: golden dumps, structure (block reductions outside any `if`, thread
// predicates on the results, shared memory), kernels simulated on the CPU against the
// reference evaluator with fresh random inputs, and nvcc -ptx for every fixture and random
// reduction fusions.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { add, broadcast, checkGolden, evaluate, Fusion, HostTensor, makeTensor, max, mean, mul, square, sum, unaryOp, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion, type CompiledKernel, type Kernel, type Stmt } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { simulateKernel } from './kernel-simulator.js';
import { buildReduction, randomReductionSpec, reductionFixtures, reductionRegistry, seededRandom, type ReductionCase } from './reduction-fixtures.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/reduction/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, text: string): void {
  expect(checkGolden(text, `${dir}${name}`, update).diff).toBe('');
}

function byName(name: string): ReductionCase {
  const c = reductionFixtures().find((x) => x.name === name);
  if (c === undefined) throw new Error(`no fixture ${name}`);
  return c;
}

/** Schedules and lowers like compileFusion, but returns the kernel IR object too. */
function lowerCase(c: ReductionCase): { kernel: Kernel; compiled: CompiledKernel } {
  const compiled = compileFusion(c.fusion, c.info, { registry: reductionRegistry() });
  const { scheduler } = reductionRegistry().pick(c.fusion, c.info);
  const scheduled = scheduler.schedule(c.fusion.clone().fusion, compiled.params);
  const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] * compiled.launch.block[1] });
  return { kernel, compiled };
}

function walk(stmts: readonly Stmt[], insideIf: boolean, visit: (s: Stmt, insideIf: boolean) => void): void {
  for (const s of stmts) {
    visit(s, insideIf);
    if (s.kind === 'ForLoop') walk(s.body, insideIf, visit);
    if (s.kind === 'IfThenElse') {
      walk(s.then, true, visit);
      walk(s.else, true, visit);
    }
  }
}

function randomValues(dtype: DataType, n: number, op: ReductionCase['op']): (number | boolean)[] {
  if (dtype === 'Bool') return Array.from({ length: n }, () => Math.random() < 0.8);
  if (dtype === 'Int32' || dtype === 'Int') return Array.from({ length: n }, () => Math.floor((Math.random() - 0.5) * 100));
  // products stay finite near 1
  if (op === 'prod') return Array.from({ length: n }, () => 0.9 + Math.random() * 0.2);
  return Array.from({ length: n }, () => (Math.random() - 0.5) * 8);
}

/** Relative error bound: output rounding plus accumulation in float over the reduced extent. */
function tolerance(dtype: DataType, reductionSize: number): number {
  const out = dtype === 'Half' ? 2e-3 : dtype === 'BFloat16' ? 1.6e-2 : dtype === 'Float' ? 1e-6 : dtype === 'Double' ? 1e-12 : 0;
  return out + (dtype === 'Double' ? 1e-15 : 2e-7) * Math.sqrt(Math.max(1, reductionSize)) * 8;
}

/** The least precise float dtype any tensor of the fusion has (what bounds the error). */
function coarsestDtype(c: ReductionCase): DataType {
  const rank: DataType[] = ['BFloat16', 'Half', 'Float', 'Double'];
  const dtypes = new Set(c.fusion.allTvs().map((tv) => tv.dtype));
  return rank.find((d) => dtypes.has(d)) ?? 'Int';
}

function simulateAndCompare(c: ReductionCase): void {
  const { kernel, compiled } = lowerCase(c);
  const inputs = c.fusion.inputs.map((v, i) => {
    const tv = v as TensorView;
    const sizes = c.sizes[i] as number[];
    return HostTensor.fromValues(tv.dtype, sizes, randomValues(tv.dtype, sizes.reduce((a, b) => a * b, 1), c.op));
  });
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.sizes.reduce((a, b) => a * b, 1)).fill(w.dtype === 'Bool' ? 0 : NaN)));
  const got = compiled.launch.grid[0] === 0 ? outs : simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  want.forEach((w, i) => {
    const g = got[i] as HostTensor;
    const tol = tolerance(coarsestDtype(c), c.reductionSize) * (c.op === 'sum' ? 4 : 1);
    const wn = w.toNumbers();
    const gn = g.toNumbers();
    wn.forEach((x, k) => {
      const y = gn[k] as number;
      const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x));
      if (!ok) throw new Error(`${c.name}: output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol})`);
    });
  });
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
        if (s.kind === 'BlockReduce' || s.kind === 'GridReduce') {
          blockReduces += 1;
          expect(insideIf, `${c.name}: BlockReduce inside an if`).toBe(false);
        }
      });
      expect(compiled.launch.sharedMemBytes > 0, c.name).toBe(blockReduces > 0);
      if (blockReduces > 0) {
        expect(compiled.dumps.cuda).toMatch(/(block|grid)Reduce</);
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
    for (const c of small) simulateAndCompare(c);
  });

  it('simulated random reduction fusions match the reference evaluator', () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const rand = seededRandom(seed);
    let n = 0;
    while (n < 60) {
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
    for (const [f, sizes] of [[meanF, [30, 500]], [normF, [300, 50]]] as const) {
      const info = makeRuntimeInfo(f, f.inputs.map((v) => (v.kind === 'tensorView' ? { sizes: [...sizes] } : null)));
      const c: ReductionCase = { name: 'scalar', fusion: f, sizes: [[...sizes]], info, op: 'sum', reductionSize: sizes[1] };
      const { kernel, compiled } = lowerCase(c);
      const args = f.inputs.map((v) => (v.kind === 'tensorView' ? HostTensor.fromValues(v.dtype, [...sizes], randomValues(v.dtype, sizes[0] * sizes[1], 'sum')) : 1.5));
      const want = evaluate(f, args) as HostTensor[];
      const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
      const got = simulateKernel(kernel, compiled.launch, [...args, ...outs]);
      const g = (got[got.length - 1] as HostTensor).toNumbers();
      (want[0] as HostTensor).toNumbers().forEach((w, k) => expect(Math.abs((g[k] as number) - w)).toBeLessThanOrEqual(2e-3 * Math.max(1, Math.abs(w))));
    }
  });

  it.skipIf(!hasNvcc)('every fixture and 80 random reduction fusions compile with nvcc -ptx -arch=sm_90', async () => {
    const cases = reductionFixtures();
    const seed = Math.floor(Math.random() * 2 ** 31);
    const rand = seededRandom(seed);
    for (let i = 0; i < 80; i += 1) cases.push(buildReduction(`random_${i}`, randomReductionSpec(rand)));
    const kernels = cases.map((c, i) => compileFusion(c.fusion, c.info, { fusionId: 20000 + i, registry: reductionRegistry() }));
    // 64-bit indexing (never run: 2.8e9 elements)
    for (const [axes, sizes] of [[[1], [70000, 40000]], [[0], [40000, 70000]]] as const) {
      const big = buildReduction(`index64_${axes[0]}`, { op: 'sum', dtype: 'Float', shape: [...sizes], axes: [...axes] });
      const k = compileFusion(big.fusion, big.info, { fusionId: 29990 + axes[0], registry: reductionRegistry() });
      expect(k.indexType).toBe('Int');
      kernels.push(k);
    }
    expect(kernels.length).toBeGreaterThanOrEqual(100);
    await compileKernelsWithNvcc(kernels, { label: 'red', context: `random seed ${seed}` });
  });
});
