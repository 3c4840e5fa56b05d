// Issue 36's GPU items that are definition-shaped, checked without a GPU: a reshape to run-time
// sizes (Int scalar inputs, or sizes computed from input sizes) and a slice followed by a reshape
// each plan, lower and emit CUDA through FusionExecutorCache on the fake H100 (the issue saw
// "cannot evaluate extent i20 from the input sizes" on the GPU for a repro of this kind; these
// small definitions do not reproduce it here), and their reference values are the row-major
// reshape of the input (relu applied). Also a normalization whose divisor is the size of another
// input that the kernel reads no element of (`div(sum(x, [1]), size(y, 0))`): its segment now
// takes y for its sizes (it failed to lower with "scalar i2 is neither an input nor computed in
// the kernel", the issue's normalization-repro error). The integrator runs them on the GPU.

import { Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { FusionCache, importPythonDefinition } from '../src/index.js';
import { fakeDevice } from './fake-device.js';

const HEADER = 'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n';

function ramp(sizes: number[]): Tensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  return Tensor.from(Float32Array.from({ length: n }, (_, i) => i * 0.5 - 3), sizes, 'Float');
}

const relu = (v: number): number => Math.max(v, 0);

const CASES: [string, string[], () => (Tensor | number)[], number[], (i: number) => number][] = [
  [
    'a reshape to run-time sizes (Int scalar inputs)',
    ['T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)', 'S1 = fd.define_scalar(None, dtype=DataType.Int)', 'S2 = fd.define_scalar(None, dtype=DataType.Int)', 'T3 = fd.ops.reshape(T0, new_shape=[S1, S2])', 'T4 = fd.ops.relu(T3)', 'fd.add_output(T4)'],
    () => [ramp([4, 6]), 8, 3],
    [8, 3],
    (i) => relu(i * 0.5 - 3),
  ],
  [
    'a reshape to a size computed from the input sizes',
    ['T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)', 'S1 = fd.ops.size(T0, 0)', 'S2 = fd.ops.size(T0, 1)', 'S3 = fd.ops.mul(S1, S2)', 'T3 = fd.ops.reshape(T0, new_shape=[S3])', 'T4 = fd.ops.relu(T3)', 'fd.add_output(T4)'],
    () => [ramp([4, 6])],
    [24],
    (i) => relu(i * 0.5 - 3),
  ],
  [
    'a slice then a reshape',
    ['T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)', 'T1 = fd.ops.slice(T0, start_indices=[0, 2], end_indices=[4, 8], strides=[1, 1])', 'T2 = fd.ops.reshape(T1, new_shape=[24])', 'T3 = fd.ops.relu(T2)', 'fd.add_output(T3)'],
    () => [ramp([4, 8])],
    [24],
    (i) => relu((Math.floor(i / 6) * 8 + 2 + (i % 6)) * 0.5 - 3),
  ],
  [
    'x - mean(x) with the size of another input as the divisor',
    [
      'T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)',
      'T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)',
      'S2 = fd.ops.size(T1, 0)',
      'T3 = fd.ops.sum(T0, dims=[1], keepdim=True)',
      'T4 = fd.ops.div(T3, S2)',
      'T5 = fd.ops.sub(T0, T4)',
      'fd.add_output(T5)',
    ],
    () => [ramp([4, 6]), ramp([3])],
    [4, 6],
    // Row r of the ramp is -3 + 3r + 0.5j (j < 6): its sum is 6(-3 + 3r) + 7.5, divided by 3.
    (i) => Math.fround(Math.fround(i * 0.5 - 3) - Math.fround((6 * (-3 + 3 * Math.floor(i / 6)) + 7.5) / 3)),
  ],
];

describe('issue 36 GPU items on the CPU side', () => {
  it.each(CASES)('%s', async (_name, body, inputs, sizes, value) => {
    const fd = importPythonDefinition(HEADER + body.map((l) => `    ${l}`).join('\n') + '\n', { cache: new FusionCache() });
    const [out] = await fd.execute(inputs());
    expect([...(out?.sizes ?? [])]).toEqual(sizes);
    expect(out?.toArray()).toEqual(Array.from({ length: sizes.reduce((a, b) => a * b, 1) }, (_, i) => value(i)));
    const { device, sources } = fakeDevice();
    const cache = new FusionExecutorCache(fd.fusionIr(), device, { concurrentSegments: false });
    cache.runFusion(inputs());
    const plan = cache.lastPlan();
    expect(plan?.segments.some((s) => s.kind === 'kernel')).toBe(true);
    expect(sources.size).toBeGreaterThan(0);
  });
});
