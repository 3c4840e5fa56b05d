// The transpose scheduler on a small simulated device (2 SMs, so one full wave of 32×32 tiles is
// 2,048 elements and small sizes take the transpose scheduler): fast differential tests of the
// shared-tile kernel in the kernel simulator against the reference evaluator — the fixed cases
// of every kind (2-D, permute + pointwise, 3-D / 4-D, permuted input, stride-ordered output,
// f32 / bf16 / f16, tiles not dividing the sizes, the large 64×64 tiles) and random ones until 4 took the transpose
// scheduler (seed printed). The full-size
// fixtures and 60 random cases are in transpose.test.ts / transpose-random.test.ts (slow tier).
import { describe, expect, it } from 'vitest';
import { randomTransposeCase } from '@tsfuser/test-support';
import { simulateOnDevice, SMALL_DEVICE } from './transpose-simulation.js';
import { baseSeed, seeded } from './shape-ops-simulation.js';
import { add, Fusion, makeTensor, mul, permute, strideOrder } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion } from '../src/index.js';

describe('transpose kernels on a small device (simulated)', () => {
  const seed = baseSeed();
  it('2-D f32 with odd sizes, every tile edge guarded', () => {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [-1, -1], dtype: 'Float' });
    fusion.addInput(x);
    fusion.addOutput(strideOrder(mul(permute(add(x, 1), [1, 0]), 2), [1, 0]));
    const r = simulateOnDevice(fusion, [[67, 45]], 'Float', seed, SMALL_DEVICE);
    expect(r.params.schedulerType).toBe('transpose');
  });
  it('large 64×64 tiles of 256 threads (two waves of them on 2 SMs), f32 and bf16, tiles not dividing the sizes', () => {
    for (const dtype of ['Float', 'BFloat16'] as const) {
      const fusion = new Fusion();
      const x = makeTensor(fusion, { shape: [-1, -1], dtype });
      fusion.addInput(x);
      fusion.addOutput(strideOrder(permute(x, [1, 0]), [1, 0]));
      // 6 × 7 = 42 tiles of 64 ≥ 2 waves (2 SMs × 8 blocks of 256 threads, twice).
      const r = simulateOnDevice(fusion, [[380, 420]], dtype, seed, SMALL_DEVICE, `${dtype} 380×420 seed ${seed}`);
      expect(r.params).toMatchObject({ schedulerType: 'transpose', tileSize1: 64, tileSize2: 64, lparams: { bdimx: 256 } });
    }
  });
  it('large tiles keep two vectors a thread: a Bool 8192×4096 transpose (256 vectors of 16 a tile) lowers', () => {
    const fusion = new Fusion();
    const x = makeTensor(fusion, { shape: [-1, -1], dtype: 'Bool' });
    fusion.addInput(x);
    fusion.addOutput(strideOrder(permute(x, [1, 0]), [1, 0]));
    const k = compileFusion(fusion, makeRuntimeInfo(fusion, [{ sizes: [8192, 4096] }]));
    expect(k.params).toMatchObject({ schedulerType: 'transpose', tileSize1: 64, vectorizeFactor1: 16, lparams: { bdimx: 128 } });
  });
  it('random cases until 4 took the transpose scheduler', () => {
    // Whether a random case takes the transpose scheduler depends on its sizes: draw cases (each
    // simulated) until 4 did, so the count cannot fall short by the luck of 8 draws (seen: 2 of 8).
    let transposes = 0;
    for (let i = 0; i < 48 && transposes < 4; i += 1) {
      const c = randomTransposeCase(seeded(seed + i), i, 3000);
      const label = `${c.name} seed ${seed + i} (TSFUSER_SEED=${seed}, iteration ${i})`;
      const r = simulateOnDevice(c.fusion, c.inputs(seeded(seed + 1000 + i)), null, seed, SMALL_DEVICE, label);
      if (r.params.schedulerType === 'transpose') transposes += 1;
    }
    expect(transposes).toBe(4);
  });
});
