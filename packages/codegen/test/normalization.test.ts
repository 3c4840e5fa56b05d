// Inner persistent normalization codegen: golden dumps (softmax / log_softmax / layer_norm —
// two-pass and Welford, translated — / rms_norm in Float, Half, BFloat16), structure (block
// allreduces outside any `if`, no `threadIdx.x < 1` predicates after them, warp-multiple blocks
// with the padded threads guarded, the row read from global memory once, persistent buffers of
// B·vec registers), kernels simulated on the CPU against the reference evaluator with fresh
// random inputs (row lengths 1, 7, 1000, 4096, 5000, short rows on threadIdx.y, random
// fusions), size-0 rows refused, and nvcc -ptx -arch=sm_90 for every fixture and random fusions.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkGolden, evaluate, HostTensor, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { H100_PROPERTIES, makeRuntimeInfo, type InnerPersistentOverrides } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion, type CompiledKernel, type Kernel, type Stmt } from '../src/index.js';
import { singleBarrierAllreduces } from '../src/lower/allreduce-barriers.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { simulateKernel } from './kernel-simulator.js';
import {
  buildNormalization, emptyRowFixtures, innerPersistentRegistry, normalizationFixtures, randomNormalizationSpec, seededRandom, testSeed, tierCases, tierCount,
  type NormalizationCase, type NormalizationKind,
} from '@tsfuser/test-support';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/normalization/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, text: string): void {
  expect(checkGolden(text, `${dir}${name}`, update).diff).toBe('');
}

/** Schedules and lowers like compileFusion, but returns the kernel IR object too. */
function lowerCase(c: NormalizationCase, overrides: InnerPersistentOverrides = {}): { kernel: Kernel; compiled: CompiledKernel } {
  const registry = innerPersistentRegistry(overrides);
  const compiled = compileFusion(c.fusion, c.info, { registry });
  const { scheduler } = registry.pick(c.fusion, c.info);
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

/** Relative error bound: output rounding plus float accumulation over the row. */
function tolerance(dtype: DataType, rowLength: number): number {
  const out = dtype === 'Half' ? 2e-3 : dtype === 'BFloat16' ? 1.6e-2 : 1e-6;
  return out + 2e-7 * Math.sqrt(Math.max(1, rowLength)) * 16;
}

function simulateAndCompare(c: NormalizationCase, overrides: InnerPersistentOverrides = {}): void {
  const { kernel, compiled } = lowerCase(c, overrides);
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
  want.forEach((w, i) => {
    const g = (got[i] as HostTensor).toNumbers();
    const tol = tolerance(c.spec.dtype, row);
    w.toNumbers().forEach((x, k) => {
      const y = g[k] as number;
      const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x));
      if (!ok) throw new Error(`${c.name} (inputs: seed ${seed}): output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol})`);
    });
  });
}

/** Fixtures with 1024 rows (more rows than SMs: the common, bandwidth-bound case). */
function byName(name: string): NormalizationCase {
  const c = normalizationFixtures(1024).find((x) => x.name === name);
  if (c === undefined) throw new Error(`no fixture ${name}`);
  return c;
}

describe('inner persistent codegen: goldens', () => {
  it.each([
    ['softmax_Half_1000', 'softmax_half_1000'],
    ['softmax_Float_5000', 'softmax_float_5000'],
    ['log_softmax_BFloat16_4096', 'log_softmax_bf16_4096'],
    ['layer_norm_BFloat16_4096', 'layer_norm_bf16_4096'],
    // Float with weight and bias: the row parameters load first (the heuristic's default there).
    ['layer_norm_Float_4096', 'layer_norm_float_4096'],
    ['rms_norm_Half_7', 'rms_norm_half_7'],
    ['layer_norm_welford_Half_1000', 'layer_norm_welford_half_1000'],
  ])('%s', (fixture, file) => {
    const { compiled } = lowerCase(byName(fixture));
    golden(`${file}.cuda_kernel.txt`, compiled.dumps.cuda);
    golden(`${file}.kernel_ir.txt`, compiled.dumps.kernelIr);
    golden(`${file}.scheduler_params.txt`, compiled.dumps.schedulerParams + compiled.dumps.launchParams);
  });
});

