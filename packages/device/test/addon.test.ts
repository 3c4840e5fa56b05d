import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ADDON_ABI_VERSION,
  ADDON_FILE,
  CudaError,
  DeviceContext,
  RuntimeUnavailableError,
  addonSearchPaths,
  isAvailable,
  loadAddon,
} from '../src/index.js';
import { staleAddonReason } from '../src/native/addon.js';

const hasGpu = existsSync('/dev/nvidia0');

describe('native addon', () => {
  it('loads on any machine, GPU or not', () => {
    const load = loadAddon();
    if (!load.ok) throw new Error(load.reason);
    expect(load.path.endsWith(join('build', 'Release', ADDON_FILE))).toBe(true);
    expect(load.addon.abiVersion).toBe(ADDON_ABI_VERSION);
    for (const name of ['probe', 'memAlloc', 'nvrtcCompile', 'launchKernel', 'eventElapsedTime', 'streamWaitEvent'] as const) {
      expect(typeof load.addon[name]).toBe('function');
    }
  });

  it('exports the CUDA graph entry points; without a GPU each is a CudaError naming its driver call', () => {
    const load = loadAddon();
    if (!load.ok) throw new Error(load.reason);
    const a = load.addon;
    const calls: [string, () => unknown][] = [
      ['cuStreamBeginCapture', () => a.streamBeginCapture(0n, 2)],
      ['cuStreamEndCapture', () => a.streamEndCapture(0n)],
      ['cuGraphInstantiateWithFlags', () => a.graphInstantiate(0n)],
      ['cuGraphLaunch', () => a.graphLaunch(0n, 0n)],
      ['cuGraphExecDestroy', () => a.graphExecDestroy(0n)],
      ['cuGraphDestroy', () => a.graphDestroy(0n)],
    ];
    for (const [call, run] of calls) {
      if (hasGpu) continue; // on a GPU machine null handles are the driver's to reject; the GPU suite captures for real
      expect(run, call).toThrow(CudaError);
      expect(run, call).toThrow(new RegExp(call));
    }
  });

  it('refuses an addon built for another ABI, saying how to rebuild it', () => {
    expect(staleAddonReason('/x/tsfuser_runtime.node', ADDON_ABI_VERSION)).toBeNull();
    expect(staleAddonReason('/x/tsfuser_runtime.node', 1)).toBe(
      `/x/tsfuser_runtime.node is a stale build (ABI 1, this device layer needs ${ADDON_ABI_VERSION}): rebuild it with \`pnpm --filter @tsfuser/device build\``,
    );
    expect(staleAddonReason('/x/a.node', undefined)).toMatch(/ABI undefined/);
  });

  it('searches $TSFUSER_ADDON_PATH first, then beside the module, then build/Release upwards', () => {
    const paths = addonSearchPaths('/a/b/c', { TSFUSER_ADDON_PATH: '/x/addon.node' });
    expect(paths).toEqual([
      '/x/addon.node',
      `/a/b/c/${ADDON_FILE}`,
      `/a/b/c/build/Release/${ADDON_FILE}`,
      `/a/b/build/Release/${ADDON_FILE}`,
      `/a/build/Release/${ADDON_FILE}`,
      `/build/Release/${ADDON_FILE}`,
    ]);
    expect(addonSearchPaths('/m', {})[0]).toBe(`/m/${ADDON_FILE}`);
  });

  it.skipIf(hasGpu)('reports a clear reason when libcuda.so.1 is missing', () => {
    const availability = isAvailable();
    expect(availability.available).toBe(false);
    expect(availability.reason).toMatch(/^libcuda\.so\.1 not found: /);
    expect(availability.addonPath).toBeDefined();
  });

  it.skipIf(hasGpu)('turns driver calls without a driver into CudaError, not a crash', () => {
    const load = loadAddon();
    if (!load.ok) throw new Error(load.reason);
    let caught: unknown;
    try {
      load.addon.memAlloc(16);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CudaError);
    const error = caught as CudaError;
    expect(error.call).toBe('cuMemAlloc');
    expect(error.code).toBe(-1);
    expect(error.errorName).toBe('CUDA_DRIVER_UNAVAILABLE');
    expect(error.message).toMatch(/libcuda\.so\.1 not found/);
    expect(() => load.addon.nvrtcVersion()).toThrow(/NVRTC not found|libnvrtc/);
  });

  it.skipIf(hasGpu)('refuses to create a DeviceContext without a GPU', () => {
    expect(() => DeviceContext.create()).toThrow(RuntimeUnavailableError);
  });

  it('rejects malformed arguments with TypeError/RangeError before touching CUDA', () => {
    const load = loadAddon();
    if (!load.ok) throw new Error(load.reason);
    const { addon } = load;
    expect(() => addon.memAlloc(-1 as unknown as bigint)).toThrow(TypeError);
    expect(() => addon.memcpyHtoD(0n, new Uint8Array(4), 2, 4)).toThrow(RangeError);
    expect(() => addon.memcpyDtoH(new Float32Array(2), 0, 0n, 9)).toThrow(RangeError);
    expect(() => addon.launchKernel(0n, 1, 1, 1, 1, 1, 1, 0, 0n, 'x' as unknown as Uint8Array)).toThrow(TypeError);
  });
});
