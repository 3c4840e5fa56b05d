// The cached runFusion path (issue 38's host path) on the fake H100: inputs already on the
// device are used as given (the caller's array is neither copied into nor changed), host inputs
// are copied to the device for the call and freed after it, each launch of a plan step reads the
// tensors of its own call (the step's reused argument list is refilled), outputs are fresh
// tensors every call, and a plan with intermediates frees them after every call.
import { add, Fusion, makeTensor, mul, sum, type TensorView } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { fakeDevice } from './fake-device.js';

function input(f: Fusion, rank: number): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype: 'Float' });
  f.addInput(tv);
  return tv;
}

/** out0 = x * 2 + y, out1 = x + y: one pointwise kernel, two outputs. */
function pointwise(): Fusion {
  const f = new Fusion();
  const [x, y] = [input(f, 2), input(f, 2)];
  f.addOutput(add(mul(x, 2), y));
  f.addOutput(add(x, y));
  return f;
}

describe('cached runFusion', () => {
  it('uses device inputs as given, copies host inputs for the call only, and returns fresh outputs', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, { concurrentSegments: false });
    const x = Tensor.emptyDevice(fake.device, 'Float', [8, 16]);
    const y = Tensor.emptyDevice(fake.device, 'Float', [8, 16]);
    const args = Object.freeze([x, y]);
    const before = fake.live.size;
    for (let call = 0; call < 4; call += 1) {
      const outs = cache.runFusion(args);
      expect(outs.map((t) => t.sizes)).toEqual([[8, 16], [8, 16]]);
      // Both outputs are live and distinct; the pool hands the same blocks out again next call.
      expect(new Set(outs.map((t) => t.dataPtr)).size).toBe(2);
      for (const t of outs) t.dispose();
      expect(fake.live.size).toBe(before);
    }
    expect(args).toEqual([x, y]);
    expect(cache.stats.launchPlans).toBe(1);
    expect(fake.launches).toHaveLength(4);

    // A host input: copied to the device for the call, freed after it; same plan (same layout).
    const host = Tensor.from(new Float32Array(128), [8, 16], 'Float');
    const mixed = [host, y];
    const outs = cache.runFusion(mixed);
    expect(mixed[0]).toBe(host);
    expect(host.isDevice).toBe(false);
    for (const t of outs) t.dispose();
    expect(fake.live.size).toBe(before);
    expect(fake.launches).toHaveLength(5);
  });

  it('frees a segmented plan\'s intermediates after every call and launches each step every call', () => {
    const fake = fakeDevice();
    // sum then a pointwise op on its result and another input: two kernels, one intermediate.
    const f = new Fusion();
    const [x, z] = [input(f, 2), input(f, 1)];
    const s = sum(x, [1]);
    f.addOutput(add(mul(s, 2), z));
    f.addOutput(s);
    const cache = new FusionExecutorCache(f, fake.device, { concurrentSegments: false });
    const args = [Tensor.emptyDevice(fake.device, 'Float', [32, 64]), Tensor.emptyDevice(fake.device, 'Float', [32])];
    const before = fake.live.size;
    cache.runFusion(args).forEach((t) => t.dispose());
    const perCall = fake.launches.length;
    for (let call = 0; call < 3; call += 1) {
      const outs = cache.runFusion(args);
      expect(outs.map((t) => t.sizes)).toEqual([[32], [32]]);
      outs.forEach((t) => t.dispose());
      expect(fake.live.size).toBe(before);
    }
    expect(fake.launches).toHaveLength(4 * perCall);
    expect(fake.launches.slice(perCall).map((l) => l.kernel)).toEqual([1, 2, 3].flatMap(() => fake.launches.slice(0, perCall).map((l) => l.kernel)));
  });
});
