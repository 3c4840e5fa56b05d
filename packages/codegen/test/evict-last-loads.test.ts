// The `evict-last-loads` lowering pass: a pointwise kernel that loads inputs vectorized loads every
// global vector with L1::evict_last and an L2 evict_last cache policy (loadGlobalToLocalEvictLastL2);
// only the hints change (the kernel IR with the hints removed equals the IR without the pass);
// kernels without vectorized loads keep plain loads; the kernel still computes what the reference does
// (simulated, random inputs, seed printed); nvcc accepts the inline PTX (when installed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor, mul } from '@tsfuser/fusion-ir';
import { computePointwiseHeuristics, H100_PROPERTIES, makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry, type PointwiseParams } from '@tsfuser/scheduler';
import { ropeFusion, ropeInputs } from '@tsfuser/test-support';
import { compileFusion, runtimeLibrary, withCLinkage } from '../src/index.js';
import { hasNvcc, NVCC } from './nvcc-batch.js';
import { simulateOnDevice } from './transpose-simulation.js';
import { baseSeed, seeded } from './shape-ops-simulation.js';

describe('evict-last-loads', () => {
  const seed = baseSeed();
  const rope = ropeFusion('BFloat16', 128);
  const ropeInfo = makeRuntimeInfo(rope, [{ sizes: [2, 64, 8, 128] }, { sizes: [1, 64, 1, 128] }, { sizes: [1, 64, 1, 128] }]);

  it('RoPE (slice + cat) and any kernel with vectorized input loads load every vector evict-last in L1 and L2; unvectorized ones do not', () => {
    const p = computePointwiseHeuristics(rope, ropeInfo) as PointwiseParams;
    expect(p.evictLastLoads).toBe(true);
    const k = compileFusion(rope, ropeInfo);
    const loads = k.dumps.cuda.split('\n').filter((l) => l.includes('loadGlobalToLocal'));
    expect(loads.length).toBeGreaterThan(0);
    expect(loads.every((l) => l.includes('loadGlobalToLocalEvictLastL2<'))).toBe(true);

    // A kernel with no vectorized input load keeps plain loads (odd sizes: no vectors).
    const plain = new Fusion();
    const x = makeTensor(plain, { shape: [-1, -1], dtype: 'Float' });
    const y = makeTensor(plain, { shape: [-1, -1], dtype: 'Float' });
    plain.addInput(x);
    plain.addInput(y);
    plain.addOutput(mul(add(x, y), 2));
    const info = makeRuntimeInfo(plain, [{ sizes: [1023, 4095] }, { sizes: [1023, 4095] }]);
    const p2 = computePointwiseHeuristics(plain, info) as PointwiseParams;
    expect([p2.vectorizationFactor, p2.evictLastLoads]).toEqual([1, false]);
    expect(compileFusion(plain, info).dumps.cuda).not.toMatch(/EvictLastL2/);
    const even = makeRuntimeInfo(plain, [{ sizes: [1024, 4096] }, { sizes: [1024, 4096] }]);
    expect((computePointwiseHeuristics(plain, even) as PointwiseParams).evictLastLoads).toBe(true);
  });

  it('changes only hints: without them the IR equals the kernel compiled with the pass off', () => {
    const registry = (o: { evictLastLoads?: boolean }): SchedulerRegistry => new SchedulerRegistry([new PointwiseScheduler(o)]);
    const on = compileFusion(rope, ropeInfo, { registry: registry({}), kernelIrAfterPass: 'evict-last-loads' }).dumps.kernelIrAfterPass ?? '';
    const off = compileFusion(rope, ropeInfo, { registry: registry({ evictLastLoads: false }), kernelIrAfterPass: 'unrolled-loads-first' });
    expect(on).toContain('evict_last_l2 ');
    expect(off.dumps.kernelIr).not.toContain('evict_last_l2');
    expect(off.dumps.cuda).not.toMatch(/EvictLastL2/);
    const onFinal = compileFusion(rope, ropeInfo, { registry: registry({}) }).dumps.kernelIr;
    expect(onFinal.replace(/evict_last_l2 /g, '')).toBe(off.dumps.kernelIr);
  });

  it('the hinted RoPE kernel computes what the reference does (simulated)', () => {
    const inputs = ropeInputs('BFloat16', [2, 64, 8, 128], seeded(seed));
    const r = simulateOnDevice(rope, inputs, null, seed, H100_PROPERTIES, `rope bf16 seed ${seed}`);
    expect((r.params as PointwiseParams).evictLastLoads).toBe(true);
  });

  it.skipIf(!hasNvcc)('nvcc -cubin -arch=sm_90 accepts the kernel', () => {
    const k = compileFusion(rope, ropeInfo);
    const dir = mkdtempSync(join(tmpdir(), 'evict-l2-'));
    const file = join(dir, 'k.cu');
    writeFileSync(file, `${runtimeLibrary(k.indexType)}\n${withCLinkage(k.dumps.cuda)}`);
    execFileSync(NVCC, ['-cubin', '-arch=sm_90', '-std=c++17', '-o', join(dir, 'k.cubin'), file], { stdio: 'pipe' });
  }, 120_000);
});
