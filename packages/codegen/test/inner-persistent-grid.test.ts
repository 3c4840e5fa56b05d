// Inner persistent kernels on a persistent grid (InnerPersistentOverrides.blocksPerSm): each block
// walks a contiguous chunk of rows in a serial loop; with prefetchNextRow the next row's loads go
// into a second register buffer before this row's reductions, with bulkLoadRows the row copies
// are pipelined over the loop, with hoistRowParamLoads the weight and bias are loaded once per
// block above the loop. Every variant is simulated against the reference evaluator on sizes
// whose rows do not divide among the blocks (and odd row lengths), and compiled with nvcc.
import { describe, expect, it } from 'vitest';
import { evaluate, HostTensor, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { H100_PROPERTIES, makeRuntimeInfo, type InnerPersistentOverrides, type SchedulerDevice } from '@tsfuser/scheduler';
import {
  buildNormalization, innerPersistentRegistry, reshapeLayerNormPrologue, rmsNormRope, seededRandom, softmaxOverPad, testSeed,
  type NormalizationCase, type NormalizationKind, type ShapeOpsFixture,
} from '@tsfuser/test-support';
import { compileFusion, lowerFusion, type CompiledKernel, type Kernel, type Stmt } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';

/** A small device, so a persistent grid of a few blocks per SM still leaves several rows per block. */
const SMALL: SchedulerDevice = { ...H100_PROPERTIES, name: 'three SMs', smCount: 3 };

function smallCase(name: string, kind: NormalizationKind, dtype: DataType, shape: number[]): NormalizationCase {
  const c = buildNormalization(name, { kind, dtype, shape, affine: kind !== 'softmax' });
  return { ...c, info: makeRuntimeInfo(c.fusion, c.sizes.map((s) => ({ sizes: s })), SMALL) };
}

function lower(c: NormalizationCase, overrides: InnerPersistentOverrides): { kernel: Kernel; compiled: CompiledKernel } {
  const registry = innerPersistentRegistry(overrides);
  const compiled = compileFusion(c.fusion, c.info, { registry });
  const { scheduler } = registry.pick(c.fusion, c.info);
  const scheduled = scheduler.schedule(c.fusion.clone().fusion, compiled.params);
  const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] * compiled.launch.block[1] });
  return { kernel, compiled };
}

function tolerance(dtype: DataType, rowLength: number): number {
  const out = dtype === 'Half' ? 2e-3 : dtype === 'BFloat16' ? 1.6e-2 : 1e-6;
  return out + 2e-7 * Math.sqrt(Math.max(1, rowLength)) * 16;
}

function simulateAndCompare(c: NormalizationCase, overrides: InnerPersistentOverrides): Kernel {
  const { kernel, compiled } = lower(c, overrides);
  const seed = testSeed();
  const rand = seededRandom(seed);
  const inputs = c.fusion.inputs.map((v, i) => {
    const sizes = c.sizes[i] as number[];
    const n = sizes.reduce((a, b) => a * b, 1);
    return HostTensor.fromValues((v as TensorView).dtype, sizes, Array.from({ length: n }, () => (rand() - 0.5) * 8));
  });
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
  const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  const row = c.spec.shape[c.spec.shape.length - 1] as number;
  const tol = tolerance(c.spec.dtype, row);
  want.forEach((w, i) => {
    const g = (got[i] as HostTensor).toNumbers();
    w.toNumbers().forEach((x, k) => {
      const y = g[k] as number;
      const ok = Number.isNaN(x) ? Number.isNaN(y) : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x));
      if (!ok) throw new Error(`${c.name} ${JSON.stringify(overrides)} (inputs: seed ${seed}): output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol})`);
    });
  });
  return kernel;
}

/** Every statement of `stmts`, with the number of enclosing loops whose extent is not a constant. */
function withRowDepth(stmts: readonly Stmt[], depth = 0, out: { s: Stmt; depth: number }[] = []): { s: Stmt; depth: number }[] {
  for (const s of stmts) {
    out.push({ s, depth });
    if (s.kind === 'ForLoop') withRowDepth(s.body, depth + (s.extent.kind === 'const' ? 0 : 1), out);
    if (s.kind === 'IfThenElse') {
      withRowDepth(s.then, depth, out);
      withRowDepth(s.else, depth, out);
    }
  }
  return out;
}

