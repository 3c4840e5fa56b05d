// Issue 32 (a): on the GPU path the input-extent check runs once per new input layout, in the
// runtime's executor cache (extent-groups.ts, the one implementation), not per call in the
// frontend; a mismatch is still the frontend's InputMismatchError with the same message. The
// reference backend keeps checking in the frontend on every call. Runs the real GPU backend on
// the fake H100 (test/fake-device.ts).
import { describe, expect, it } from 'vitest';
import type { Backend } from '../src/execute/backend.js';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { DataType, FusionCache, FusionDefinition, InputMismatchError, Tensor } from '../src/index.js';
import { fakeDevice } from './fake-device.js';

function pair(): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const t0 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: DataType.Float });
    const t1 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: DataType.Float });
    fd.addOutput(fd.ops.add(t0, t1));
  }, { cache: new FusionCache() });
}

const ones = (rows: number, cols: number): Tensor => Tensor.from(new Float32Array(rows * cols).fill(1), [rows, cols], 'Float');

/** A backend that records the inputs it is given (and runs them on the reference evaluator). */
function recording(checksInputExtents: boolean): Backend & { runs: number } {
  const backend = {
    name: 'recording',
    checksInputExtents,
    runs: 0,
    availability: () => ({ available: true }) as const,
    run: (...args: Parameters<Backend['run']>) => {
      backend.runs += 1;
      return Promise.resolve(args[1].map(() => ones(1, 1)));
    },
  };
  return backend;
}

describe('the GPU path checks input extents once per new layout, in the runtime', () => {
  it('execute() leaves the check to a backend that makes it (the GPU\'s) and makes it for any other', async () => {
    const fd = pair();
    const mismatched = [ones(3, 2), ones(4, 2)];
    const own = recording(true);
    await fd.execute(mismatched, { backend: own, dumpsFromEnvironment: false });
    expect(own.runs).toBe(1);
    const other = recording(false);
    await expect(fd.execute(mismatched, { backend: other, dumpsFromEnvironment: false })).rejects.toThrow(InputMismatchError);
    expect(other.runs).toBe(0);
    expect(createGpuBackend().checksInputExtents).toBe(true);
  });

  it('three executes of one layout build one launch plan (where the runtime checks); a new layout checks again', async () => {
    const fake = fakeDevice();
    const backend = createGpuBackend({ deviceContext: () => fake.device, cubinDirectory: null });
    const fd = pair();
    for (let k = 0; k < 3; k += 1) (await fd.execute([ones(8, 4), ones(8, 4)], { backend, dumpsFromEnvironment: false })).forEach((t) => t.dispose());
    const cache = backend.executorCache(fd.fusionIr());
    expect(cache.stats.calls).toBe(3);
    expect(cache.stats.launchPlans).toBe(1);
    const e = await fd.execute([ones(8, 4), ones(8, 5)], { backend, dumpsFromEnvironment: false }).catch((x: unknown) => x);
    expect((e as Error).message).toBe('input 1: T1 dim 1 has size 5, but input 0 (T0) dim 1, the same dim of the fusion, has size 4');
  });

  it('a mismatch is one InputMismatchError naming both inputs (the frontend\'s message), nothing launched', async () => {
    const fake = fakeDevice();
    const backend = createGpuBackend({ deviceContext: () => fake.device, cubinDirectory: null });
    const e = await pair()
      .execute([ones(3, 2), ones(4, 2)], { backend, dumpsFromEnvironment: false })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputMismatchError);
    expect((e as InputMismatchError).inputIndex).toBe(1);
    expect((e as Error).message).toBe('input 1: T1 dim 0 has size 4, but input 0 (T0) dim 0, the same dim of the fusion, has size 3');
    expect(fake.launches.length).toBe(0);
  });
});
