// fd.profile() (nvFuser's FusionProfiler): per-kernel device times from CUDA events around each
// launch, with the launch shape and bytes moved, for every kernel of the call in launch order.
// The executor cache runs on the fake H100 (test/fake-device.ts), whose events read a clock that
// advances FAKE_LAUNCH_MS per launch, so every kernel must time exactly FAKE_LAUNCH_MS; the
// FusionDefinition side is checked through a backend that reports a profile. GEMM (a recording
// GemmRunner) and attention segments get entries too, with their flops.
import { FusionExecutorCache, type FusionProfile, type KernelProfile } from '@tsfuser/runtime';
import { Tensor, type GemmDescriptor } from '@tsfuser/device';
import { dataTypeSize, Fusion, HostTensor, linear, makeTensor, relu, sdpfaBwd, sdpfaFwd, type TensorView } from '@tsfuser/fusion-ir';
import { generateAttentionForward } from '@tsfuser/codegen';
import { describe, expect, it } from 'vitest';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { FusionDefinition, referenceBackend, type Backend } from '../src/index.js';
import { FAKE_LAUNCH_MS, fakeDevice } from './fake-device.js';
import { FIXTURES } from './helpers.js';

async function load(file: string) {
  const { definition, inputs } = await loadDefinition(file, FIXTURES);
  return { definition, inputs: planInputs(definition.inputs(), inputs, { seed: 0, cwd: FIXTURES }).inputs };
}

describe('kernel profiles of the executor cache', () => {
  for (const [file, concurrent] of [
    ['layer_norm_backward.py', false],
    ['issue785_gelu_bias_grad.py', true],
    ['softmax.py', false],
  ] as const) {
    it(`${file}: one profile per launched kernel, timed by events around its launch`, async () => {
      const { definition, inputs } = await load(file);
      const { device, launches, events } = fakeDevice();
      const cache = new FusionExecutorCache(definition.fusionIr(), device, { concurrentSegments: concurrent, fusionId: 3 });
      cache.runFusion(inputs);
      expect(cache.lastProfile(), 'no profile unless asked').toBeNull();
      const before = launches.length;
      cache.runFusion(inputs, { profile: true });
      const profile = cache.lastProfile() as FusionProfile;
      const launched = launches.slice(before);
      expect(profile.fusionId).toBe(3);
      expect(profile.segments).toBe(launched.length);
      expect(profile.kernelProfiles.map((k) => k.name)).toEqual(launched.map((l) => l.kernel));
      expect(profile.kernelProfiles.map((k) => k.grid)).toEqual(launched.map((l) => l.grid));
      expect(profile.kernelProfiles.map((k) => k.block)).toEqual(launched.map((l) => l.block));
      expect(profile.kernelProfiles.map((k) => k.dynamicSharedMem)).toEqual(launched.map((l) => l.sharedBytes));
      expect(profile.kernelProfiles.map((k) => k.segmentId)).toEqual(launched.map((_, i) => i));
      for (const k of profile.kernelProfiles) {
        expect(k.timeMs).toBeCloseTo(FAKE_LAUNCH_MS, 12);
        expect(k.name).toContain(`nvfuser_${k.scheduler}_f3_`);
        expect(k.inputBytes).toBeGreaterThan(0);
        expect(k.outputBytes).toBeGreaterThan(0);
        expect(k.effectiveBandwidthGbs).toBeCloseTo((k.inputBytes + k.outputBytes) / (k.timeMs * 1e6), 9);
      }
      expect(profile.kernelTimeMs).toBeCloseTo(FAKE_LAUNCH_MS * launched.length, 12);
      expect(profile.inputBytes).toBe(profile.kernelProfiles.reduce((s, k) => s + k.inputBytes, 0));
      expect(events.disposed).toBe(events.created);
      expect(events.created).toBe(2 * launched.length);
      if (concurrent) expect(profile.kernelProfiles.some((k) => k.sideStream), `${file} runs a segment on the side stream`).toBe(true);
      // The next call without profile clears it: a profile describes the last call only.
      cache.runFusion(inputs);
      expect(cache.lastProfile()).toBeNull();
    });
  }

  it('a single pointwise kernel reads its inputs and writes its output once (bytes from logical sizes)', async () => {
    const { definition, inputs } = await load('softmax.py');
    const { device } = fakeDevice();
    const cache = new FusionExecutorCache(definition.fusionIr(), device, { concurrentSegments: false });
    cache.runFusion(inputs, { profile: true });
    const profile = cache.lastProfile() as FusionProfile;
    const tensorBytes = inputs.reduce<number>((s, t) => s + (t instanceof Tensor ? (t as Tensor).numel * dataTypeSize((t as Tensor).dtype) : 0), 0);
    expect(profile.segments).toBe(1);
    expect(profile.inputBytes).toBe(tensorBytes);
    // softmax's output has its input's shape and dtype.
    expect(profile.outputBytes).toBe(tensorBytes);
  });
});