/** Global vector loads of `tensor` (a kernel parameter name), each with its row-loop depth. */
function globalLoadsOf(kernel: Kernel, tensor: string): number[] {
  return withRowDepth(kernel.body).flatMap(({ s, depth }) => (s.kind === 'LoadStore' && s.in.memory === 'Global' && s.in.tensor === tensor ? [depth] : []));
}

const GRID_VARIANTS: InnerPersistentOverrides[] = [
  { blocksPerSm: 2, bulkLoadRows: false, hoistRowParamLoads: false },
  { blocksPerSm: 2, bulkLoadRows: false, hoistRowParamLoads: true },
  { blocksPerSm: 2, prefetchNextRow: true, bulkLoadRows: false, hoistRowParamLoads: false },
  { blocksPerSm: 1, prefetchNextRow: true, bulkLoadRows: false, hoistRowParamLoads: true },
  { blocksPerSm: 2, bulkLoadRows: true, hoistRowParamLoads: true },
];

describe('inner persistent on a persistent grid', () => {
  it('schedules rows as [gdimx (BIDx), ceilDiv(rows, gdimx) (serial)] and says so in the dump', () => {
    const c = smallCase('grid_ln', 'layer_norm', 'Float', [20, 1000]);
    const { compiled } = lower(c, { blocksPerSm: 2, prefetchNextRow: true, bulkLoadRows: false });
    expect(compiled.launch.grid[0]).toBe(6);
    expect(compiled.dumps.schedulerParams).toContain('serial - 4 rows per block');
    expect(compiled.dumps.schedulerParams).toContain('Persistent grid: 2 blocks per SM');
    expect(compiled.dumps.schedulerParams).toContain('Circular buffer: 2 stages over the row loop');
    // fewer rows than blocks: one block per row
    const few = lower(smallCase('grid_few', 'layer_norm', 'Float', [4, 1000]), { blocksPerSm: 2 });
    expect(few.compiled.launch.grid[0]).toBe(4);
  });

  it.each([
    ['layer_norm', 'Float', [20, 1000]],
    ['layer_norm', 'Float', [7, 4096]],
    ['layer_norm', 'BFloat16', [13, 1000]],
    ['rms_norm', 'Float', [11, 1002]],
    ['softmax', 'Float', [17, 333]],
    ['softmax', 'Half', [9, 4096]],
    ['layer_norm_welford', 'Half', [10, 1000]],
  ] as const)('%s %s %j: every grid variant simulates like the fusion', (kind, dtype, shape) => {
    const c = smallCase(`grid_${kind}_${dtype}`, kind, dtype, [...shape]);
    for (const v of GRID_VARIANTS) simulateAndCompare(c, v);
  });

  it.each([
    ['softmax over a pad', softmaxOverPad('Float', 20, 64)],
    ['rms_norm + RoPE', rmsNormRope('BFloat16', 14, 64)],
    ['reshape + layer_norm + reshape', reshapeLayerNormPrologue('Float', 3, 5, 96)],
  ] as [string, ShapeOpsFixture][])('%s (slice / pad / cat, reshapes) on a persistent grid simulates like the fusion', (_name, fx) => {
    const seed = testSeed();
    const inputs = fx.inputs(seededRandom(seed)).map((v) => v as HostTensor);
    const info = makeRuntimeInfo(fx.fusion, inputs.map((t) => ({ sizes: t.sizes, strides: t.strides })), SMALL);
    const want = evaluate(fx.fusion, inputs) as HostTensor[];
    for (const overrides of [{ blocksPerSm: 2 }, { blocksPerSm: 1, prefetchNextRow: true, hoistRowParamLoads: true }]) {
      const registry = innerPersistentRegistry(overrides);
      const compiled = compileFusion(fx.fusion, info, { registry });
      const { scheduler } = registry.pick(fx.fusion, info);
      const kernel = lowerFusion(scheduler.schedule(fx.fusion.clone().fusion, compiled.params), { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] * compiled.launch.block[1] });
      // several rows per block: the row loop runs
      expect(compiled.params.schedulerType === 'inner_persistent' ? compiled.params.rowsPerBlock : 0).toBeGreaterThan(1);
      const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
      const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
      want.forEach((w, i) => {
        const g = (got[i] as HostTensor).toNumbers();
        const tol = w.dtype === 'BFloat16' ? 1.6e-2 : 2e-5;
        w.toNumbers().forEach((x, k) => {
          const y = g[k] as number;
          if (!(Math.abs(x - y) <= tol * Math.max(1, Math.abs(x)))) throw new Error(`${fx.name} ${JSON.stringify(overrides)} (seed ${seed}): output ${i} element ${k}: got ${y}, want ${x}`);
        });
      });
    }
  });

  it("prefetch: x is loaded before the row loop (row 0) and inside it (row r + 1); hoisted weight and bias only above it", () => {
    const c = smallCase('grid_ln_pf', 'layer_norm', 'Float', [20, 1000]);
    const kernel = simulateAndCompare(c, { blocksPerSm: 2, prefetchNextRow: true, bulkLoadRows: false, hoistRowParamLoads: true });
    const [x, w, b] = kernel.params.map((p) => p.name);
    expect(globalLoadsOf(kernel, x as string).sort()).toEqual([0, 1]);
    expect(globalLoadsOf(kernel, w as string)).toEqual([0]);
    expect(globalLoadsOf(kernel, b as string)).toEqual([0]);
    // without hoisting, the weight is read inside the row loop, once per row
    const inPlace = simulateAndCompare(c, { blocksPerSm: 2, bulkLoadRows: false, hoistRowParamLoads: false });
    expect(globalLoadsOf(inPlace, w as string)).toEqual([1]);
    expect(globalLoadsOf(inPlace, x as string)).toEqual([1]);
  });

  it('bulk copies are pipelined over the row loop (the single-row bulk pass is not used)', () => {
    const c = smallCase('grid_ln_bulk', 'layer_norm', 'Float', [20, 4096]);
    const { compiled } = lower(c, { blocksPerSm: 2, bulkLoadRows: true });
    const cuda = compiled.dumps.cuda;
    // row 0's copy before the loop; in it, the wait and the next row's copy once this row is in registers
    const loop = cuda.search(/for \(nvfuser_index_t (i\d+) = 0; \1 < \(/); // the row loop: ceilDiv(rows, gdimx) iterations
    expect(loop).toBeGreaterThan(0);
    expect(cuda.indexOf('nvfBulkCopyRow(')).toBeLessThan(loop);
    expect(cuda.indexOf('nvfBulkCopyWait(')).toBeGreaterThan(loop);
    expect(cuda.indexOf('nvfBulkCopyRowAgain(')).toBeGreaterThan(cuda.indexOf('nvfBulkCopyWait('));
  });

  it('refuses overrides it cannot launch, naming them', () => {
    const c = smallCase('grid_refuse', 'layer_norm', 'Float', [20, 1000]);
    expect(() => lower(c, { prefetchNextRow: true })).toThrow(/prefetchNextRow needs a persistent grid/);
    expect(() => lower(c, { blocksPerSm: 2, bdimy: 2 })).toThrow(/walks one row at a time/);
    expect(() => lower(c, { blocksPerSm: 2, prefetchNextRow: true, bulkLoadRows: true })).toThrow(/two circular buffers/);
    expect(() => lower(c, { blocksPerSm: 1.5 })).toThrow(/blocksPerSm 1.5/);
  });

  it.skipIf(!hasNvcc)('compiles with nvcc -cubin -arch=sm_90 at 16384×4096', async () => {
    const kernels = GRID_VARIANTS.flatMap((v, i) =>
      (['layer_norm', 'rms_norm', 'softmax'] as const).map((kind, j) => {
        const c = buildNormalization(`grid_nvcc_${kind}`, { kind, dtype: 'Float', shape: [16384, 4096], affine: kind !== 'softmax' });
        return compileFusion(c.fusion, c.info, { fusionId: 41000 + i * 3 + j, registry: innerPersistentRegistry(v) });
      }),
    );
    await compileKernelsWithNvcc(kernels, { label: 'inner-grid', cubin: true });
  }, 600_000);
});
