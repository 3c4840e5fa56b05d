// The `evict-last-loads` lowering pass: a pointwise kernel loads the global vectors of the inputs
// in `evictLastInputs` with L1::evict_last and an L2 evict_last cache policy
// (loadGlobalToLocalEvictLastL2) — the inputs re-read only after more than half the L2 has
// streamed past (RoPE's cos / sin at its bench size) when there are some, else every vectorized
// input — and the others plain; only the hints
// change (the kernel IR with the hints removed equals the IR without the pass); kernels without
// vectorized loads keep plain loads; the kernel still computes what the reference does
// (simulated, random inputs, seed printed); nvcc accepts the inline PTX (when installed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor, mul } from '@tsfuser/fusion-ir';
import { computePointwiseHeuristics, H100_PROPERTIES, heuristicParamsToString, makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides, type PointwiseParams } from '@tsfuser/scheduler';
import { ropeFusion, ropeInputs } from '@tsfuser/test-support';
import { compileFusion, runtimeLibrary, withCLinkage } from '../src/index.js';
import { hasNvcc, NVCC } from './nvcc-batch.js';
import { simulateOnDevice } from './transpose-simulation.js';
import { baseSeed, seeded } from './shape-ops-simulation.js';

describe('evict-last-loads', () => {
  const seed = baseSeed();
  const rope = ropeFusion('BFloat16', 128);
  const ropeInfo = makeRuntimeInfo(rope, [{ sizes: [2, 64, 8, 128] }, { sizes: [1, 64, 1, 128] }, { sizes: [1, 64, 1, 128] }]);

  const loadsOf = (cuda: string, tensor: string): string[] => cuda.split('\n').filter((l) => l.includes('loadGlobalToLocal') && l.includes(`&${tensor}[`));

  it('RoPE at its bench size loads cos / sin (re-read 64 MiB later) evict-last in L1 and L2 and streams x plain; small RoPE, broadcast rows re-read soon and all-streaming kernels hint every vector load; unvectorized ones none', () => {
    // x [8, 4096, 32, 128]: cos / sin are re-read once per batch, after 4096·32·128 elements of x
    // and of the output (2 + 2 bytes each) = 64 MiB, more than half the H100's 50 MiB L2.
    const bench = makeRuntimeInfo(rope, [{ sizes: [8, 4096, 32, 128] }, { sizes: [1, 4096, 1, 128] }, { sizes: [1, 4096, 1, 128] }]);
    const p = computePointwiseHeuristics(rope, bench) as PointwiseParams;
    expect(p.evictLastInputs).toEqual([1, 2]);
    const k = compileFusion(rope, bench);
    // x: its own load and the two shifted (rotate-half) loads, all plain.
    expect(loadsOf(k.dumps.cuda, 'T0')).toHaveLength(3);
    expect(loadsOf(k.dumps.cuda, 'T0').every((l) => l.includes('loadGlobalToLocal<'))).toBe(true);
    for (const t of ['T1', 'T2']) {
      expect(loadsOf(k.dumps.cuda, t), t).toHaveLength(1);
      expect(loadsOf(k.dumps.cuda, t).every((l) => l.includes('loadGlobalToLocalEvictLastL2<')), t).toBe(true);
    }
    expect(heuristicParamsToString(p)).toContain('Loads with L1::evict_last and an L2 evict_last cache policy: inputs [1, 2]');
    // S = 1024: re-read 16 MiB later, within half the L2: every input hinted.
    const s1024 = makeRuntimeInfo(rope, [{ sizes: [32, 1024, 32, 128] }, { sizes: [1, 1024, 1, 128] }, { sizes: [1, 1024, 1, 128] }]);
    expect((computePointwiseHeuristics(rope, s1024) as PointwiseParams).evictLastInputs).toEqual([0, 1, 2]);
    expect((computePointwiseHeuristics(rope, ropeInfo) as PointwiseParams).evictLastInputs).toEqual([0, 1, 2]);
    // The overrides: every vectorized input, the cached ones, or none.
    expect((computePointwiseHeuristics(rope, bench, { evictLastLoads: 'all' }) as PointwiseParams).evictLastInputs).toEqual([0, 1, 2]);
    expect((computePointwiseHeuristics(rope, ropeInfo, { evictLastLoads: 'cached' }) as PointwiseParams).evictLastInputs).toEqual([1, 2]);
    expect((computePointwiseHeuristics(rope, bench, { evictLastLoads: 'none' }) as PointwiseParams).evictLastInputs).toEqual([]);

    // A kernel with no vectorized input load keeps plain loads (odd sizes: no vectors).
    const plain = new Fusion();
    const x = makeTensor(plain, { shape: [-1, -1], dtype: 'Float' });
    const y = makeTensor(plain, { shape: [-1, -1], dtype: 'Float' });
    plain.addInput(x);
    plain.addInput(y);
    plain.addOutput(mul(add(x, y), 2));
    const info = makeRuntimeInfo(plain, [{ sizes: [1023, 4095] }, { sizes: [1023, 4095] }]);
    const p2 = computePointwiseHeuristics(plain, info) as PointwiseParams;
    expect([p2.vectorizationFactor, p2.evictLastInputs]).toEqual([1, []]);
    expect(compileFusion(plain, info).dumps.cuda).not.toMatch(/EvictLastL2/);
    const even = makeRuntimeInfo(plain, [{ sizes: [1024, 4096] }, { sizes: [1024, 4096] }]);
    expect((computePointwiseHeuristics(plain, even) as PointwiseParams).evictLastInputs).toEqual([0, 1]);
    expect(loadsOf(compileFusion(plain, even).dumps.cuda, 'T1').every((l) => l.includes('loadGlobalToLocalEvictLastL2<'))).toBe(true);

    // nvFuser's README example: t0 [64, 1, N] broadcast over t1 [64, 512, N], each row re-read
    // right after itself (N elements later): every input is hinted; 'cached' hints t0 only.
    const bcast = new Fusion();
    const t0 = makeTensor(bcast, { shape: [-1, 1, -1], dtype: 'Float' });
    const t1 = makeTensor(bcast, { shape: [-1, -1, -1], dtype: 'Float' });
    bcast.addInput(t0);
    bcast.addInput(t1);
    bcast.addOutput(mul(add(t0, t1), 3));
    const bInfo = makeRuntimeInfo(bcast, [{ sizes: [8, 1, 1024] }, { sizes: [8, 512, 1024] }]);
    expect((computePointwiseHeuristics(bcast, bInfo) as PointwiseParams).evictLastInputs).toEqual([0, 1]);
    expect((computePointwiseHeuristics(bcast, bInfo, { evictLastLoads: 'cached' }) as PointwiseParams).evictLastInputs).toEqual([0]);
    const bk = compileFusion(bcast, bInfo, { registry: new SchedulerRegistry([new PointwiseScheduler({ evictLastLoads: 'cached' })]) }).dumps.cuda;
    expect(loadsOf(bk, 'T0').length).toBeGreaterThan(0);
    expect(loadsOf(bk, 'T0').every((l) => l.includes('loadGlobalToLocalEvictLastL2<'))).toBe(true);
    expect(loadsOf(bk, 'T1').every((l) => l.includes('loadGlobalToLocal<'))).toBe(true);
  });

  it('changes only hints: without them the IR equals the kernel compiled with the pass off (every input or the cached ones hinted)', () => {
    const registry = (o: PointwiseOverrides): SchedulerRegistry => new SchedulerRegistry([new PointwiseScheduler(o)]);
    const on = compileFusion(rope, ropeInfo, { registry: registry({}), kernelIrAfterPass: 'evict-last-loads' }).dumps.kernelIrAfterPass ?? '';
    const off = compileFusion(rope, ropeInfo, { registry: registry({ evictLastLoads: 'none' }), kernelIrAfterPass: 'unrolled-loads-first' });
    expect(on).toContain('evict_last_l2 ');
    expect(off.dumps.kernelIr).not.toContain('evict_last_l2');
    expect(off.dumps.cuda).not.toMatch(/EvictLastL2/);
    const onFinal = compileFusion(rope, ropeInfo, { registry: registry({}) }).dumps.kernelIr;
    expect(onFinal.replace(/evict_last_l2 /g, '')).toBe(off.dumps.kernelIr);
    const cached = compileFusion(rope, ropeInfo, { registry: registry({ evictLastLoads: 'cached' }) }).dumps.kernelIr;
    expect(cached.match(/evict_last_l2 /g)).toHaveLength(2);
    expect(cached.replace(/evict_last_l2 /g, '')).toBe(off.dumps.kernelIr);
  });

  it('the hinted RoPE kernel computes what the reference does (simulated)', () => {
    const inputs = ropeInputs('BFloat16', [2, 64, 8, 128], seeded(seed));
    const r = simulateOnDevice(rope, inputs, null, seed, H100_PROPERTIES, `rope bf16 seed ${seed}`);
    expect((r.params as PointwiseParams).evictLastInputs).toEqual([0, 1, 2]);
  });

  it.skipIf(!hasNvcc)('nvcc -cubin -arch=sm_90 accepts the kernel', () => {
    const k = compileFusion(rope, ropeInfo);
    const dir = mkdtempSync(join(tmpdir(), 'evict-l2-'));
    const file = join(dir, 'k.cu');
    writeFileSync(file, `${runtimeLibrary(k.indexType, { fastDivision: k.args.divisors !== null })}\n${withCLinkage(k.dumps.cuda)}`);
    execFileSync(NVCC, ['-cubin', '-arch=sm_90', '-std=c++17', '-o', join(dir, 'k.cubin'), file], { stdio: 'pipe' });
  }, 120_000);
});
