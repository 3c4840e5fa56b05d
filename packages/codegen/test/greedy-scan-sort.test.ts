// The greedy scan and sort kernels, on the host: their parameters (which kernel, widths,
// vectorization), the host model of each kernel (greedy-model.ts) against the reference evaluator
// on the fixtures (ties, NaN, infinities, every dtype, long and short rows, strided dims) and on
// random cases (seed printed; TSFUSER_SEED replays), and the emitted CUDA's shape. Float sums and
// products are compared with a bound of the accumulation order's rounding; everything else
// (max/min, integers, sort orders, top-k values and indices) must be identical.
import { evaluate, Fusion, HostTensor, makeTensor, topk } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, type GreedyParams } from '@tsfuser/scheduler';
import { randomScanSortCase, scanSortCases, scanSortInput, scanSortMismatch, seededRandom, testSeed, type ScanSortCase } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { compileFusion } from '../src/index.js';
import { runGreedyModel } from './greedy-model.js';

function paramsOf(fusion: Fusion, sizes: readonly number[]): GreedyParams {
  const info = makeRuntimeInfo(fusion, [{ sizes }]);
  const p = defaultSchedulerRegistry().pick(fusion, info).scheduler.computeHeuristics(fusion, info);
  if (p.schedulerType !== 'greedy') throw new Error(`expected the greedy scheduler, got ${p.schedulerType}`);
  return p;
}

/** Model vs reference for one case; returns the first mismatch as text, or null. */
function check(c: ScanSortCase, x: HostTensor): string | null {
  const p = paramsOf(c.fusion, c.sizes);
  const model = runGreedyModel(p, x);
  const got = c.fusion.outputs.map((_, o) => model.get(o) as HostTensor);
  const mismatch = scanSortMismatch(c.fusion, x, got, evaluate(c.fusion, [x]) as HostTensor[]);
  return mismatch === null ? null : `${mismatch} (${p.kernel.kind})`;
}

describe('greedy kernel parameters', () => {
  it('picks the kernel by op, k and row length', () => {
    const cases = scanSortCases();
    const byName = new Map(cases.map((c) => [c.name, paramsOf(c.fusion, c.sizes)]));
    const long = byName.get('cumsum_Float_long_rows');
    expect(long?.kernel).toMatchObject({ kind: 'scan', threadsPerRow: 512, rowsPerBlock: 1, itemsPerThread: 4, vectorized: true });
    expect(byName.get('cumsum_Float_short_rows')?.kernel).toMatchObject({ kind: 'scan', threadsPerRow: 32, rowsPerBlock: 8, vectorized: false });
    expect(byName.get('cumsum_Half')?.kernel).toMatchObject({ kind: 'scan', itemsPerThread: 8, vectorized: true });
    expect(byName.get('cumsum_Float_dim0')?.kernel).toMatchObject({ kind: 'scan', vectorized: false });
    expect(byName.get('cumsum_Float_dim0_wide')?.kernel).toMatchObject({ kind: 'serial_scan', threads: 128 });
    expect(byName.get('cummin_Int_middle_dim_wide')?.kernel).toMatchObject({ kind: 'serial_scan', init: '9223372036854775807' });
    expect(byName.get('topk8_Float_256')?.kernel).toMatchObject({ kind: 'warp_topk', k: 8, kPow2: 8, rowsPerBlock: 8 });
    expect(byName.get('topk20_Float_bitonic')?.kernel).toMatchObject({ kind: 'bitonic', sortSize: 512, threads: 256, outputLength: 20 });
    expect(byName.get('argsort_Half_4096')?.kernel).toMatchObject({ kind: 'bitonic', sortSize: 4096, threads: 1024, descending: true });
    expect(byName.get('topk4_Float_values_only')).toMatchObject({ valuesOutput: 0, indicesOutput: null });
    expect(byName.get('topk4_Double_indices_only')).toMatchObject({ valuesOutput: null, indicesOutput: 0 });
    // The executor keys kernels by JSON.stringify(params): init is exact text (no bigint / ±inf in JSON).
    expect(JSON.parse(JSON.stringify(byName.get('cummax_Int32_dim0')))).toMatchObject({ kernel: { init: '-2147483648' } });
    expect(JSON.parse(JSON.stringify(byName.get('cummax_Float_special')))).toMatchObject({ kernel: { init: '-Infinity' } });
  });
  it('the issue sizes: cumsum over rows of [16384, 4096] f32 and topk(k=8) over rows of [16384, 256] f32', () => {
    const [cs] = scanSortCases().filter((c) => c.name === 'cumsum_Float_long_rows');
    const [tk] = scanSortCases().filter((c) => c.name === 'topk8_Float_256');
    const a = paramsOf((cs as ScanSortCase).fusion, [16384, 4096]);
    expect(a.lparams).toMatchObject({ gdimx: 16384, bdimx: 512, bdimy: 1 });
    const b = paramsOf((tk as ScanSortCase).fusion, [16384, 256]);
    expect(b.lparams).toMatchObject({ gdimx: 2048, bdimx: 32, bdimy: 8 });
  });
});

