// The FusionDefinition API beyond execute (validate, lastCudaCode, lastScheduledFusionIr, profile,
// debugOutput) and the op arguments nvFuser accepts: define_vector(size), scalars of every dtype,
// Float size scalars, squeeze_expanded, manual_normalization, manual_padding.
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { DataType, FusionCache, FusionDefinition, Tensor, ValidationError, referenceBackend, type Backend } from '../src/index.js';

const cache = (): { cache: FusionCache } => ({ cache: new FusionCache() });
const floats = (values: number[], sizes: number[]): Tensor => Tensor.from(new Float32Array(values), sizes, DataType.Float);

function scaleBy2(): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const t = fd.defineTensor({ shape: [-1, -1], contiguity: true });
    fd.addOutput(fd.ops.mul(t, 2.0));
  }, cache());
}

describe('validate', () => {
  it('passes against matching references and against the reference evaluator when none are given', async () => {
    const fd = scaleBy2();
    const x = floats([1, 2, 3, 4], [2, 2]);
    await expect(fd.validate([x], [floats([2, 4, 6, 8], [2, 2])], { backend: 'reference' })).resolves.toBeUndefined();
    await expect(fd.validate([x], undefined, { backend: 'reference' })).resolves.toBeUndefined();
  });

  it('throws a ValidationError naming the output and what differs', async () => {
    const fd = scaleBy2();
    const run = fd.validate([floats([1, 2, 3, 4], [2, 2])], [floats([2, 4, 6, 9], [2, 2])], { backend: 'reference' });
    await expect(run).rejects.toThrow(ValidationError);
    await expect(fd.validate([floats([1, 2, 3, 4], [2, 2])], [floats([2, 4, 6, 9], [2, 2])], { backend: 'reference' })).rejects.toThrow(/^output 0: differs from the reference: 1 of 4 elements differ/);
    await expect(fd.validate([floats([1, 2], [1, 2])], [], { backend: 'reference' })).rejects.toThrow(/1 outputs but 0 references/);
  });
});

