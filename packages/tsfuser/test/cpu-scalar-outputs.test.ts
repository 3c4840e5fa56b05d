// nvFuser refuses a fusion with an output computed from CPU scalar tensors only
// (KernelExecutor::supported; nvFuser's test_issue2853, test_single_segment_multi_device) and runs
// the CPU-scalar fusions it documents as supported (test_cpu_add: CPU scalar + CUDA tensor;
// test_full_with_cpu_inputs; test_input_forwarding_device: a forwarded CPU input). Random values,
// seed printed; the reference backend (the check is made before any backend runs).

import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, Tensor, importPythonDefinition } from '../src/index.js';
import { cpuScalarOutputs } from '../src/execute/cpu-scalar-outputs.js';
import { Random } from '../src/io/random.js';

const HEADER = 'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n';
const CPU = '    T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=True)\n';
const CUDA = '    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)\n';
const define = (body: string): string => `${HEADER}${CPU}${CUDA}    S2 = fd.define_scalar(3.0, dtype=DataType.Double)\n${body}`;

const seed = Date.now() % 100000;
const rng = new Random(seed);
const scalar = Math.fround(rng.normal());
const vector = Array.from({ length: 5 }, () => Math.fround(rng.normal()));
const inputs = (): Tensor[] => [Tensor.from(new Float32Array([scalar]), [], DataType.Float), Tensor.from(new Float32Array(vector), [5], DataType.Float)];

describe(`CPU scalar outputs (seed ${seed})`, () => {
  it.each([
    ['a CPU-only add beside a CUDA one (test_issue2853)', '    T3 = fd.ops.add(T0, S2)\n    T4 = fd.ops.add(T1, S2)\n    fd.add_output(T4)\n    fd.add_output(T3)\n', [1]],
    ['a CPU-only add whose consumer is no output (test_single_segment_multi_device)', '    T3 = fd.ops.add(T0, S2)\n    T4 = fd.ops.add(T3, T1)\n    fd.add_output(T3)\n    fd.add_output(T1)\n', [0]],
    ['a cast of the CPU scalar', '    T3 = fd.ops.cast(T0, dtype=DataType.Double)\n    fd.add_output(T3)\n', [0]],
  ])('refuses %s with nvFuser\'s message', async (_what, body, positions) => {
    const fd = importPythonDefinition(define(body), { cache: new FusionCache() });
    expect(cpuScalarOutputs(fd.fusionIr(), fd.inputs())).toEqual(positions);
    await expect(fd.execute(inputs(), { backend: 'reference' })).rejects.toThrow(/KernelExecutor does not support the Fusion provided\./);
    // Refused again on a second execute (nothing is remembered from a refusal).
    await expect(fd.execute(inputs(), { backend: 'reference' })).rejects.toThrow(/KernelExecutor does not support/);
  });

  it('runs a CPU scalar added to a CUDA tensor (test_cpu_add)', async () => {
    const fd = importPythonDefinition(define('    T3 = fd.ops.add(T0, T1)\n    fd.add_output(T3)\n'), { cache: new FusionCache() });
    const [out] = await fd.execute(inputs(), { backend: 'reference' });
    expect(out?.toArray()).toEqual(vector.map((v) => Math.fround(v + scalar)));
  });

  it('runs a CPU-only op consumed by a CUDA op when only the CUDA result is an output', async () => {
    const fd = importPythonDefinition(define('    T3 = fd.ops.add(T0, S2)\n    T4 = fd.ops.mul(T3, T1)\n    fd.add_output(T4)\n'), { cache: new FusionCache() });
    const [out] = await fd.execute(inputs(), { backend: 'reference' });
    expect(out?.toArray()).toEqual(vector.map((v) => Math.fround(Math.fround(scalar + 3) * v)));
  });

  it('runs a CPU scalar times full() (test_full_with_cpu_inputs) and a forwarded CPU input (test_input_forwarding_device)', async () => {
    const full = importPythonDefinition(
      `${HEADER}${CPU}    S1 = fd.define_scalar(3.0, dtype=DataType.Double)\n    T2 = fd.ops.full(shape=[2, 2], fill_value=S1, dtype=DataType.Float)\n    T3 = fd.ops.mul(T0, T2)\n    fd.add_output(T3)\n`,
      { cache: new FusionCache() },
    );
    const [product] = await full.execute([inputs()[0] as Tensor], { backend: 'reference' });
    expect(product?.toArray()).toEqual(new Array<number>(4).fill(Math.fround(scalar * 3)));
    const forward = importPythonDefinition(`${HEADER}${CPU}    fd.add_output(T0)\n`, { cache: new FusionCache() });
    const [same] = await forward.execute([inputs()[0] as Tensor], { backend: 'reference' });
    expect(same?.toArray()).toEqual([scalar]);
  });
});
