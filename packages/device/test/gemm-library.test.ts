// GemmLibrary over a recording double of the addon's cuBLASLt functions (the real ones need a
// GPU: packages/gpu-suites/device/gemm-suite.ts runs them): availability with the reason, the
// heuristic asked once per key, the workspace taken once from the device's allocator and given
// back on dispose, the device's stream used, a configuration without an algorithm refused with
// its description, invalid descriptors refused before any native call. And gemmAvailability()
// on this machine, through the real addon.

import { describe, expect, it } from 'vitest';
import { GemmError, RuntimeUnavailableError } from '../src/errors.js';
import type { CublasLtPlan } from '../src/gemm/cublaslt-plan.js';
import type { GemmDescriptor, GemmMatrix } from '../src/gemm/gemm-descriptor.js';
import { GemmLibrary, gemmAvailability, type GemmDevice, type GemmNative } from '../src/gemm/gemm-library.js';
import { loadAddon } from '../src/native/addon.js';

interface Recorder extends GemmNative {
  calls: string[];
  plans: CublasLtPlan[];
}

function recordingNative(options: { loaded?: boolean; algorithms?: number } = {}): Recorder {
  const calls: string[] = [];
  const plans: CublasLtPlan[] = [];
  return {
    calls,
    plans,
    cublasLtProbe: () => ({ loaded: options.loaded ?? true, reason: options.loaded === false ? 'libcublasLt not found (test)' : '', path: '/x/libcublasLt.so.13', version: 130100 }),
    cublasLtCreate: () => {
      calls.push('create');
      return 0xabcn;
    },
    cublasLtDestroy: (handle) => {
      calls.push(`destroy ${handle.toString(16)}`);
    },
    cublasLtHeuristic: (_handle, plan, maxWorkspaceBytes) => {
      calls.push(`heuristic ws=${maxWorkspaceBytes}`);
      plans.push(plan);
      return Array.from({ length: options.algorithms ?? 1 }, () => ({ algo: new Uint8Array(64).fill(7), workspaceSize: 4096, wavesCount: 1 }));
    },
    cublasLtMatmul: (_handle, plan, algo, workspace, workspaceBytes, stream) => {
      calls.push(`matmul algo=${algo[0]} ws=${workspace.toString(16)}:${workspaceBytes} stream=${stream.toString(16)}`);
      plans.push(plan);
    },
  };
}

function recordingDevice(): GemmDevice & { allocations: string[] } {
  const allocations: string[] = [];
  return {
    allocations,
    stream: 0x5en,
    malloc: (bytes) => {
      allocations.push(`malloc ${bytes}`);
      return 0x7000n;
    },
    free: (pointer) => {
      allocations.push(`free ${pointer.toString(16)}`);
    },
  };
}

const f32 = (pointer: bigint, rows: number, cols: number): GemmMatrix => ({ pointer, dtype: 'Float', rows, cols, ld: cols });
const desc = (m: number): GemmDescriptor => ({ a: f32(0x1000n, m, 8), b: f32(0x2000n, 8, 16), d: f32(0x3000n, m, 16) });

describe('GemmLibrary', () => {
  it('asks the heuristic once per key, reuses the workspace and enqueues on the device stream', () => {
    const native = recordingNative();
    const device = recordingDevice();
    const library = GemmLibrary.withNative(native, device, { workspaceBytes: 1 << 20 });
    const first = library.matmul(desc(4));
    const second = library.matmul({ ...desc(4), a: f32(0x9000n, 4, 8) });
    const third = library.matmul(desc(5), { stream: 0x77n });
    expect([first.cachedAlgorithm, second.cachedAlgorithm, third.cachedAlgorithm]).toEqual([false, true, false]);
    expect(first).toMatchObject({ m: 4, n: 16, k: 8, batch: 1, workspaceBytes: 4096 });
    expect(library.cachedAlgorithmCount).toBe(2);
    expect(native.calls).toEqual([
      'create',
      'heuristic ws=1048576',
      'matmul algo=7 ws=7000:4096 stream=5e',
      'matmul algo=7 ws=7000:4096 stream=5e',
      'heuristic ws=1048576',
      'matmul algo=7 ws=7000:4096 stream=77',
    ]);
    expect(native.plans[2]?.bPointer).toBe(0x9000n);
    library.dispose();
    expect(device.allocations).toEqual(['malloc 1048576', 'free 7000']);
    expect(native.calls.at(-1)).toBe('destroy abc');
    expect(() => library.matmul(desc(4))).toThrow(/used after dispose/);
  });

  it('refuses a configuration without an algorithm, describing it', () => {
    const library = GemmLibrary.withNative(recordingNative({ algorithms: 0 }), recordingDevice());
    expect(() => library.matmul({ ...desc(4), epilogue: { kind: 'GELU' } })).toThrow(GemmError);
    expect(() => library.matmul(desc(4))).toThrow(
      /no algorithm for this GEMM on this device .*Float \[4×8\] · Float \[8×16\] → Float 4×16 \(k 8\), epilogue DEFAULT, batch 1/,
    );
  });

  it('refuses an invalid descriptor before any native call', () => {
    const native = recordingNative();
    const library = GemmLibrary.withNative(native, recordingDevice());
    expect(() => library.matmul({ ...desc(4), b: f32(0x2000n, 9, 16) })).toThrow(/mat1 and mat2 shapes cannot be multiplied \(4x8 and 9x16\)/);
    expect(native.calls).toEqual(['create']);
  });

  it('is unavailable with the library\'s reason, as a RuntimeUnavailableError', () => {
    expect(() => GemmLibrary.withNative(recordingNative({ loaded: false }), recordingDevice())).toThrow(RuntimeUnavailableError);
    expect(() => GemmLibrary.withNative(recordingNative({ loaded: false }), recordingDevice())).toThrow(/libcublasLt not found \(test\)/);
  });
});

describe('gemmAvailability on this machine', () => {
  it('reports the addon or libcublasLt with a reason, never throwing', () => {
    const availability = gemmAvailability();
    const load = loadAddon();
    if (!load.ok) {
      expect(availability).toEqual({ available: false, reason: load.reason });
      return;
    }
    const probe = load.addon.cublasLtProbe();
    if (probe.loaded) {
      expect(availability).toEqual({ available: true, path: probe.path, version: probe.version });
    } else {
      expect(availability.available).toBe(false);
      expect(availability.reason).toMatch(/libcublasLt not found \(set TSFUSER_CUBLASLT_PATH.*\); tried:\n {2}.*libcublasLt\.so\.13/s);
      // Without the library, creating a library is the same clean refusal (no stack trace from C++).
      expect(() => GemmLibrary.create({ stream: 0n, malloc: () => 0n, free: () => undefined })).toThrow(RuntimeUnavailableError);
    }
  });
});
