// Outer persistent normalization codegen (in the default registry after inner persistent):
// batch-norm-training-like fusions (two-pass mean / biased var / normalize, fusion-ir's
// Welford batchNorm with weight and bias, channels-last 4-D) and x − sum(x, 0) over x[N, C]
// for N in {1, 7, 64, 1000, 4096}, C in {1, 3, 32, 256, 1001}, in Float, Half and BFloat16
// (computed in Float). Checks: the registry [pointwise, reduction, outer_persistent] and the
// default registry both pick outer_persistent; the scheduled fusion evaluates like the
// unscheduled one; the kernel, simulated on the CPU with fresh random inputs, matches the
// reference evaluator; block allreduces over threadIdx.y are never inside
// an `if`; x is loaded from global memory once; oversize columns are refused with a reason;
// and every kernel (plus one with 64-bit indexing) compiles with nvcc -ptx -arch=sm_90.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkGolden, evaluate, HostTensor, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, OuterPersistentScheduler, SchedulerRegistry } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion, type CompiledKernel, type Kernel, type Stmt } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { simulateKernel } from './kernel-simulator.js';
import { buildOuter as build, CS, DTYPES, KINDS, NS, outerPersistentRegistry as registry, seededRandom, testSeed, tierCases, type OuterCase } from '@tsfuser/test-support';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/outer-persistent/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function lowerCase(c: OuterCase): { kernel: Kernel; compiled: CompiledKernel } {
  const reg = registry();
  const compiled = compileFusion(c.fusion, c.info, { registry: reg });
  const { scheduler } = reg.pick(c.fusion, c.info);
  const scheduled = scheduler.schedule(c.fusion.clone().fusion, compiled.params);
  const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] * compiled.launch.block[1] });
  return { kernel, compiled };
}

function randomInputs(c: OuterCase, rand: () => number): HostTensor[] {
  return c.fusion.inputs.map((v, i) => {
    const sizes = c.sizes[i] as number[];
    const n = sizes.reduce((a, b) => a * b, 1);
    return HostTensor.fromValues((v as TensorView).dtype, sizes, Array.from({ length: n }, () => (rand() - 0.5) * 8));
  });
}

function tolerance(dtype: DataType, reduced: number): number {
  const out = dtype === 'Half' ? 2e-3 : dtype === 'BFloat16' ? 1.6e-2 : 1e-6;
  return out + 2e-7 * Math.sqrt(Math.max(1, reduced)) * 16;
}

function compare(name: string, want: readonly HostTensor[], got: readonly HostTensor[], tol: number): void {
  want.forEach((w, i) => {
    const g = (got[i] as HostTensor).toNumbers();
    const scale = w.toNumbers().reduce((m, x) => (Number.isFinite(x) ? Math.max(m, Math.abs(x)) : m), 1);
    w.toNumbers().forEach((x, k) => {
      const y = g[k] as number;
      const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x), name.includes('minus_sum') ? scale : 1);
      if (!ok) throw new Error(`${name}: output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol})`);
    });
  });
}