describe('fd.profile()', () => {
  it("reports the backend's kernel profile with the execute's wall time", async () => {
    const { definition, inputs } = await load('softmax.py');
    const fake: FusionProfile = {
      fusionId: 0,
      segments: 1,
      kernelTimeMs: 0.5,
      inputBytes: 400,
      outputBytes: 400,
      effectiveBandwidthGbs: 0.0016,
      hostTimeMs: 0.01,
      kernelProfiles: [
        {
          name: 'nvfuser_inner_persistent_f0_c1_r0_g0', segmentId: 0, groupId: 0, kind: 'kernel', scheduler: 'inner_persistent', library: null, timeMs: 0.5, grid: [1, 1, 1], block: [128, 1, 1],
          dynamicSharedMem: 0, inputBytes: 400, outputBytes: 400, effectiveBandwidthGbs: 0.0016, flops: null, tflops: null, sideStream: false,
        },
      ],
    };
    const profiling: Backend = {
      name: 'profiling',
      availability: () => ({ available: true }),
      run: (fusion, args, options) => {
        options.onProfile?.(fake);
        return referenceBackend.run(fusion, args, options);
      },
    };
    const fd: FusionDefinition = definition;
    await fd.execute(inputs, { backend: profiling, profile: true });
    const p = fd.profile();
    expect(p.backend).toBe('profiling');
    expect(p.segments).toBe(1);
    expect(p.kernelTimeMs).toBe(0.5);
    expect(p.kernelProfiles).toEqual(fake.kernelProfiles);
    expect(p.note).toBeUndefined();
    expect(p.wallMs).toBeGreaterThanOrEqual(0);
    // Without profile: true the backend is not asked to time anything.
    let asked = false;
    await fd.execute(inputs, { backend: { ...profiling, run: (f, a, o) => ((asked = o.onProfile !== undefined), referenceBackend.run(f, a, o)) } });
    expect(asked).toBe(false);
  });

  it('on the reference backend: no kernels, the wall time and a note saying why', async () => {
    const { definition, inputs } = await load('softmax.py');
    await definition.execute(inputs, { backend: 'reference', profile: true });
    const p = definition.profile();
    expect(p.segments).toBe(0);
    expect(p.kernelProfiles).toEqual([]);
    expect(p.note).toMatch(/launched no kernels/);
  });
});

function bf16Input(f: Fusion, rank: number): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype: 'BFloat16' });
  f.addInput(tv);
  return tv;
}

function zerosBf16(sizes: number[]): Tensor {
  return Tensor.fromHost(HostTensor.fromValues('BFloat16', sizes, new Array<number>(sizes.reduce((a, b) => a * b, 1)).fill(0)));
}

