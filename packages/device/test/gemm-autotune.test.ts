// GemmLibrary's autotuning (gemm-autotune.ts) over a double of the addon whose heuristic returns
// numbered algorithms and a device whose event timing reports a cost per algorithm: the fastest
// candidate is chosen on the key's first call (all warmed up, two timed rounds, the heuristic's
// first kept within a 3% margin) and reused; the real
// call runs last with it; tuning is skipped, with the reason, when the device cannot time, while
// capturing, when D overlaps an operand or is its own C, and when turned off.

import { describe, expect, it } from 'vitest';
import type { GemmDescriptor, GemmMatrix } from '../src/gemm/gemm-descriptor.js';
import { GemmLibrary, type GemmDevice, type GemmNative } from '../src/gemm/gemm-library.js';
import { autotuneRefusal } from '../src/gemm/gemm-autotune.js';

/** Algorithm i costs cost[i] ms per run; matmul calls are recorded by algorithm number. */
function setup(cost: number[], device: Partial<GemmDevice> = {}): { library: GemmLibrary; runs: number[]; timed: number[] } {
  const runs: number[] = [];
  const timed: number[] = [];
  let pending = 0;
  const native: GemmNative = {
    cublasLtProbe: () => ({ loaded: true, reason: '', path: '/x/libcublasLt.so.13', version: 130100 }),
    cublasLtCreate: () => 1n,
    cublasLtDestroy: () => undefined,
    cublasLtHeuristic: (_h, _plan, _ws, requested) => cost.slice(0, requested).map((_, i) => ({ algo: new Uint8Array(64).fill(i), workspaceSize: 0, wavesCount: 1 })),
    cublasLtMatmul: (_h, _plan, algo) => {
      runs.push(algo[0] as number);
      pending += cost[algo[0] as number] as number;
    },
  };
  const dev: GemmDevice = {
    stream: 5n,
    malloc: () => 0x7000n,
    free: () => undefined,
    time: (work) => {
      pending = 0;
      work();
      timed.push(pending);
      return pending;
    },
    ...device,
  };
  return { library: GemmLibrary.withNative(native, dev, { autotuneCandidates: 4 }), runs, timed };
}

const f32 = (pointer: bigint, rows: number, cols: number): GemmMatrix => ({ pointer, dtype: 'Float', rows, cols, ld: cols });
const desc: GemmDescriptor = { a: f32(0x100000n, 64, 32), b: f32(0x200000n, 32, 48), d: f32(0x300000n, 64, 48) };

describe('GEMM autotuning', () => {
  it('times the first candidates after a warm-up each, keeps the fastest, runs the call with it and reuses it', () => {
    const { library, runs, timed } = setup([3, 2, 1.5, 4, 0.1]);
    const first = library.matmul(desc);
    expect(first.autotune).toEqual({ tried: 4, chosen: 2, msPerRun: [3, 2, 1.5, 4] });
    // every candidate warmed up, then two rounds of 3 timed runs each; then the real call
    const round = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3];
    expect(runs).toEqual([0, 1, 2, 3, ...round, ...round, 2]);
    expect(timed).toEqual([9, 6, 4.5, 12, 9, 6, 4.5, 12]);
    const second = library.matmul(desc);
    expect(second.cachedAlgorithm).toBe(true);
    expect(second.autotune).toBeUndefined();
    expect(runs[runs.length - 1]).toBe(2);
  });

  it('is off by default (the heuristic\'s first, untimed) unless TSFUSER_GEMM_AUTOTUNE or the option asks', () => {
    const saved = process.env['TSFUSER_GEMM_AUTOTUNE'];
    delete process.env['TSFUSER_GEMM_AUTOTUNE'];
    try {
      const native: GemmNative = {
        cublasLtProbe: () => ({ loaded: true, reason: '', path: 'x', version: 1 }),
        cublasLtCreate: () => 1n,
        cublasLtDestroy: () => undefined,
        cublasLtHeuristic: (_h, _p, _w, requested) => Array.from({ length: requested }, () => ({ algo: new Uint8Array(64), workspaceSize: 0, wavesCount: 1 })),
        cublasLtMatmul: () => undefined,
      };
      const device: GemmDevice = { stream: 1n, malloc: () => 0n, free: () => undefined, time: () => 1 };
      expect(GemmLibrary.withNative(native, device).matmul(desc).autotune?.skipped).toBe('tuning is off');
      process.env['TSFUSER_GEMM_AUTOTUNE'] = '3';
      expect(GemmLibrary.withNative(native, device).matmul(desc).autotune?.tried).toBe(3);
      process.env['TSFUSER_GEMM_AUTOTUNE'] = 'lots';
      expect(() => GemmLibrary.withNative(native, device)).toThrow(/TSFUSER_GEMM_AUTOTUNE must be a non-negative integer/);
    } finally {
      if (saved === undefined) delete process.env['TSFUSER_GEMM_AUTOTUNE'];
      else process.env['TSFUSER_GEMM_AUTOTUNE'] = saved;
    }
  });

  it("keeps the heuristic's first unless another is faster by more than 3%", () => {
    const close = setup([1, 0.98, 0.99]);
    expect(close.library.matmul(desc).autotune).toMatchObject({ tried: 3, chosen: 0 });
    const clear = setup([1, 0.9, 0.99]);
    expect(clear.library.matmul(desc).autotune).toMatchObject({ tried: 3, chosen: 1 });
  });

  it('takes the first algorithm untimed, saying why, where tuning must not run', () => {
    const capturing = setup([3, 1], { isCapturing: true });
    expect(capturing.library.matmul(desc).autotune).toMatchObject({ tried: 0, chosen: 0, skipped: 'the stream is being captured into a CUDA graph' });
    expect(capturing.runs).toEqual([0]);
    const off = GemmLibrary.withNative(
      { cublasLtProbe: () => ({ loaded: true, reason: '', path: 'x', version: 1 }), cublasLtCreate: () => 1n, cublasLtDestroy: () => undefined, cublasLtHeuristic: () => [{ algo: new Uint8Array(64), workspaceSize: 0, wavesCount: 1 }], cublasLtMatmul: () => undefined },
      { stream: 1n, malloc: () => 0n, free: () => undefined, time: () => 1 },
      { autotuneCandidates: 0 },
    );
    expect(off.matmul(desc).autotune?.skipped).toBe('tuning is off');
    expect(autotuneRefusal(desc, {})).toBe('the device cannot time work on its stream');
    expect(autotuneRefusal({ ...desc, beta: 1 }, { time: () => 0 })).toBe('D is also C (beta accumulates into its old values)');
    // D inside A's storage: a second run would read the first one's result
    expect(autotuneRefusal({ ...desc, d: f32(0x100000n + 64n, 8, 8) }, { time: () => 0 })).toBe('D overlaps A');
    expect(autotuneRefusal({ ...desc, d: f32(0x100000n + 64n * 32n * 4n, 8, 8) }, { time: () => 0 })).toBeNull();
  });
});
