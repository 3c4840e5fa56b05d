// The executor cache checks, on each new input layout, that input dims the fusion treats as one
// dim have one size (runtime extent-groups.ts, the check the frontend uses too): each input dim
// has its own symbolic extent, so binding extents alone accepted x [8, 8] + y [4, 16] and
// launched kernels reading out of bounds. Direct FusionExecutorCache users get one
// ExecutorInputError naming both inputs; nothing is launched.
import { add, Fusion, makeTensor, type TensorView } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { ExecutorInputError, FusionExecutorCache, inputExtentGroups, inputExtentMismatch } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { fakeDevice } from './fake-device.js';

function input(f: Fusion, rank: number): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype: 'Float' });
  f.addInput(tv);
  return tv;
}

describe('the executor cache checks input extents the fusion joins', () => {
  it('x [8, 8] + y [4, 16]: one ExecutorInputError naming both inputs, no launch; equal sizes run', () => {
    const f = new Fusion();
    const [x, y] = [input(f, 2), input(f, 2)];
    f.addOutput(add(x, y));
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(f, fake.device);
    const a = Tensor.emptyDevice(fake.device, 'Float', [8, 8]);
    const b = Tensor.emptyDevice(fake.device, 'Float', [4, 16]);
    expect(() => cache.runFusion([a, b])).toThrow(ExecutorInputError);
    expect(() => cache.runFusion([a, b])).toThrow(/input 1: T\d+ dim 0 has size 4, but input 0 \(T\d+\) dim 0, the same dim of the fusion, has size 8/);
    expect(fake.launches.length).toBe(0);
    const c = Tensor.emptyDevice(fake.device, 'Float', [8, 8]);
    cache.runFusion([a, c]).forEach((t) => t.dispose());
    expect(fake.launches.length).toBeGreaterThan(0);
  });

  it('inputExtentMismatch: one group per joined dim, null when the sizes agree or an input is no tensor', () => {
    const f = new Fusion();
    const [x, y] = [input(f, 2), input(f, 2)];
    f.addOutput(add(x, y));
    const groups = inputExtentGroups(f);
    expect(groups.inputs.map((i) => i.groups)).toEqual([[0, 1], [0, 1]]);
    expect(inputExtentMismatch(groups, () => [3, 5])).toBeNull();
    expect(inputExtentMismatch(groups, (i) => (i === 0 ? [3, 5] : [3, 6]))?.input).toBe(1);
    expect(inputExtentMismatch(groups, (i) => (i === 0 ? [3, 5] : null))).toBeNull();
  });
});
