// `tsfuser run --profile`'s report (cli/profile-table.ts): the table text of a synthetic summary
// (a generated kernel, one on the side stream, a cuBLASLt GEMM, an attention call) against its
// golden file (UPDATE_GOLDEN=1 rewrites it), medians over calls, the refusal of differing plans,
// the peak bandwidth from memory clock × bus width, and the CLI: on the reference backend one
// line and exit 0, beside --check and --save-outputs; --iters without --profile is a usage error.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkGolden } from '@tsfuser/fusion-ir';
import type { KernelProfile } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { formatProfileTable, peakBandwidth, summarizeProfiles } from '../src/cli/profile-table.js';
import { formatBenchProfiles } from '../src/cli/bench-profiles.js';
import type { ExecuteProfile } from '../src/definition/execution-state.js';
import { FIXTURES, runCli } from './helpers.js';

const GOLDEN = fileURLToPath(new URL('../../../test-fixtures/golden/tsfuser/profile/', import.meta.url));

function entry(over: Partial<KernelProfile> & Pick<KernelProfile, 'name' | 'kind' | 'scheduler' | 'timeMs'>): KernelProfile {
  const base: KernelProfile = {
    segmentId: 0, groupId: 0, library: null, grid: [132, 1, 1], block: [128, 1, 1], dynamicSharedMem: 0, inputBytes: 4_194_304, outputBytes: 2_097_152,
    effectiveBandwidthGbs: 0, flops: null, tflops: null, sideStream: false, ...over,
  };
  const bytes = base.inputBytes + base.outputBytes;
  return { ...base, effectiveBandwidthGbs: bytes / (base.timeMs * 1e6), tflops: base.flops === null ? null : base.flops / (base.timeMs * 1e9) };
}

function call(times: readonly number[], hostTimeMs: number): ExecuteProfile {
  const [a = 0, b = 0, c = 0, d = 0] = times;
  const kernelProfiles = [
    entry({ name: 'nvfuser_inner_persistent_f0_c1_r0_g0', kind: 'kernel', scheduler: 'inner_persistent', timeMs: a }),
    entry({ name: 'nvfuser_reduction_f0_c1_r0_g1', kind: 'kernel', scheduler: 'reduction', timeMs: b, segmentId: 1, groupId: 1, sideStream: true, grid: [264, 4, 1], block: [256, 2, 1] }),
    entry({ name: 'cublasLt_linear_8192x4096x4096', kind: 'libraryCall', scheduler: 'matmul', library: 'cublasLt', timeMs: c, segmentId: 2, groupId: 2, grid: [0, 0, 0], block: [0, 0, 0], inputBytes: 100_663_296, outputBytes: 67_108_864, flops: 2 * 8192 * 4096 * 4096 }),
    entry({ name: 'tsfuser_attention_fwd_bf16_e128', kind: 'attention', scheduler: 'attention', timeMs: d, segmentId: 3, groupId: 4, grid: [8, 32, 4], block: [128, 1, 1], dynamicSharedMem: 81_920, flops: (4 * 4 * 32 * 1024 * 1024 * 128) / 2 }),
  ];
  const kernelTimeMs = kernelProfiles.reduce((s, k) => s + k.timeMs, 0);
  return { backend: 'gpu', wallMs: hostTimeMs + 0.004, hostTimeMs, segments: 4, kernelTimeMs, inputBytes: 0, outputBytes: 0, effectiveBandwidthGbs: 0, kernelProfiles };
}

const H100_PEAK = { memoryClockKhz: 2_619_000, memoryBusWidthBits: 5120 };

