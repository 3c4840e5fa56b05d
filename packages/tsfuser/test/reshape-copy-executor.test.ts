// A reshape no view expresses, through FusionExecutorCache on the fake H100 (test/fake-device.ts:
// launches recorded, no values computed): the expr_eval segment's dense copy kernel launches
// before the pointwise kernel that reads the copy's view, and a second call replays the same
// plan (the same launches again). The values are checked in runtime's reshape-copy-plan test.
import { add, cast, cat, Fusion, HostTensor, makeTensor, neg, reshape, slice, type TensorView } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { fakeDevice } from './fake-device.js';

function input(f: Fusion, shape: number[]): TensorView {
  const tv = makeTensor(f, { shape, dtype: 'Float' });
  f.addInput(tv);
  return tv;
}

function zeros(sizes: number[]): Tensor {
  return Tensor.fromHost(HostTensor.fromValues('Float', sizes, new Array<number>(sizes.reduce((a, b) => a * b, 1)).fill(0)));
}

describe('a reshape copied in the launch plan, executed', () => {
  it('launches the copy kernel, then the pointwise kernel reading its view; a second call the same', () => {
    const f = new Fusion();
    const x = input(f, [1, 16, 4, 96]);
    const y = input(f, [1, 16, 24, 2]);
    const r = reshape(reshape(slice(x, [0, 0, 0, 0], [1, 16, 4, 48]), [1, 16, 4, 6, 8]), [1, 16, 24, 8]);
    f.addOutput(cat([add(y, y), neg(cast(slice(r, [0, 0, 0, 6], [1, 16, 24, 8]), 'Float'))], 3));
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(f, fake.device);
    const args = [zeros([1, 16, 4, 96]), zeros([1, 16, 24, 2])];
    const out = cache.runFusion(args);
    expect(out[0]?.sizes).toEqual([1, 16, 24, 4]);
    out.forEach((t) => t.dispose());
    const first = fake.launches.map((l) => l.kernel);
    expect(first).toHaveLength(2);
    expect(first[0]).toMatch(/^nvfuser_pointwise/);
    expect(cache.lastPlan()?.segments.map((s) => s.kind)).toEqual(['view', 'view', 'kernel']);
    cache.runFusion(args).forEach((t) => t.dispose());
    expect(fake.launches.map((l) => l.kernel)).toEqual([...first, ...first]);
  });
});
