// scaled_mm and grouped_mm as GEMM segments without a GPU: the segment's calls (one for a
// scaled_mm, with both per-tensor scales as device pointers; one per non-empty group for a
// grouped_mm with offsets, after reading the offsets back) executed by the host interpreter of
// GemmDescriptor semantics over byte-addressed fake device memory must give the float64
// reference evaluator's values (random inputs, seed printed on failure), every descriptor passing
// the device layer's validateGemm (fp8: both fp8, TN, scales on fp8 operands, bias dtype). And the
// refusals with their reasons: a row-major mat2 (fp8 GEMMs are TN only), K not a multiple of 16,
// a cast after the op; offsets out of order fail with the reference's message.
import { cast, evaluate, Fusion, groupedMm, HostTensor, makeTensor, scaledMm, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { canScheduleMatmul, GemmShapeError, makeRuntimeInfo, MatmulScheduler, matmulParamsToString } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { planLibraryCallSegment, runLibraryCall, type GemmBuffer } from '../src/plan/library-call-segment.js';
import { HostGemm, HostMemory } from './host-gemm.js';
import { seeded } from './seeded.js';

const SEED = Number(process.env.SEED ?? Date.now() % 1_000_000);

const BYTES: Partial<Record<DataType, number>> = { Float: 4, BFloat16: 2, Half: 2, Float8_e4m3fn: 1, Float8_e5m2: 1, Int32: 4 };

interface Operand {
  dtype: DataType;
  sizes: number[];
  strides?: number[];
  /** Exact values (offsets); default random, exactly representable in every dtype used here. */
  values?: number[];
}

function dense(sizes: readonly number[]): number[] {
  const s = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * (sizes[i + 1] as number);
  return s;
}

function input(f: Fusion, rank: number, dtype: DataType): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype, contiguity: new Array<boolean | null>(rank).fill(false) });
  f.addInput(tv);
  return tv;
}

/** Runs `fusion` as its one GEMM segment on host memory and on the reference; the largest relative error, the calls made. */
function runBoth(fusion: Fusion, operands: Operand[], r: () => number) {
  const memory = new HostMemory();
  const segment = planLibraryCallSegment(fusion, makeRuntimeInfo(fusion, operands.map((o) => ({ sizes: o.sizes, ...(o.strides === undefined ? {} : { strides: o.strides }) }))), 0, new MatmulScheduler());
  const inputs: GemmBuffer[] = [];
  const hosts: HostTensor[] = [];
  for (const o of operands) {
    const strides = o.strides ?? dense(o.sizes);
    const span = o.sizes.reduce((acc, s, i) => acc + (s - 1) * (strides[i] as number), 0) + 1;
    // multiples of 1/2 in [-2, 2]: exact in e4m3fn, e5m2, bf16 and fp32
    const values = o.values ?? Array.from({ length: span }, () => Math.round((r() * 4 - 2) * 2) / 2);
    const ptr = memory.alloc(span, BYTES[o.dtype] ?? 1);
    values.forEach((v, i) => memory.write(ptr, i, v));
    inputs.push({ dataPtr: ptr, sizes: o.sizes, strides });
    const flat = HostTensor.fromValues(o.dtype, [span], values);
    hosts.push(new HostTensor(o.dtype, o.sizes, strides, flat.data));
  }
  const expected = evaluate(fusion, hosts) as HostTensor[];
  const out = expected[0] as HostTensor;
  // poisoned: NaN wherever nothing is written
  const dPtr = memory.alloc(out.numel, BYTES[out.dtype] ?? 1);
  for (let i = 0; i < out.numel; i += 1) memory.write(dPtr, i, Number.NaN);
  const gemm = new HostGemm(memory);
  runLibraryCall(segment, inputs, [{ dataPtr: dPtr, sizes: out.sizes, strides: dense(out.sizes) }], { gemm });
  let error = 0;
  for (let i = 0; i < out.numel; i += 1) {
    const want = Number(out.get(i));
    const got = memory.read(dPtr, i);
    error = Math.max(error, Number.isNaN(got) ? Number.POSITIVE_INFINITY : Math.abs(got - want) / (1 + Math.abs(want)));
  }
  return { error, calls: gemm.calls, zeroed: gemm.zeroed, params: segment.params };
}