describe('inner persistent codegen: structure', () => {
  it('allreduces are never inside an if; nothing after them is thread-predicated; the input is loaded once', () => {
    for (const c of normalizationFixtures(3)) {
      const { kernel, compiled } = lowerCase(c);
      let allreduces = 0;
      walk(kernel.body, false, (s, insideIf) => {
        if (s.kind === 'BlockReduce') {
          expect(insideIf, c.name).toBe(false);
          expect(s.allreduce, c.name).toBe(true);
          allreduces += 1;
        }
        // no `threadIdx.x < 1` (result lives in thread 0) guards; padded-thread guards
        // (`threadIdx.x < ⌈row / vec / batches⌉`) are fine
        if (s.kind === 'IfThenElse') {
          for (const p of s.predicates) {
            const threadResult = p.index.kind === 'sym' && p.index.name.startsWith('threadIdx') && p.extent.kind === 'const' && p.extent.value === 1;
            expect(threadResult, c.name).toBe(false);
          }
        }
      });
      expect(allreduces, c.name).toBe(c.spec.kind === 'rms_norm' ? 1 : 2);
      // one global read per element of x: the only loads of the row input are in the first loop nest
      const xLoads = compiled.dumps.cuda.split('\n').filter((l) => /= T0\[|&T0\[/.test(l));
      expect(xLoads.length, c.name).toBe(1);
      expect(compiled.dumps.cuda, c.name).toContain('blockAllreduce<true, false>');
      // The reductions' scratch, one Float per thread; a bulk-copy kernel asks for its row buffer and block cap on top.
      const p = compiled.params;
      if (p.schedulerType === 'inner_persistent' && p.bulkLoadRows) expect(compiled.launch.sharedMemBytes, c.name).toBe(Math.max(p.minSharedMemBytes, kernel.sharedMemBytes));
      else expect(compiled.launch.sharedMemBytes, c.name).toBe(compiled.launch.block[0] * compiled.launch.block[1] * 4);
      if (compiled.launch.block[0] >= 32) expect(compiled.launch.block[0] % 32, c.name).toBe(0);
    }
  });

  it('persistent buffers hold batches × vec registers', () => {
    const { compiled } = lowerCase(byName('softmax_Float_4096'));
    const p = compiled.params;
    if (p.schedulerType !== 'inner_persistent') throw new Error('expected inner_persistent parameters');
    const n = p.batchesPerBlockInnerReduction * p.unrollFactorInnerReduction;
    expect(compiled.dumps.cuda).toMatch(new RegExp(`Array<float, ${n}, \\d+> T\\d+;`));
  });

  it('size-0 rows are refused with a reason', () => {
    for (const c of emptyRowFixtures()) {
      const r = innerPersistentRegistry().tryPick(c.fusion, c.info);
      expect(r.scheduler).toBeNull();
      expect(r.rejected[0]?.reason).toMatch(/empty/);
    }
  });
});

describe('inner persistent codegen: simulated against the reference evaluator', () => {
  it('every fixture (Float/Half/BFloat16; rows 1, 7, 1000, 4096, 5000; 3-D)', () => {
    // The fast test tier (testTier): an evenly spread 8 of them.
    for (const c of tierCases(normalizationFixtures(3), 8)) simulateAndCompare(c);
  });

  it('short rows on threadIdx.y, odd rows with padded batches', () => {
    simulateAndCompare(buildNormalization('short_rows', { kind: 'layer_norm', dtype: 'Half', shape: [300, 7], affine: true }));
    simulateAndCompare(buildNormalization('odd_rows', { kind: 'softmax', dtype: 'Float', shape: [5, 3001] }));
    simulateAndCompare(buildNormalization('tidy_rms', { kind: 'rms_norm', dtype: 'BFloat16', shape: [513, 33], affine: true }));
  });

  it('20 random normalization fusions', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    for (let i = 0; i < tierCount(20, 5); i += 1) {
      const spec = randomNormalizationSpec(rand, 3000, 40);
      const c = buildNormalization(`random_${i}_seed_${seed}`, spec);
      if (innerPersistentRegistry().tryPick(c.fusion, c.info).scheduler === null) continue;
      simulateAndCompare(c);
    }
  });
});

describe('inner persistent codegen: evict-last row parameters (evictLastRowParams)', () => {
  const c = buildNormalization('ln_evict_last', { kind: 'layer_norm', dtype: 'Float', shape: [37, 1000], affine: true });

  it('weight and bias load with L1::evict_last, the row of x without; the kernel simulates like the fusion', () => {
    const { kernel, compiled } = lowerCase(c, { evictLastRowParams: true });
    const loads: Extract<Stmt, { kind: 'LoadStore' }>[] = [];
    walk(kernel.body, false, (s) => {
      if (s.kind === 'LoadStore' && s.in.memory === 'Global') loads.push(s);
    });
    const hinted = new Set(loads.filter((l) => l.cacheHint === 'evictLast').map((l) => l.in.tensor));
    const plain = new Set(loads.filter((l) => l.cacheHint === undefined).map((l) => l.in.tensor));
    // Inputs: T0 = x [N, H], T1 = weight [H], T2 = bias [H].
    expect([...hinted].sort()).toEqual(['T1', 'T2']);
    expect([...plain]).toEqual(['T0']);
    expect(compiled.dumps.cuda).toContain('loadGlobalToLocalEvictLast<float, 4>(');
    expect(compiled.dumps.schedulerParams).toContain('Row parameters loaded with L1::evict_last');
    expect(lowerCase(c).compiled.dumps.cuda).not.toContain('EvictLast');
    simulateAndCompare(c, { evictLastRowParams: true });
  });

  it.skipIf(!hasNvcc)('compiles through ptxas (the inline PTX hint) for Float, Half and BFloat16, 32- and 64-bit indexing', async () => {
    const cases = (['Float', 'Half', 'BFloat16'] as const).map((dtype) => buildNormalization(`ev_${dtype}`, { kind: 'layer_norm', dtype, shape: [16384, 4096], affine: true }));
    cases.push(buildNormalization('ev_index64', { kind: 'layer_norm', dtype: 'BFloat16', shape: [700000, 4096], affine: true }));
    const kernels = cases.map((k, i) => compileFusion(k.fusion, k.info, { fusionId: 38000 + i, registry: innerPersistentRegistry({ evictLastRowParams: true }) }));
    expect(kernels.every((k) => k.dumps.cuda.includes('loadGlobalToLocalEvictLast'))).toBe(true);
    await compileKernelsWithNvcc(kernels, { label: 'evict-last', cubin: true });
  }, 600_000);
});

describe('inner persistent codegen: row parameters loaded first (hoistRowParamLoads)', () => {
  it('weight and bias load at the top of the kernel, before the first block reduction; the row of x stays; simulates like the fusion', () => {
    const c = buildNormalization('ln_hoist', { kind: 'layer_norm', dtype: 'Float', shape: [37, 1000], affine: true });
    const { kernel, compiled } = lowerCase(c, { hoistRowParamLoads: true });
    const order: string[] = [];
    walk(kernel.body, false, (s) => {
      if (s.kind === 'BlockReduce') order.push('reduce');
      if (s.kind === 'LoadStore' && s.in.memory === 'Global') order.push(`load ${s.in.tensor} → ${s.out.tensor}`);
    });
    const firstReduce = order.indexOf('reduce');
    // Inputs: T0 = x [N, H], T1 = weight [H], T2 = bias [H]; the hoisted buffers are *_h.
    expect(order.slice(0, firstReduce).filter((o) => o.startsWith('load T1') || o.startsWith('load T2'))).toHaveLength(2);
    expect(order.slice(firstReduce).some((o) => o.startsWith('load T1') || o.startsWith('load T2'))).toBe(false);
    expect(order.slice(0, firstReduce).some((o) => o.startsWith('load T0'))).toBe(true);
    expect(compiled.dumps.schedulerParams).toContain('Row parameters loaded before the reductions');
    const big = buildNormalization('ln_hoist_4096', { kind: 'layer_norm', dtype: 'Float', shape: [8, 4096], affine: true });
    // A persistent batch of 4: the loads leave their loop for one that fills 4 vectors each.
    expect(lowerCase(big, { hoistRowParamLoads: true, batches: 4 }).compiled.dumps.cuda).toMatch(/T\d+_h\[i\d+_h0 \* 4\]/);
    expect(lowerCase(big, { batches: 4, hoistRowParamLoads: false }).compiled.dumps.cuda).not.toMatch(/_h\[/);
    simulateAndCompare(big, { hoistRowParamLoads: true, batches: 4 });
    simulateAndCompare(c, { hoistRowParamLoads: true });
    simulateAndCompare(buildNormalization('rms_hoist', { kind: 'rms_norm', dtype: 'BFloat16', shape: [5, 4096], affine: true }), { hoistRowParamLoads: true, batches: 2 });
    simulateAndCompare(buildNormalization('softmax_hoist', { kind: 'softmax', dtype: 'Half', shape: [600, 7] }), { hoistRowParamLoads: true });
  });

  it.skipIf(!hasNvcc)('compiles with nvcc -ptx -arch=sm_90 for every affine fixture', async () => {
    const cases = normalizationFixtures(64).filter((c) => c.spec.affine === true && innerPersistentRegistry().tryPick(c.fusion, c.info).scheduler !== null);
    const kernels = cases.map((c, i) => compileFusion(c.fusion, c.info, { fusionId: 36000 + i, registry: innerPersistentRegistry({ hoistRowParamLoads: true }) }));
    expect(kernels.filter((k) => k.dumps.cuda.includes('_h[')).length).toBeGreaterThan(0);
    await compileKernelsWithNvcc(kernels, { label: 'hoist' });
  }, 600_000);
});

describe('inner persistent codegen: one-barrier allreduces (singleBarrierAllreduce)', () => {
  const allreduces = (k: Kernel): Extract<Stmt, { kind: 'BlockReduce' }>[] => {
    const out: Extract<Stmt, { kind: 'BlockReduce' }>[] = [];
    walk(k.body, false, (s) => {
      if (s.kind === 'BlockReduce') out.push(s);
    });
    return out;
  };

  it('layer_norm: the mean and variance allreduces alternate areas 0 and 1, shared memory doubles, the dumps say so', () => {
    const c = buildNormalization('ln_one_barrier', { kind: 'layer_norm', dtype: 'Float', shape: [37, 1000], affine: true });
    const plain = lowerCase(c);
    const { kernel, compiled } = lowerCase(c, { singleBarrierAllreduce: true });
    expect(allreduces(kernel).map((s) => s.oneBarrierArea)).toEqual([0, 1]);
    expect(allreduces(plain.kernel).map((s) => s.oneBarrierArea)).toEqual([undefined, undefined]);
    expect(kernel.sharedMemBytes).toBe(2 * plain.kernel.sharedMemBytes);
    expect(compiled.dumps.cuda.match(/blockAllreduceOneBarrier<true, false>\(/g)?.length).toBe(2);
    expect(compiled.dumps.cuda).toContain('reinterpret_cast<float*>(nvf_shared_mem) + blockDim.x * blockDim.y, ');
    expect(plain.compiled.dumps.cuda).not.toContain('OneBarrier');
    expect(compiled.dumps.kernelIr).toContain('ONE BARRIER, shared memory area 1');
    expect(compiled.dumps.schedulerParams).toContain('Block allreduces with one barrier');
  });

  it('leaves the body alone when a shared-memory user sits in a loop or is not a plain allreduce', () => {
    const c = buildNormalization('ln_one_barrier_guard', { kind: 'layer_norm', dtype: 'Float', shape: [37, 1000], affine: true });
    const { kernel } = lowerCase(c);
    const top = kernel.body.filter((s) => s.kind === 'BlockReduce');
    expect(top).toHaveLength(2);
    const inLoop: Stmt[] = [{ kind: 'ForLoop', index: 'i9', extent: { kind: 'const', value: 2 }, unroll: false, body: [top[0] as Stmt] }, top[1] as Stmt];
    expect(singleBarrierAllreduces(inLoop)).toEqual(inLoop);
    const notAll: Stmt[] = [{ ...(top[0] as Extract<Stmt, { kind: 'BlockReduce' }>), allreduce: false }, top[1] as Stmt];
    expect(singleBarrierAllreduces(notAll)).toEqual(notAll);
    expect(singleBarrierAllreduces(kernel.body).filter((s) => s.kind === 'BlockReduce').map((s) => (s as Extract<Stmt, { kind: 'BlockReduce' }>).oneBarrierArea)).toEqual([0, 1]);
  });

  it('every fixture kind simulates like the fusion (softmax, log_softmax, layer_norm two-pass and Welford, rms_norm, short rows on threadIdx.y)', () => {
    const specs: [NormalizationKind, DataType, number[]][] = [
      ['softmax', 'Float', [5, 1000]],
      ['log_softmax', 'BFloat16', [3, 4096]],
      ['layer_norm', 'Half', [4, 5000]],
      ['layer_norm_welford', 'Float', [6, 1000]],
      ['rms_norm', 'BFloat16', [3, 4096]],
      ['softmax', 'Half', [600, 7]],
    ];
    for (const [kind, dtype, shape] of specs) {
      const c = buildNormalization(`one_barrier_${kind}_${dtype}`, { kind, dtype, shape, affine: kind !== 'softmax' && kind !== 'log_softmax' });
      expect(lowerCase(c, { singleBarrierAllreduce: true }).compiled.dumps.cuda).toContain('blockAllreduceOneBarrier');
      simulateAndCompare(c, { singleBarrierAllreduce: true });
    }
    const shortRows = buildNormalization('one_barrier_short_rows', { kind: 'softmax', dtype: 'Half', shape: [600, 7] });
    expect(lowerCase(shortRows, { singleBarrierAllreduce: true }).compiled.launch.block[1]).toBeGreaterThan(1);
  });

  it.skipIf(!hasNvcc)('every fixture compiles with nvcc -ptx -arch=sm_90', async () => {
    const cases = normalizationFixtures(64).filter((c) => innerPersistentRegistry().tryPick(c.fusion, c.info).scheduler !== null);
    const kernels = cases.map((c, i) => compileFusion(c.fusion, c.info, { fusionId: 37000 + i, registry: innerPersistentRegistry({ singleBarrierAllreduce: true }) }));
    expect(kernels.filter((k) => k.dumps.cuda.includes('blockAllreduceOneBarrier')).length).toBeGreaterThan(cases.length / 2);
    await compileKernelsWithNvcc(kernels, { label: 'one-barrier' });
  }, 600_000);
});

describe('inner persistent codegen: nvcc', () => {
  it.skipIf(!hasNvcc)('every fixture and 100 random normalization fusions compile with nvcc -ptx -arch=sm_90', async () => {
    const cases = normalizationFixtures(64);
    const seed = testSeed();
    const rand = seededRandom(seed);
    const randomCount = tierCount(100, 10);
    for (let i = 0; i < randomCount; i += 1) cases.push(buildNormalization(`random_${i}`, randomNormalizationSpec(rand)));
    const kernels = cases
      .filter((c) => innerPersistentRegistry().tryPick(c.fusion, c.info).scheduler !== null)
      .map((c, i) => compileFusion(c.fusion, c.info, { fusionId: 30000 + i, registry: innerPersistentRegistry() }));
    // 64-bit indexing (never run)
    const big = buildNormalization('index64', { kind: 'layer_norm', dtype: 'BFloat16', shape: [700000, 4096], affine: true });
    const k64 = compileFusion(big.fusion, big.info, { fusionId: 39999, registry: innerPersistentRegistry() });
    expect(k64.indexType).toBe('Int');
    kernels.push(k64);
    expect(kernels.length).toBeGreaterThanOrEqual(randomCount);
    await compileKernelsWithNvcc(kernels, { label: 'norm', context: `random seed ${seed}` });
  }, 600_000);
});

describe('inner persistent codegen: rows through shared memory by bulk copy (bulkLoadRows)', () => {
  const bulkIssues = (k: Kernel): Extract<Stmt, { kind: 'BulkLoadIssue' }>[] => k.body.filter((s): s is Extract<Stmt, { kind: 'BulkLoadIssue' }> => s.kind === 'BulkLoadIssue');

  it('one cp.async.bulk per row of x, waited for before the first read; x read from shared memory only; simulates like the fusion', () => {
    const c = buildNormalization('ln_bulk', { kind: 'layer_norm', dtype: 'Float', shape: [9, 4096], affine: true });
    const { kernel, compiled } = lowerCase(c, { bulkLoadRows: true, maxBlocksPerSm: 0, hoistRowParamLoads: true });
    const [issue] = bulkIssues(kernel);
    expect(issue?.copies.map((x) => [x.source.tensor, x.buffer, x.dtype])).toEqual([['T0', 'T0_row', 'Float']]);
    const copy = issue?.copies[0];
    // The buffer holds B·bdimx·vec elements after the reductions' shared memory, 128-byte aligned; the mbarrier follows it.
    const p = compiled.params;
    if (p.schedulerType !== 'inner_persistent' || copy === undefined) throw new Error('expected an inner persistent kernel with one copy');
    expect(copy.capacity).toBe(p.batchesPerBlockInnerReduction * p.lparams.bdimx * p.unrollFactorInnerReduction);
    expect(copy.sharedOffset % 128).toBe(0);
    expect(copy.barrierOffset).toBeGreaterThanOrEqual(copy.sharedOffset + copy.capacity * 4);
    expect(kernel.sharedMemBytes).toBe(copy.barrierOffset + 8);
    // x is read from global memory by nothing but the copy; the wait comes before the first shared read.
    const order: string[] = [];
    walk(kernel.body, false, (s) => {
      if (s.kind === 'BulkLoadWait') order.push('wait');
      if (s.kind === 'LoadStore' && s.in.tensor === 'T0') order.push('global x');
      if (s.kind === 'LoadStore' && s.in.memory === 'Shared') order.push('shared x');
      if (s.kind === 'LoadStore' && s.in.memory === 'Global' && s.in.tensor !== 'T0') order.push('param');
    });
    expect(order).not.toContain('global x');
    expect(order.indexOf('wait')).toBeLessThan(order.indexOf('shared x'));
    // The hoisted weight and bias loads are issued while the copy is in flight.
    expect(order.indexOf('param')).toBeLessThan(order.indexOf('wait'));
    const cuda = compiled.dumps.cuda;
    expect(cuda).toContain('extern __shared__ __align__(128) double nvf_shared_mem[];');
    expect(cuda).toMatch(/nvfBulkCopyRow\(T0_row_barrier, T0_row, &T0\[blockIdx\.x \* T0\.alloc_stride\[0\]\], static_cast<unsigned>\(i\d+\) \* 4u\);/);
    expect(cuda).toContain('loadSharedToLocal<float, 4>');
    expect(compiled.dumps.kernelIr).toMatch(/BULK_COPY T0_row_s Float\[\d+\] @\d+ ← T0_g\[blockIdx\.x \* T0\.alloc_stride\[0\]\]/);
    simulateAndCompare(c, { bulkLoadRows: true, hoistRowParamLoads: true });
    // Other row lengths and kinds with 16-byte vectors: Float rows of 1000 (vec 4), BFloat16 rows (vec 8), no parameters.
    simulateAndCompare(buildNormalization('ln_bulk_1000', { kind: 'layer_norm', dtype: 'Float', shape: [6, 1000], affine: true }), { bulkLoadRows: true });
    simulateAndCompare(buildNormalization('rms_bulk', { kind: 'rms_norm', dtype: 'BFloat16', shape: [5, 4096], affine: true }), { bulkLoadRows: true, batches: 2 });
    simulateAndCompare(buildNormalization('softmax_bulk', { kind: 'softmax', dtype: 'Float', shape: [7, 2048] }), { bulkLoadRows: true, maxBlocksPerSm: 3 });
    // The H100's former default (hoisted parameters, bulk copies, cap 3), asked for, for every Float kind with parameters
    // at 4096; without the override no copy. Few rows would get the wide few-rows blocks (no hoisting): a 4-SM device
    // makes 5 rows "many" and keeps the simulation small.
    const h100Default = { bulkLoadRows: true, maxBlocksPerSm: 3 };
    for (const kind of ['layer_norm', 'layer_norm_welford', 'rms_norm'] as const) {
      const built = buildNormalization(`${kind}_bulk_default`, { kind, dtype: 'Float', shape: [5, 4096], affine: true });
      const d = { ...built, info: makeRuntimeInfo(built.fusion, built.sizes.map((sizes) => ({ sizes })), { ...H100_PROPERTIES, smCount: 4 }) };
      expect(bulkIssues(lowerCase(d).kernel), kind).toHaveLength(0);
      expect(bulkIssues(lowerCase(d, h100Default).kernel), kind).toHaveLength(1);
      simulateAndCompare(d, h100Default);
    }
  });

  it('the block cap pads the shared memory request; rows the copy cannot take keep their global loads', () => {
    const c = buildNormalization('ln_bulk_cap', { kind: 'layer_norm', dtype: 'Float', shape: [9, 4096], affine: true });
    const { kernel, compiled } = lowerCase(c, { bulkLoadRows: true, maxBlocksPerSm: 3 });
    expect(kernel.sharedMemBytes).toBe(compiled.params.schedulerType === 'inner_persistent' ? compiled.params.minSharedMemBytes : -1);
    expect(compiled.launch.sharedMemBytes).toBe(kernel.sharedMemBytes);
    // Rows of 1002 Float: 8-byte vectors (1002 is not a multiple of 4), so no 16-byte row copies.
    const odd = lowerCase(buildNormalization('ln_bulk_odd', { kind: 'layer_norm', dtype: 'Float', shape: [3, 1002], affine: true }), { bulkLoadRows: true });
    expect(bulkIssues(odd.kernel)).toHaveLength(0);
    expect(odd.compiled.dumps.cuda).not.toContain('nvfBulkCopyRow');
    // Short rows several per block (threadIdx.y): no copy either.
    const short = lowerCase(buildNormalization('softmax_bulk_short', { kind: 'softmax', dtype: 'Float', shape: [600, 64] }), { bulkLoadRows: true });
    expect(bulkIssues(short.kernel)).toHaveLength(0);
    simulateAndCompare(buildNormalization('ln_bulk_odd', { kind: 'layer_norm', dtype: 'Float', shape: [3, 1002], affine: true }), { bulkLoadRows: true });
  });

  it.skipIf(!hasNvcc)('compiles with nvcc -cubin -arch=sm_90 (ptxas assembles cp.async.bulk and the mbarrier)', async () => {
    const cases = [
      buildNormalization('bulk_nvcc_ln', { kind: 'layer_norm', dtype: 'Float', shape: [16384, 4096], affine: true }),
      buildNormalization('bulk_nvcc_rms', { kind: 'rms_norm', dtype: 'BFloat16', shape: [64, 4096], affine: true }),
      buildNormalization('bulk_nvcc_softmax', { kind: 'softmax', dtype: 'Float', shape: [64, 1000] }),
    ];
    const kernels = cases.map((c, i) => compileFusion(c.fusion, c.info, { fusionId: 39000 + i, registry: innerPersistentRegistry({ bulkLoadRows: true }) }));
    expect(kernels.every((k) => k.dumps.cuda.includes('nvfBulkCopyRow'))).toBe(true);
    await compileKernelsWithNvcc(kernels, { label: 'bulk-rows', cubin: true });
  }, 600_000);
});