describe('last_cuda_code, last_scheduled_fusion_ir, profile, debug output', () => {
  it('needs an execute first, then compiles the kernel for the last inputs without a GPU', async () => {
    const fd = scaleBy2();
    expect(() => fd.lastCudaCode()).toThrow(/no execute\(\) yet/);
    await fd.execute([floats(new Array<number>(8).fill(1), [2, 4])], { backend: 'reference', profile: true, captureDebugOutput: true });
    const code = fd.lastCudaCode();
    expect(code).toMatch(/__global__ void .*nvfuser_pointwise_f0_c1_r0_g0\(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1\)/);
    expect(code).not.toContain('tsfuser runtime helpers');
    expect(fd.lastCudaCode({ intrinsicCode: true })).toContain('tsfuser runtime helpers');
    expect(fd.lastScheduledFusionIr()).toContain('T1_g');
    const profile = fd.profile();
    expect(profile.backend).toBe('reference');
    expect(profile.wallMs).toBeGreaterThanOrEqual(0);
    expect(fd.debugOutput()).toBe('');
  });

  it('captures what the backend dumps during execute', async () => {
    const dumping: Backend = {
      name: 'dumping',
      availability: () => ({ available: true }),
      run: (fusion, inputs, options) => {
        options.dumpSink?.('=== cuda_kernel ===\n');
        return referenceBackend.run(fusion, inputs, options);
      },
    };
    const fd = scaleBy2();
    const [out] = await fd.execute([floats([1, 2], [1, 2])], { backend: dumping, dump: new Set(['cuda_kernel']), captureDebugOutput: true, profile: true });
    expect(out?.toArray()).toEqual([2, 4]);
    // The backend's own text, then the kernel the GPU path compiles for an H100 (a backend
    // other than 'gpu' does not compile, so tsfuser renders compile-side dumps itself).
    expect(fd.debugOutput()).toMatch(/^=== cuda_kernel ===\n[\s\S]*__global__ void __launch_bounds__\(\d+\) nvfuser_pointwise_f0_c1_r0_g0\(/);
    expect(fd.profile().backend).toBe('dumping');
    // Both describe the last execute only.
    await fd.execute([floats([1, 2], [1, 2])], { backend: dumping });
    expect(fd.debugOutput()).toBeNull();
    expect(() => fd.profile()).toThrow(/not called with \{ profile: true \}/);
  });

  it('defines an input like a given tensor (from_pytorch)', () => {
    const fd = new FusionDefinition(cache());
    fd.fromPytorch(Tensor.fromHost(new HostTensor('Half', [4, 3], [1, 4], new Uint16Array(12))));
    fd.fromPytorch(Tensor.fromHost(new HostTensor('Half', [4, 3], [1, 4], new Uint16Array(12))), true);
    expect(fd.records().map((r) => r.args)).toEqual([
      [[-1, -1], [true, true], 'Half', false, [0, 1]],
      [[4, 3], [true, true], 'Half', false, [0, 1]],
    ]);
  });

  it('runs pointwise stride-ordered results on a GPU backend and refuses a stride-ordered reduction result, which no GPU scheduler writes yet', async () => {
    const runs: string[] = [];
    const fakeGpu: Backend = {
      name: 'gpu',
      availability: () => ({ available: true }),
      run: (fusion, inputs, options) => {
        runs.push('gpu');
        return referenceBackend.run(fusion, inputs, options);
      },
    };
    const ordered = FusionDefinition.build((f) => {
      const t = f.defineTensor(2);
      f.addOutput(f.ops.neg(t), { strideOrder: [0, 1] });
    }, cache());
    const [gpuOut] = await ordered.execute([floats([1, 2, 3, 4], [2, 2])], { backend: fakeGpu });
    expect(runs).toEqual(['gpu']);
    expect(gpuOut?.strides).toEqual([1, 2]);
    const reduced = FusionDefinition.build((f) => {
      const t = f.defineTensor(3);
      f.addOutput(f.ops.sum(t, [2]), { strideOrder: [0, 1] });
    }, cache());
    const x = floats([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2]);
    // A stride-ordered reduction result goes to the GPU backend too (its executor cache gives it a
    // copy: scheduler's materializeStrideOrders, simulated in codegen's stride-order-materialized.test.ts).
    const [viaGpu] = await reduced.execute([x], { backend: fakeGpu });
    expect(runs).toEqual(['gpu', 'gpu']);
    expect(viaGpu?.strides).toEqual([1, 2]);
    const [out] = await reduced.execute([x], { backend: 'reference' });
    expect(out?.strides).toEqual([1, 2]);
    expect(out?.toArray()).toEqual([3, 7, 11, 15]);
  });

  it('checks the device index as nvFuser does (0 … 255)', async () => {
    await expect(scaleBy2().execute([floats([1], [1, 1])], { backend: 'reference', device: 256 })).rejects.toThrow('execute: device must be a CUDA device index in [0, 255], got 256');
    await expect(scaleBy2().execute([floats([1], [1, 1])], { backend: 'reference', device: 1 })).resolves.toHaveLength(1);
  });

  it('says when nothing was profiled or captured', async () => {
    const fd = scaleBy2();
    await fd.execute([floats([1, 2, 3, 4], [2, 2])], { backend: 'reference' });
    expect(() => fd.profile()).toThrow('profile: the last execute() was not called with { profile: true }');
    expect(fd.debugOutput()).toBeNull();
  });
});

describe('op arguments as nvFuser accepts them', () => {
  it('define_vector(size) makes that many Int scalar inputs', async () => {
    const fd = FusionDefinition.build((f) => {
      const t = f.defineTensor(1);
      const shape = f.defineVector(2);
      f.addOutput(f.ops.reshape(t, shape));
    }, cache());
    expect(fd.inputs().map((d) => (d.kind === 'scalar' ? d.dtype : 'tensor'))).toEqual(['tensor', 'Int', 'Int']);
    const [out] = await fd.execute([floats([1, 2, 3, 4, 5, 6], [6]), 3, 2], { backend: 'reference' });
    expect(out?.sizes).toEqual([3, 2]);
    expect(() => new FusionDefinition(cache()).defineVector(-1)).toThrow(/size must be a non-negative integer/);
  });

  it('takes scalars of every dtype, infinities and NaN included', async () => {
    const values: [number | boolean, DataType][] = [
      [true, DataType.Bool],
      [-7, DataType.Int32],
      [2 ** 40, DataType.Int],
      [0.1, DataType.Half],
      [0.1, DataType.BFloat16],
      [Infinity, DataType.Float],
      [-Infinity, DataType.Double],
      [NaN, DataType.Double],
    ];
    for (const [v, dtype] of values) {
      const fd = FusionDefinition.build((f) => {
        const t = f.defineTensor(1, DataType.Double);
        f.addOutput(f.ops.add(t, f.ops.cast(f.defineScalar(v, dtype), DataType.Double)));
      }, cache());
      const [out] = await fd.execute([Tensor.from(new Float64Array([0]), [1], DataType.Double)], { backend: 'reference' });
      const got = Number(out?.toArray()[0]);
      const want = typeof v === 'boolean' ? 1 : dtype === DataType.Half ? 0.0999755859375 : dtype === DataType.BFloat16 ? 0.10009765625 : v;
      expect({ dtype, got }).toEqual({ dtype, got: want });
    }
  });

  it('casts Float size scalars to Index (reshape with float("…") sizes)', async () => {
    const fd = FusionDefinition.build((f) => {
      const t = f.defineTensor(1);
      const rows = f.defineScalar(3.0, DataType.Double);
      f.addOutput(f.ops.reshape(t, [rows, 2]));
    }, cache());
    const [out] = await fd.execute([floats([1, 2, 3, 4, 5, 6], [6])], { backend: 'reference' });
    expect(out?.sizes).toEqual([3, 2]);
  });

  it('squeezes an expanded dim only with squeeze_expanded=True', async () => {
    const build = (squeezeExpanded: boolean): FusionDefinition =>
      FusionDefinition.build((f) => {
        const t = f.defineTensor({ shape: [-1, -1], contiguity: [null, true] });
        f.addOutput(f.ops.squeeze(t, [0], squeezeExpanded));
      }, cache());
    expect(() => build(false)).toThrow(/squeeze: dim 0 of T0.* is an expanded broadcast .*pass squeeze_expanded=True/);
    const expanded = Tensor.fromHost(new HostTensor('Float', [4, 3], [0, 1], new Float32Array([1, 2, 3])));
    const [out] = await build(true).execute([expanded], { backend: 'reference' });
    expect(out?.toArray()).toEqual([1, 2, 3]);
  });

  it('slices the same with and without manual_normalization for normalized indices', async () => {
    const results: (number | bigint)[][] = [];
    for (const manual of [false, true]) {
      const fd = FusionDefinition.build((f) => {
        const t = f.defineTensor(2);
        f.addOutput(f.ops.slice(t, [0, 1], [2, 3], null, manual));
      }, cache());
      const [out] = await fd.execute([floats([1, 2, 3, 4, 5, 6], [2, 3])], { backend: 'reference' });
      results.push(out?.toArray() ?? []);
    }
    expect(results).toEqual([[2, 3, 5, 6], [2, 3, 5, 6]]);
  });

  it('refuses cat(manual_padding=True) clearly and runs the default', async () => {
    expect(() =>
      FusionDefinition.build((f) => {
        const t = f.defineTensor(1);
        f.addOutput(f.ops.cat([t, t], 0, true));
      }, cache()),
    ).toThrow('cat: manual_padding=True (inputs padded by the caller) is not supported; use manual_padding=False');
    const fd = FusionDefinition.build((f) => {
      const t = f.defineTensor(1);
      f.addOutput(f.ops.cat([t, t], 0, false));
    }, cache());
    const [out] = await fd.execute([floats([1, 2], [2])], { backend: 'reference' });
    expect(out?.toArray()).toEqual([1, 2, 1, 2]);
  });
});