describe('greedy kernel model matches the reference evaluator', () => {
  const seed = testSeed();
  for (const [i, c] of scanSortCases().entries()) {
    it(c.name, () => {
      const x = scanSortInput(c.dtype, c.sizes, c.values, seededRandom(seed + i));
      expect(check(c, x), `${c.name} (TSFUSER_SEED=${seed})`).toBeNull();
    });
  }
  it('random cases', () => {
    const rand = seededRandom(seed);
    for (let i = 0; i < 12; i += 1) {
      const c = randomScanSortCase(rand, i);
      const x = scanSortInput(c.dtype, c.sizes, c.values, rand);
      expect(check(c, x), `${c.name} (TSFUSER_SEED=${seed})`).toBeNull();
    }
  }, 60_000);
});

describe('greedy kernel CUDA', () => {
  it('takes every segment input and output as a parameter, in the executor\'s order, used or not', () => {
    const f = new Fusion();
    const y = makeTensor(f, { shape: [-1], dtype: 'Half' });
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    const s = f.newSymbolicScalar('Double');
    f.addInput(y);
    f.addInput(x);
    f.addInput(s);
    const r = topk(x, 2, 0, false);
    f.addOutput(r.indices);
    f.addOutput(r.values);
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [3] }, { sizes: [5, 7] }, null]));
    expect(k.args.slots.map((slot) => `${slot.param.role}${slot.param.position}:${slot.param.name}`)).toEqual(['input0:T0', 'input1:T1', `input2:${s.symbolicName()}`, 'output0:T3', 'output1:T2']);
    expect(k.dumps.cuda).toContain(`(Tensor<__half, 1> T0, Tensor<float, 2> T1, double ${s.symbolicName()}, Tensor<long long, 2> T3, Tensor<float, 2> T2)`);
  });
  it('emits a block scan with a carry, a bitonic sort and a warp top-k', () => {
    const cases = new Map(scanSortCases().map((c) => [c.name, c]));
    const compile = (name: string, sizes: number[]): string => {
      const c = cases.get(name) as ScanSortCase;
      return compileFusion(c.fusion, makeRuntimeInfo(c.fusion, [{ sizes }])).source;
    };
    const scan = compile('cumsum_Float_long_rows', [16384, 4096]);
    expect(scan).toContain('extern "C" __global__ void __launch_bounds__(512) nvfuser_greedy_');
    expect(scan).toContain('nvfRowScanPrefix<0, 512, float>');
    expect(scan).toContain('carry = nvfScanCombine<0, float>(carry, total);');
    expect(scan).toMatch(/struct alignas\(16\) nvfuser_greedy_\w+_row_vec \{ float v\[4\]; \}/);
    expect(compile('argsort_Half_4096', [2, 4096])).toContain('nvfBitonicSort<true, 4096, 1024, float>(nvf_keys, nvf_idx);');
    expect(compile('topk8_Float_256', [16384, 256])).toContain('nvfWarpTopKMerge<true, 8, float>(kk, ki);');
    expect(compile('cumsum_Float_dim0_wide', [40, 300])).toContain('carry = nvfScanCombine<0, float>(carry, (float)T0.data[T0_base + i * in_s]);');
  });
});