function scaledFusion(opts: { bias: boolean; aDtype?: DataType; bDtype?: DataType; out?: DataType; castAfter?: boolean }): Fusion {
  const f = new Fusion();
  const a = input(f, 2, opts.aDtype ?? 'Float8_e4m3fn');
  const b = input(f, 2, opts.bDtype ?? 'Float8_e4m3fn');
  const sa = makeTensor(f, { shape: [], dtype: 'Float' });
  const sb = makeTensor(f, { shape: [], dtype: 'Float' });
  f.addInput(sa);
  f.addInput(sb);
  const bias = opts.bias ? input(f, 1, 'BFloat16') : null;
  const y = scaledMm(a, b, sa, sb, { bias, dtype: opts.out ?? 'BFloat16' });
  f.addOutput(opts.castAfter === true ? cast(y, 'Float') : y);
  return f;
}

/** mat1 [M, K] row-major, mat2 [K, N] column-major (the transpose of a row-major [N, K]), two scales, a bias. */
function scaledOperands(m: number, k: number, n: number, bias: boolean, mat2Strides: number[] = [1, k], types: [DataType, DataType] = ['Float8_e4m3fn', 'Float8_e4m3fn']): Operand[] {
  const ops: Operand[] = [
    { dtype: types[0], sizes: [m, k] },
    { dtype: types[1], sizes: [k, n], strides: mat2Strides },
    { dtype: 'Float', sizes: [], values: [0.75] },
    { dtype: 'Float', sizes: [], values: [1.5] },
  ];
  if (bias) ops.push({ dtype: 'BFloat16', sizes: [n] });
  return ops;
}