/** The scheduled fusion evaluates like the unscheduled one, and the simulated kernel like both. */
function checkCase(c: OuterCase, simulate: boolean): void {
  const reg = registry();
  const pick = reg.tryPick(c.fusion, c.info);
  expect(pick.scheduler?.type, `${c.name}: ${pick.rejected.map((r) => `${r.type}: ${r.reason}`).join('; ')}`).toBe('outer_persistent');
  expect(defaultSchedulerRegistry().tryPick(c.fusion, c.info).scheduler?.type, `${c.name} (default registry)`).toBe('outer_persistent');
  const seed = testSeed();
  const inputs = randomInputs(c, seededRandom(seed));
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const { kernel, compiled } = lowerCase(c);
  const scheduled = reg.get('outer_persistent').schedule(c.fusion.clone().fusion, compiled.params);
  // Exact, except Welford (translated to two-pass sums by the schedule: float rounding differs).
  const exact = c.kind === 'batch_norm_welford' ? tolerance(c.dtype, c.reduced) : 1e-12;
  compare(`${c.name} (scheduled fusion; inputs: seed ${seed})`, want, evaluate(scheduled.fusion, inputs) as HostTensor[], exact);
  if (!simulate) return;
  const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
  const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  compare(`${c.name} (simulated kernel; inputs: seed ${seed})`, want, got, tolerance(c.dtype, c.reduced));
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

describe('outer persistent codegen: simulated against the reference evaluator', () => {
  it('x[N, C], every kind and dtype (small enough to simulate)', () => {
    for (const kind of KINDS) {
      // The simulator runs every thread on the CPU: keep it to ≤ 70k elements; the reference
      // evaluator's 4M-element cases only in Float (the others compile below). The fast test tier
      // (testTier) checks an evenly spread 6 of each kind's dtype × N × C grid.
      const grid = DTYPES.flatMap((dtype) => NS.flatMap((n) => CS.map((c) => [dtype, n, c] as const))).filter(([dtype, n, c]) => n * c <= 300_000 || dtype === 'Float');
      for (const [dtype, n, c] of tierCases(grid, 6)) checkCase(build(kind, dtype, [n, c]), n * c <= 70_000);
    }
  }, 600_000);

  it('channels-last x[N, H, W, C] reducing [0, 1, 2]', () => {
    checkCase(build('batch_norm', 'Float', [3, 5, 7, 33]), true);
    checkCase(build('batch_norm_welford', 'Half', [2, 4, 4, 8]), true);
    checkCase(build('minus_sum', 'BFloat16', [4, 3, 3, 130]), true);
  });
});

describe('outer persistent codegen: structure', () => {
  it('allreduces over threadIdx.y outside any if; x loaded once', () => {
    for (const c of [build('batch_norm', 'Float', [64, 256]), build('batch_norm_welford', 'Half', [1000, 32]), build('minus_sum', 'Float', [7, 3])]) {
      const { kernel, compiled } = lowerCase(c);
      let allreduces = 0;
      walk(kernel.body, false, (s, insideIf) => {
        if (s.kind === 'BlockReduce') {
          expect(insideIf, c.name).toBe(false);
          expect(s.allreduce, c.name).toBe(true);
          expect(s.reduceDims, c.name).toEqual(['TIDy']);
          allreduces += 1;
        }
      });
      expect(allreduces, c.name).toBe(c.kind === 'minus_sum' ? 1 : 2);
      expect(compiled.dumps.cuda, c.name).toContain('blockAllreduce<false, true>');
      const xLoads = compiled.dumps.cuda.split('\n').filter((l) => /= T0\[|&T0\[/.test(l));
      expect(xLoads.length, c.name).toBe(1);
    }
  });

  it('goldens (scheduler_params, kernel_ir, cuda_kernel)', () => {
    for (const [c, file] of [
      [build('batch_norm', 'Float', [64, 256]), 'batch_norm_float_64x256'],
      [build('batch_norm_welford', 'BFloat16', [1000, 32]), 'batch_norm_welford_bf16_1000x32'],
    ] as const) {
      const { compiled } = lowerCase(c);
      for (const [suffix, text] of [
        ['cuda_kernel', compiled.dumps.cuda],
        ['kernel_ir', compiled.dumps.kernelIr],
        ['scheduler_params', compiled.dumps.schedulerParams + compiled.dumps.launchParams],
      ] as const) {
        expect(checkGolden(text, `${dir}${file}.${suffix}.txt`, update).diff).toBe('');
      }
    }
  });

  it('columns that do not fit one block are refused with a reason', () => {
    const c = build('batch_norm', 'Float', [200_000, 8]);
    const r = new SchedulerRegistry([new OuterPersistentScheduler()]).tryPick(c.fusion, c.info);
    expect(r.scheduler).toBeNull();
    expect(r.rejected[0]?.reason).toMatch(/outer persistent|bytes/);
  });
});

describe('outer persistent codegen: nvcc', () => {
  it.skipIf(!hasNvcc)('every fixture compiles with nvcc -ptx -arch=sm_90', async () => {
    const kernels: CompiledKernel[] = [];
    let id = 50000;
    for (const kind of KINDS) for (const dtype of DTYPES) for (const n of NS) for (const c of CS) {
      const k = build(kind, dtype, [n, c]);
      kernels.push(compileFusion(k.fusion, k.info, { fusionId: id, registry: registry() }));
      id += 1;
    }
    // 64-bit indexing (2.4G elements; never run)
    const big = build('batch_norm', 'BFloat16', [4096, 600_000]);
    const k64 = compileFusion(big.fusion, big.info, { fusionId: 59999, registry: registry() });
    expect(k64.indexType).toBe('Int');
    kernels.push(k64);
    await compileKernelsWithNvcc(kernels, { label: 'outer', chunks: 4 });
  }, 600_000);
});
