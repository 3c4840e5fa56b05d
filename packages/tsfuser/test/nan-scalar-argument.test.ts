// A NaN scalar argument on the GPU path (nvFuser's test_validate_precomputed_values passes
// float("nan") for a Double scalar): the executor cache used to take it for an uploaded copy
// (NaN !== NaN) and dispose it as a temporary — a TypeError with a stack trace on the H200.
import { Tensor } from '@tsfuser/device';
import { HostTensor } from '@tsfuser/fusion-ir';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { FusionDefinition } from '../src/index.js';
import { fakeDevice } from './fake-device.js';

describe('a NaN scalar argument', () => {
  it('runs ge(T, NaN) through the executor cache, twice (new and cached layout)', () => {
    const fd = FusionDefinition.build((f) => {
      const t = f.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'Float' });
      f.addOutput(f.ops.ge(t, f.defineScalar(null, 'Double')));
    });
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(fd.fusionIr(), fake.device, {});
    const x = Tensor.fromHost(HostTensor.fromValues('Float', [2, 5], new Array<number>(10).fill(1))).toDevice(fake.device);
    for (const scalar of [Number.NaN, Number.NaN, -0]) {
      const outputs = cache.runFusion([x, scalar]);
      expect(outputs.map((o) => o.sizes)).toEqual([[2, 5]]);
      outputs.forEach((o) => o.dispose());
    }
    expect(fake.launches).toHaveLength(3);
    x.dispose();
  });
});
