// GEMM (library-call) segments without a GPU: the descriptor a segment hands the GemmLibrary,
// executed by a host interpreter of GemmDescriptor semantics (row-major matrices with leading
// dims, op = T, batch strides with 0 broadcasting, BIAS / RELU / GELU(tanh) / GELU_AUX epilogues)
// over buffers addressed by fake device pointers, must compute what the float64 reference
// evaluator computes for the segment's fusion — for random Float inputs (seed printed on
// failure) with transposed, padded, batch-broadcast and copied operands. Every descriptor must
// also pass the device layer's own validation. And: no cuBLASLt gives one error naming why.
import { add, broadcast, evaluate, Fusion, gelu, HostTensor, linear, makeTensor, matmul, relu, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, MatmulScheduler } from '@tsfuser/scheduler';
import { RuntimeUnavailableError, type GemmCall, type GemmDescriptor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { planLibraryCallSegment, runLibraryCall, type GemmBuffer, type LibraryCallContext } from '../src/plan/library-call-segment.js';
import { HostGemm, HostMemory } from './host-gemm.js';
import { seeded } from './seeded.js';

const SEED = Number(process.env.SEED ?? Date.now() % 1_000_000);

interface Operand {
  sizes: number[];
  strides?: number[];
}

function storageSpan(sizes: readonly number[], strides: readonly number[]): number {
  return sizes.reduce((acc, s, i) => acc + (s - 1) * (strides[i] as number), 0) + 1;
}

function denseStrides(sizes: readonly number[]): number[] {
  const s = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * (sizes[i + 1] as number);
  return s;
}

/** Runs `fusion` as one GEMM segment on host memory and through the reference; returns the largest error. */
function runBoth(fusion: Fusion, operands: Operand[], r: () => number, dtype: DataType = 'Float'): { error: number; calls: GemmDescriptor[]; copies: number } {
  const memory = new HostMemory();
  const info = makeRuntimeInfo(fusion, operands);
  const segment = planLibraryCallSegment(fusion, info, 0, new MatmulScheduler());
  const inputs: GemmBuffer[] = [];
  const hosts: HostTensor[] = [];
  operands.forEach((o) => {
    const strides = o.strides ?? denseStrides(o.sizes);
    const span = storageSpan(o.sizes, strides);
    const storage = HostTensor.fromValues(dtype, [span], Array.from({ length: span }, () => r() * 2 - 1));
    const ptr = memory.alloc(span);
    for (let i = 0; i < span; i += 1) memory.write(ptr, i, Number(storage.get(i)));
    inputs.push({ dataPtr: ptr, sizes: o.sizes, strides });
    hosts.push(new HostTensor(dtype, o.sizes, strides, storage.data));
  });
  const expected = evaluate(fusion, hosts) as HostTensor[];
  const outputs: GemmBuffer[] = expected.map((t) => ({ dataPtr: memory.alloc(t.numel), sizes: t.sizes, strides: denseStrides(t.sizes) }));
  let copies = 0;
  const context: LibraryCallContext = {
    gemm: new HostGemm(memory),
    copyDense: (source, sizes) => {
      copies += 1;
      const ptr = memory.alloc(sizes.reduce((a, b) => a * b, 1));
      const strides = denseStrides(sizes);
      const total = sizes.reduce((a, b) => a * b, 1);
      for (let lin = 0; lin < total; lin += 1) {
        // source broadcast to `sizes` (right-aligned): size-1 and missing dims read index 0
        let rem = lin;
        let at = 0;
        for (let d = sizes.length - 1; d >= 0; d -= 1) {
          const idx = rem % (sizes[d] as number);
          rem = Math.floor(rem / (sizes[d] as number));
          const sd = d - (sizes.length - source.sizes.length);
          if (sd >= 0 && (source.sizes[sd] as number) !== 1) at += idx * (source.strides[sd] as number);
        }
        memory.write(ptr, lin, memory.read(source.dataPtr, at));
      }
      return { dataPtr: ptr, sizes, strides };
    },
  };
  runLibraryCall(segment, inputs, outputs, context);
  let error = 0;
  expected.forEach((t, o) => {
    const out = outputs[o] as GemmBuffer;
    for (let i = 0; i < t.numel; i += 1) {
      const want = Number(t.get(i));
      const got = memory.read(out.dataPtr, i);
      error = Math.max(error, Math.abs(got - want) / (1 + Math.abs(want)));
    }
  });
  return { error, calls: (context.gemm as HostGemm).calls, copies };
}

/** A Float input of `rank` symbolic dims (or `shape`: 1 makes a broadcast dim), any strides. */
function input(f: Fusion, rank: number, shape: number[] = new Array<number>(rank).fill(-1), dtype: DataType = 'Float'): TensorView {
  const tv = makeTensor(f, { shape, dtype, contiguity: shape.map((s) => (s === 1 ? null : false)) });
  f.addInput(tv);
  return tv;
}

function matmulFusion(ra: number, rb: number, shapes?: [number[], number[]]): Fusion {
  const f = new Fusion();
  const a = input(f, ra, shapes?.[0]);
  const b = input(f, rb, shapes?.[1]);
  f.addOutput(matmul(a, b));
  return f;
}

describe(`GEMM segments on a host GemmLibrary (seed ${SEED})`, () => {
  const r = seeded(SEED);

  it('linear + bias + gelu(tanh), with the pre-activation as a second output (GELU_AUX_BIAS); in Float the gelu is refused', () => {
    const build = (dtype: DataType): Fusion => {
      const f = new Fusion();
      const x = input(f, 3, undefined, dtype);
      const w = input(f, 2, undefined, dtype);
      const b = input(f, 1, undefined, dtype);
      const pre = add(linear(x, w), broadcast(b, [true, true, false]));
      f.addOutput(gelu(pre, 'tanh'));
      f.addOutput(pre);
      return f;
    };
    const sizes = [{ sizes: [2, 7, 13] }, { sizes: [16, 13] }, { sizes: [16] }];
    expect(() => planLibraryCallSegment(build('Float'), makeRuntimeInfo(build('Float'), sizes), 0, new MatmulScheduler())).toThrow(/follows a Float GEMM: cuBLASLt's f32 GELU epilogue is an approximation/);
    const { error, calls } = runBoth(build('BFloat16'), sizes, r, 'BFloat16');
    // the reference rounds D and the pre-activation to bf16, the host model does not
    expect(error, `seed ${SEED}`).toBeLessThan(2 ** -7);
    expect(calls.map((c) => c.epilogue?.kind)).toEqual(['GELU_AUX_BIAS']);
    // the batch [2, 7] folded into m = 14; W read transposed in place
    expect(calls[0]?.a).toMatchObject({ rows: 14, cols: 13, ld: 13, transposed: false });
    expect(calls[0]?.b).toMatchObject({ rows: 16, cols: 13, ld: 13, transposed: true });
  });

  it('a residual add becomes C with beta 1 (before the bias and the activation); a strided residual stays outside', () => {
    const f = new Fusion();
    const x = input(f, 3);
    const w = input(f, 2);
    const res = input(f, 3);
    const b = input(f, 1);
    f.addOutput(relu(add(add(linear(x, w), res), broadcast(b, [true, true, false]))));
    const { error, calls } = runBoth(f, [{ sizes: [2, 5, 12] }, { sizes: [8, 12] }, { sizes: [2, 5, 8] }, { sizes: [8] }], r);
    expect(error, `seed ${SEED}`).toBeLessThan(1e-5);
    expect(calls.map((c) => [c.epilogue?.kind, c.beta])).toEqual([['RELU_BIAS', 1]]);
    expect(calls[0]?.c).toMatchObject({ rows: 10, cols: 8, ld: 8 });
    // a residual that is not laid out like D (transposed storage) is refused with the reason
    expect(() => planLibraryCallSegment(f, makeRuntimeInfo(f, [{ sizes: [2, 5, 12] }, { sizes: [8, 12] }, { sizes: [2, 5, 8], strides: [40, 1, 5] }, { sizes: [8] }]), 0, new MatmulScheduler())).toThrow(
      /C T\d+ has strides \[40, 1, 5\]: cuBLASLt reads C laid out like D/,
    );
  });

  it("linear's own bias and relu; a transposed weight (W stored K-major)", () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    const b = input(f, 1);
    f.addOutput(relu(linear(x, w, b)));
    const { error, calls } = runBoth(f, [{ sizes: [9, 5] }, { sizes: [6, 5], strides: [1, 6] }, { sizes: [6] }], r);
    expect(error, `seed ${SEED}`).toBeLessThan(1e-5);
    expect(calls[0]?.epilogue?.kind).toBe('RELU_BIAS');
    expect(calls[0]?.b).toMatchObject({ rows: 5, cols: 6, ld: 6, transposed: false });
  });

  const cases: { name: string; ra: number; rb: number; a: Operand; b: Operand; copies?: number; shapes?: [number[], number[]] }[] = [
    { name: 'mm, A column-major, B rows padded', ra: 2, rb: 2, a: { sizes: [7, 4], strides: [1, 7] }, b: { sizes: [4, 9], strides: [12, 1] } },
    { name: 'dot with a strided vector', ra: 1, rb: 1, a: { sizes: [11] }, b: { sizes: [11], strides: [3] } },
    { name: 'mv', ra: 2, rb: 1, a: { sizes: [5, 8] }, b: { sizes: [8] } },
    { name: 'vm over a batch', ra: 1, rb: 3, a: { sizes: [4] }, b: { sizes: [3, 4, 6] } },
    { name: 'bmm, B expanded over the batch (stride 0)', ra: 3, rb: 3, a: { sizes: [3, 5, 4] }, b: { sizes: [3, 4, 2], strides: [0, 2, 1] } },
    { name: 'bmm, A transposed per entry', ra: 3, rb: 3, a: { sizes: [2, 6, 3], strides: [18, 1, 6] }, b: { sizes: [2, 3, 5] } },
    { name: '2-D · 3-D: A broadcast over the batch', ra: 2, rb: 3, a: { sizes: [5, 3] }, b: { sizes: [4, 3, 2] } },
    { name: '4-D batch broadcast both ways (copies)', ra: 4, rb: 4, a: { sizes: [2, 1, 3, 4] }, b: { sizes: [1, 3, 4, 5] }, copies: 2, shapes: [[-1, 1, -1, -1], [1, -1, -1, -1]] },
    { name: 'matrix neither row- nor column-major (copy)', ra: 2, rb: 2, a: { sizes: [3, 4], strides: [2, 7] }, b: { sizes: [4, 3] }, copies: 1 },
  ];
  for (const c of cases) {
    it(`matmul: ${c.name}`, () => {
      const { error, copies } = runBoth(matmulFusion(c.ra, c.rb, c.shapes), [c.a, c.b], r);
      expect(error, `seed ${SEED}`).toBeLessThan(1e-5);
      expect(copies).toBe(c.copies ?? 0);
    });
  }

  it('an operand needing a copy without a copy step is one clear error', () => {
    const f = matmulFusion(2, 2);
    const info = makeRuntimeInfo(f, [{ sizes: [3, 4], strides: [2, 7] }, { sizes: [4, 3] }]);
    const segment = planLibraryCallSegment(f, info, 3, new MatmulScheduler());
    const memory = new HostMemory();
    const buf = (sizes: number[], strides: number[]): GemmBuffer => ({ dataPtr: memory.alloc(64), sizes, strides });
    expect(() => runLibraryCall(segment, [buf([3, 4], [2, 7]), buf([4, 3], [3, 1])], [buf([3, 3], [3, 1])], { gemm: new HostGemm(memory) })).toThrow(
      /segment 3 \(GEMM\): operand A needs a dense copy \(its last two dims \(strides 2, 7\) are neither row- nor column-major\) and this executor has no copy step/,
    );
    // buffers whose layout differs from the plan's
    expect(() => runLibraryCall(segment, [buf([3, 4], [4, 1]), buf([4, 3], [3, 1])], [buf([3, 3], [3, 1])], { gemm: new HostGemm(memory) })).toThrow(
      /operand A \(input 0\) has sizes \[3, 4\] strides \[4, 1\] but the plan was made for sizes \[3, 4\] strides \[2, 7\]/,
    );
  });

  it('without cuBLASLt, says why the GEMM segment cannot run', () => {
    const f = matmulFusion(2, 2);
    const segment = planLibraryCallSegment(f, makeRuntimeInfo(f, [{ sizes: [3, 4] }, { sizes: [4, 5] }]), 1, new MatmulScheduler());
    const memory = new HostMemory();
    const buf = (sizes: number[]): GemmBuffer => ({ dataPtr: memory.alloc(64), sizes, strides: denseStrides(sizes) });
    const run = (): GemmCall => runLibraryCall(segment, [buf([3, 4]), buf([4, 5])], [buf([3, 5])], { gemm: { unavailable: 'libcublasLt.so.13: cannot open shared object file' } });
    expect(run).toThrow(RuntimeUnavailableError);
    expect(run).toThrow(/segment 1 is a GEMM \(matmul, m 3 n 5 k 4\) that runs through cuBLASLt, which is unavailable: libcublasLt.so.13: cannot open shared object file/);
  });

  it('a fusion that is not one GEMM segment is refused at planning with the reason', () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    f.addOutput(gelu(linear(x, w)));
    expect(() => planLibraryCallSegment(f, makeRuntimeInfo(f, [{ sizes: [2, 2] }, { sizes: [2, 2] }]), 4, new MatmulScheduler())).toThrow(/segment 4 was planned as a GEMM \(cuBLASLt\) call but is none: the matmul scheduler cannot take this fusion: gelu producing T\d+ is the erf form/);
  });
});