describe(`scaled_mm and grouped_mm segments on a host GemmLibrary (seed ${SEED})`, () => {
  const r = seeded(SEED);

  it('scaled_mm, e4m3 × e4m3 with both scales and a bias: one TN call, BIAS, the scales as pointers', () => {
    const { error, calls, params } = runBoth(scaledFusion({ bias: true }), scaledOperands(7, 32, 48, true), r);
    expect(error).toBeLessThan(1e-2); // D is bf16: the reference rounds once
    expect(calls).toHaveLength(1);
    const d = calls[0];
    expect(d?.a).toMatchObject({ dtype: 'Float8_e4m3fn', transposed: false });
    expect(d?.b).toMatchObject({ dtype: 'Float8_e4m3fn', transposed: true, rows: 48, cols: 32, ld: 32 });
    expect(d?.epilogue?.kind).toBe('BIAS');
    expect(d?.scales?.a).toBeDefined();
    expect(d?.scales?.b).toBeDefined();
    expect(matmulParamsToString(params)).toContain('Scales (per tensor, fp32): A input 2, B input 3');
  });

  it('scaled_mm, e4m3 × e5m2 to Float, no bias; an e4m3 output with a bias runs; e5m2 from e4m3 × e4m3 refused', () => {
    const f32 = runBoth(scaledFusion({ bias: false, bDtype: 'Float8_e5m2', out: 'Float' }), scaledOperands(16, 64, 16, false, [1, 64], ['Float8_e4m3fn', 'Float8_e5m2']), r);
    expect(f32.error).toBeLessThan(1e-5);
    expect(f32.calls[0]?.b.dtype).toBe('Float8_e5m2');
    expect(f32.params.bDtype).toBe('Float8_e5m2');
    // an fp8 output is one call (the device's GemmLibrary gives it its own C and a unit D scale:
    // device fp8-output.ts); the host GEMM stores unrounded values, the reference e4m3 ones
    const fp8 = runBoth(scaledFusion({ bias: true, out: 'Float8_e4m3fn' }), scaledOperands(3, 32, 16, true), r);
    expect(fp8.calls).toHaveLength(1);
    expect(fp8.calls[0]?.d.dtype).toBe('Float8_e4m3fn');
    expect(fp8.calls[0]?.epilogue?.kind).toBe('BIAS');
    expect(fp8.error).toBeLessThan(1 / 16); // e4m3 keeps 3 mantissa bits: half an ulp is 2^-4 relative
    const e5m2 = scaledFusion({ bias: false, out: 'Float8_e5m2' });
    const v = canScheduleMatmul(e5m2, makeRuntimeInfo(e5m2, scaledOperands(3, 16, 32, false).map((o) => ({ sizes: o.sizes, ...(o.strides === undefined ? {} : { strides: o.strides }) }))));
    expect(v.ok ? '' : v.reason).toMatch(/Float8_e5m2 from e4m3fn × e4m3fn operands/);
  });

  it('scaled_mm refusals: row-major mat2 (TN only), K not a multiple of 16, a cast after it (a kernel then)', () => {
    const refusal = (f: Fusion, ops: Operand[]): string => {
      const v = canScheduleMatmul(f, makeRuntimeInfo(f, ops.map((o) => ({ sizes: o.sizes, ...(o.strides === undefined ? {} : { strides: o.strides }) }))));
      if (v.ok) throw new Error('accepted');
      return v.reason;
    };
    expect(refusal(scaledFusion({ bias: false }), scaledOperands(8, 32, 16, false, [16, 1]))).toMatch(/mat2 .* column-major/);
    expect(refusal(scaledFusion({ bias: false }), scaledOperands(8, 24, 16, false, [1, 24]))).toMatch(/K = 24.*multiples of 16/);
    expect(refusal(scaledFusion({ bias: false, castAfter: true }), scaledOperands(8, 32, 16, false))).toMatch(/scaled_mm alone .* after it/);
    const f = scaledFusion({ bias: false });
    expect(() => canScheduleMatmul(f, makeRuntimeInfo(f, [{ sizes: [8, 32] }, { sizes: [16, 16], strides: [1, 16] }, { sizes: [] }, { sizes: [] }]))).toThrow(GemmShapeError);
  });

  const grouped = (r1: number, r2: number, offsets: boolean, dtype: DataType = 'BFloat16'): Fusion => {
    const f = new Fusion();
    const a = input(f, r1, dtype);
    const b = input(f, r2, dtype);
    const o = offsets ? input(f, 1, 'Int32') : null;
    f.addOutput(groupedMm(a, b, o));
    return f;
  };

  it('grouped_mm 2d × 3d (M cut): one call per non-empty group, rows after the last offset zeroed', () => {
    const { error, calls, zeroed, params } = runBoth(grouped(2, 3, true), [
      { dtype: 'BFloat16', sizes: [13, 16] },
      { dtype: 'BFloat16', sizes: [4, 16, 24] },
      { dtype: 'Int32', sizes: [4], values: [3, 3, 9, 11] },
    ], r);
    expect(error).toBeLessThan(1e-2);
    expect(calls.map((c) => c.d.rows)).toEqual([3, 6, 2]);
    expect(zeroed).toHaveLength(1); // rows 11, 12
    expect(params.grouped).toMatchObject({ cut: 'M', groups: 4, extent: 13 });
  });

  it('grouped_mm 3d × 2d (N cut) with a transposed mat2: column blocks of B and D', () => {
    const { error, calls } = runBoth(grouped(3, 2, true, 'Float'), [
      { dtype: 'Float', sizes: [3, 5, 8] },
      { dtype: 'Float', sizes: [8, 20], strides: [1, 8] },
      { dtype: 'Int32', sizes: [3], values: [7, 12, 20] },
    ], r);
    expect(error).toBeLessThan(1e-5);
    expect(calls.map((c) => c.d.cols)).toEqual([7, 5, 8]);
    expect(calls.every((c) => c.b.transposed === true)).toBe(true);
  });

  it('grouped_mm 2d × 2d (K cut): one [M, N] block per group, an empty group zeroed', () => {
    const { error, calls, zeroed } = runBoth(grouped(2, 2, true, 'Float'), [
      { dtype: 'Float', sizes: [6, 32] },
      { dtype: 'Float', sizes: [32, 10] },
      { dtype: 'Int32', sizes: [3], values: [16, 16, 32] },
    ], r);
    expect(error).toBeLessThan(1e-5);
    expect(calls.map((c) => c.a.cols)).toEqual([16, 16]);
    expect(zeroed).toHaveLength(1);
  });

  it('grouped_mm 3d × 3d: one batched call; offsets out of order fail as the reference does', () => {
    const b = runBoth(grouped(3, 3, false), [
      { dtype: 'BFloat16', sizes: [3, 5, 16] },
      { dtype: 'BFloat16', sizes: [3, 16, 8] },
    ], r);
    expect(b.error).toBeLessThan(1e-2);
    expect(b.calls).toHaveLength(1);
    expect(b.calls[0]?.d.batchCount).toBe(3);
    // the runtime's own check (the reference is not run here): nothing called
    const f = grouped(2, 3, true);
    const segment = planLibraryCallSegment(f, makeRuntimeInfo(f, [{ sizes: [8, 16] }, { sizes: [2, 16, 8] }, { sizes: [2] }]), 0, new MatmulScheduler());
    const memory = new HostMemory();
    const buffer = (sizes: number[], bytes: number, values: number[] = []): GemmBuffer => {
      const ptr = memory.alloc(sizes.reduce((x, y) => x * y, 1), bytes);
      values.forEach((v, i) => memory.write(ptr, i, v));
      return { dataPtr: ptr, sizes, strides: dense(sizes) };
    };
    const gemm = new HostGemm(memory);
    const run = (): unknown => runLibraryCall(segment, [buffer([8, 16], 2), buffer([2, 16, 8], 2), buffer([2], 4, [5, 3])], [buffer([8, 8], 2)], { gemm });
    expect(run).toThrow('offsets[1] = 3 must be non-decreasing and at most 8');
    expect(gemm.calls).toHaveLength(0);
  });
});
