// fd.profile() (nvFuser's FusionProfiler): per-kernel device times from CUDA events around each
// launch, with the launch shape and bytes moved, for every kernel of the call in launch order.
// The executor cache runs on the fake H100 (test/fake-device.ts), whose events read a clock that
// advances FAKE_LAUNCH_MS per launch, so every kernel must time exactly FAKE_LAUNCH_MS; the
// FusionDefinition side is checked through a backend that reports a profile.
import { FusionExecutorCache, type FusionProfile } from '@tsfuser/runtime';
import { Tensor } from '@tsfuser/device';
import { dataTypeSize } from '@tsfuser/fusion-ir';
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
      kernelProfiles: [
        { name: 'nvfuser_inner_persistent_f0_c1_r0_g0', segmentId: 0, scheduler: 'inner_persistent', timeMs: 0.5, grid: [1, 1, 1], block: [128, 1, 1], dynamicSharedMem: 0, inputBytes: 400, outputBytes: 400, effectiveBandwidthGbs: 0.0016, sideStream: false },
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