describe('profile table', () => {
  it('prints the golden table of a synthetic summary (medians of three calls)', () => {
    const summary = summarizeProfiles([call([0.012, 0.0081, 1.2, 0.31], 0.0121), call([0.011, 0.0079, 1.1, 0.3], 0.0099), call([0.013, 0.008, 1.3, 0.29], 0.0102)]);
    const text = formatProfileTable(summary, peakBandwidth(H100_PEAK));
    const g = checkGolden(text, join(GOLDEN, 'profile_table.txt'), process.env['UPDATE_GOLDEN'] === '1');
    expect(g.ok, g.ok ? '' : g.diff).toBe(true);
  });

  it('takes each entry\'s median time and recomputes GB/s and TFLOP/s from it', () => {
    const s = summarizeProfiles([call([1, 1, 3, 1], 0.5), call([2, 1, 1, 1], 0.2), call([3, 1, 2, 1], 0.9)]);
    expect(s.calls).toBe(3);
    expect(s.entries.map((k) => k.timeMs)).toEqual([2, 1, 2, 1]);
    expect(s.hostTimeMs).toBe(0.5);
    const gemm = s.entries[2] as KernelProfile;
    expect(gemm.tflops).toBeCloseTo((2 * 8192 * 4096 * 4096) / (2 * 1e9), 6);
    expect(gemm.effectiveBandwidthGbs).toBeCloseTo((100_663_296 + 67_108_864) / (2 * 1e6), 6);
  });

  it('refuses to fold calls that ran different plans, and an empty list', () => {
    const other = call([1, 1, 1, 1], 0.1);
    other.kernelProfiles = other.kernelProfiles.slice(1);
    expect(() => summarizeProfiles([call([1, 1, 1, 1], 0.1), other])).toThrow(/call 1 ran another plan/);
    expect(() => summarizeProfiles([])).toThrow(/no profiled call/);
  });

  it('peak bandwidth: 2 × memory clock × bus width; unknown without them', () => {
    expect(peakBandwidth(H100_PEAK)?.gbs).toBeCloseTo(3352.32, 6);
    expect(peakBandwidth({})).toBeNull();
    expect(formatProfileTable(summarizeProfiles([call([1, 1, 1, 1], 0.1)]), null)).toContain('peak bandwidth: unknown');
  });
});

describe('tsfuser run --profile', () => {
  it('on the reference backend: one line, exit 0, after --check and --save-outputs', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'tsfuser-profile-')), 'out');
    const r = await runCli(['run', join(FIXTURES, 'softmax.py'), '--backend', 'reference', '--profile', '--iters', '3', '--check', '--save-outputs', dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('check: nothing independent to compare against');
    expect(r.stdout).toContain(`saved 1 outputs to ${dir}/out<i>.npy`);
    expect(existsSync(join(dir, 'out0.npy'))).toBe(true);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('profile: nothing to profile: the reference backend launches no kernels');
  });

  it('--cuda-graph is accepted everywhere (the reference backend has no graphs: same outputs)', async () => {
    const plain = await runCli(['run', join(FIXTURES, 'softmax.py'), '--backend', 'reference']);
    const graph = await runCli(['run', join(FIXTURES, 'softmax.py'), '--backend', 'reference', '--cuda-graph', '--profile']);
    expect(graph.code).toBe(0);
    expect(graph.stdout.startsWith(plain.stdout)).toBe(true);
    expect(graph.stdout.trimEnd().split('\n').at(-1)).toBe('profile: nothing to profile: the reference backend launches no kernels');
  });

  it('--iters without --profile, and --iters 0, are usage errors', async () => {
    const a = await runCli(['run', join(FIXTURES, 'softmax.py'), '--backend', 'reference', '--iters', '3']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--iters counts the profiled calls of --profile');
    const b = await runCli(['run', join(FIXTURES, 'softmax.py'), '--backend', 'reference', '--profile', '--iters', '0']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--iters must be at least 1');
  });
});

describe('tsfuser bench --profile (cli/bench-profiles.ts)', () => {
  it('prints each definition\'s table and the timed median against the kernels\' median sum, with torch.compile beside', () => {
    const forward = [call([0.1, 0.2, 0.3, 0.4], 0.05), call([0.1, 0.2, 0.3, 0.6], 0.05), call([0.1, 0.2, 0.3, 0.5], 0.05)];
    const backward = [call([0.2, 0.2, 0.2, 0.2], 0.05), call([0.3, 0.2, 0.2, 0.2], 0.05), call([0.2, 0.2, 0.2, 0.2], 0.05)];
    const text = formatBenchProfiles(
      [
        { workload: 'w', step: 'w', profiles: forward, workloadMedianMs: 2.5 },
        { workload: 'w', step: 'backward', profiles: backward, workloadMedianMs: 2.5 },
      ],
      [{ workload: 'w', impl: 'torch.compile', medianMs: 2.25, gbps: 0, percentOfCopy: 0, percentOfSameSizeCopy: 0 }],
    );
    expect(text).toContain('=== w: w (profile, median of 3 calls) ===');
    expect(text).toContain('=== w: backward (profile, median of 3 calls) ===');
    // kernels: forward median 1.1 (sums 1.0, 1.2, 1.1), backward median 0.8 (0.8, 0.9, 0.8): 1.9 ms in all
    expect(text).toContain('w: timed 2.500 ms, kernels 1.900 ms, between kernels 0.600 ms; torch.compile 2.250 ms');
  });
});