describe('profiles of library calls and attention segments', () => {
  it('a cuBLASLt GEMM after a kernel (its relu fused as the epilogue): one entry with scheduler matmul, library cublasLt, 2·m·n·k flops and TFLOP/s', () => {
    const f = new Fusion();
    const [x, w] = [bf16Input(f, 2), bf16Input(f, 2)];
    f.addOutput(relu(linear(relu(x), w)));
    const fake = fakeDevice();
    // A recording GemmRunner: each call advances the fake's event clock like one launch.
    const calls: { m: number; n: number; k: number }[] = [];
    const gemm = {
      matmul: (desc: GemmDescriptor) => {
        fake.launches.push({ kernel: 'cublasLt', grid: [0, 0, 0], block: [0, 0, 0], sharedBytes: 0 });
        calls.push({ m: desc.d.rows, n: desc.d.cols, k: desc.a.cols });
        return { cachedAlgorithm: false, workspaceBytes: 0, m: desc.d.rows, n: desc.d.cols, k: 0, batch: 1 };
      },
    };
    const cache = new FusionExecutorCache(f, fake.device, { gemm, fusionId: 1 });
    const [m, k, n] = [64, 96, 48];
    cache.runFusion([zerosBf16([m, k]), zerosBf16([n, k])], { profile: true }).forEach((t) => t.dispose());
    const p = cache.lastProfile() as FusionProfile;
    expect(cache.lastPlan()?.segments.map((s) => s.kind)).toEqual(['kernel', 'libraryCall']);
    expect(calls).toHaveLength(1);
    expect(p.kernelProfiles.map((e) => e.kind)).toEqual(['kernel', 'libraryCall']);
    expect(p.kernelProfiles.map((e) => e.segmentId)).toEqual([0, 1]);
    expect(p.kernelProfiles.map((e) => e.groupId)).toEqual([0, 1]);
    const g = p.kernelProfiles[1] as KernelProfile;
    expect(g).toMatchObject({ name: `cublasLt_linear_${m}x${n}x${k}`, scheduler: 'matmul', library: 'cublasLt', flops: 2 * m * n * k, sideStream: false });
    expect(g.timeMs).toBeCloseTo(FAKE_LAUNCH_MS, 12);
    expect(g.tflops).toBeCloseTo((2 * m * n * k) / (FAKE_LAUNCH_MS * 1e9), 12);
    // A and B read (bf16), D written.
    expect(g.inputBytes).toBe((m * k + n * k) * 2);
    expect(g.outputBytes).toBe(m * n * 2);
    expect(p.kernelProfiles[0]).toMatchObject({ kind: 'kernel', library: null, flops: null, tflops: null });
    expect(p.kernelTimeMs).toBeCloseTo(2 * FAKE_LAUNCH_MS, 12);
    expect(p.hostTimeMs).toBeGreaterThan(0);
    expect(fake.events.disposed).toBe(fake.events.created);
  });

  it('a GEMM that ran as a no-algorithm fallback says so in its entry (library, fallback)', () => {
    const f = new Fusion();
    const [x, w] = [bf16Input(f, 2), bf16Input(f, 2)];
    f.addOutput(relu(linear(x, w)));
    const fake = fakeDevice();
    const report = 'fallback: cuBLASLt has no RELU algorithm for … (cublasLtMatmulAlgoGetHeuristic returned none): DEFAULT GEMM, then D = RELU(D) (rank-1 pass, in place)';
    const gemm = {
      matmul: (desc: GemmDescriptor) => {
        fake.launches.push({ kernel: 'cublasLt', grid: [0, 0, 0], block: [0, 0, 0], sharedBytes: 0 });
        return { cachedAlgorithm: false, workspaceBytes: 0, m: desc.d.rows, n: desc.d.cols, k: desc.a.cols, batch: 1, fallback: report, fallbackCalls: 2 };
      },
    };
    const cache = new FusionExecutorCache(f, fake.device, { gemm, fusionId: 1 });
    cache.runFusion([zerosBf16([8, 16]), zerosBf16([24, 16])], { profile: true }).forEach((t) => t.dispose());
    const entries = (cache.lastProfile() as FusionProfile).kernelProfiles;
    expect(entries.map((e) => e.kind)).toEqual(['libraryCall']);
    expect(entries[0]).toMatchObject({ library: 'cublasLt, fallback: 2 calls', fallback: report });
  });

  for (const causal of [false, true]) {
    it(`attention forward (causal ${causal}): one entry over its kernel, 4·B·H·L·S·E flops${causal ? ' halved' : ''}`, () => {
      const f = new Fusion();
      const [q, k, v] = [bf16Input(f, 4), bf16Input(f, 4), bf16Input(f, 4)];
      f.addOutput(sdpfaFwd(q, k, v, { isCausal: causal }).output);
      const fake = fakeDevice();
      const cache = new FusionExecutorCache(f, fake.device);
      const [B, H, L, S, E] = [2, 4, 24, 40, 64];
      cache.runFusion([zerosBf16([B, H, L, E]), zerosBf16([B, H, S, E]), zerosBf16([B, H, S, E])], { profile: true }).forEach((t) => t.dispose());
      const p = cache.lastProfile() as FusionProfile;
      expect(p.kernelProfiles).toHaveLength(1);
      const a = p.kernelProfiles[0] as KernelProfile;
      const kernel = generateAttentionForward({ dtype: 'BFloat16', headDim: E, causal, bias: 'none', dropout: false });
      expect(a).toMatchObject({ kind: 'attention', scheduler: 'attention', library: null, name: kernel.name, block: [...kernel.block], dynamicSharedMem: kernel.sharedBytes });
      expect(a.grid).toEqual([...kernel.grid({ batch: B, heads: H, kvHeads: H, queryLength: L, keyLength: S })]);
      expect(a.flops).toBe((4 * B * H * L * S * E) / (causal ? 2 : 1));
      expect(a.timeMs).toBeCloseTo(FAKE_LAUNCH_MS, 12);
      expect(a.inputBytes).toBe((B * H * L * E + 2 * B * H * S * E) * 2);
      expect(a.outputBytes).toBe(B * H * L * E * 2);
    });
  }

  it('attention backward: one entry over preprocess + main + convert, 2.5× the forward flops', () => {
    const f = new Fusion();
    const [q, k, v, go] = [bf16Input(f, 4), bf16Input(f, 4), bf16Input(f, 4), bf16Input(f, 4)];
    const r = sdpfaFwd(q, k, v);
    const g = sdpfaBwd(go, q, k, v, r.output, r.logsumexp, 0, false, r.philoxSeed, r.philoxOffset);
    f.addOutput(g.gradQuery);
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(f, fake.device);
    const s = [1, 2, 33, 128];
    cache.runFusion([zerosBf16(s), zerosBf16(s), zerosBf16(s), zerosBf16(s)], { profile: true }).forEach((t) => t.dispose());
    const p = cache.lastProfile() as FusionProfile;
    expect(p.kernelProfiles.map((e) => e.kind)).toEqual(['attention', 'attention']);
    const [fwd, bwd] = p.kernelProfiles as [KernelProfile, KernelProfile];
    expect(bwd.name.split('+')).toHaveLength(3);
    expect(fwd.flops).toBe(4 * 1 * 2 * 33 * 33 * 128);
    expect(bwd.flops).toBe(2.5 * (fwd.flops ?? 0));
    // The backward's three kernels between one pair of events.
    expect(bwd.timeMs).toBeCloseTo(3 * FAKE_LAUNCH_MS, 12);
  });
});
