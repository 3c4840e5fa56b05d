// GEMM fallbacks when cuBLASLt's heuristic has no algorithm for an epilogue (gemm-fallback.ts,
// GemmLibrary): the decision as a pure function (which epilogues compose from further cuBLASLt
// calls and which are refused, with the reason), the library deciding it once per heuristic key
// and reporting it on every call, and the numbers: over a host interpreter of cuBLASLt's own
// column-major plans (a fake of the addon's cublasLtHeuristic / cublasLtMatmul on host memory,
// so the lowering is exercised too), each fallback's calls give what the fused epilogue gives on
// the same random inputs (seed printed), batched, transposed and with beta · C included.

import { describe, expect, it } from 'vitest';
import { GemmError } from '../src/errors.js';
import { CUBLASLT_VALUES as V } from '../src/gemm/cublaslt-constants.js';
import type { CublasLtLayout, CublasLtPlan } from '../src/gemm/cublaslt-plan.js';
import type { GemmDescriptor, GemmEpilogue, GemmEpilogueKind, GemmMatrix } from '../src/gemm/gemm-descriptor.js';
import { fallbackForm, fallbackSteps, type GemmFallbackResources } from '../src/gemm/gemm-fallback.js';
import { GemmLibrary, type GemmDevice, type GemmNative } from '../src/gemm/gemm-library.js';
import { validateGemm } from '../src/gemm/validate-gemm.js';

/** Byte-addressed fake device memory; every buffer at its own base. Float only (4-byte elements). */
class HostMemory {
  private readonly buffers = new Map<bigint, DataView>();
  private next = 1n;
  alloc(bytes: number): bigint {
    const base = this.next << 32n;
    this.next += 1n;
    this.buffers.set(base, new DataView(new ArrayBuffer(Math.max(bytes, 16))));
    return base;
  }
  private view(pointer: bigint): { view: DataView; offset: number } {
    const base = (pointer >> 32n) << 32n;
    const view = this.buffers.get(base);
    if (view === undefined) throw new Error(`pointer ${pointer.toString(16)} is in no buffer`);
    return { view, offset: Number(pointer - base) };
  }
  getF32(pointer: bigint, index: number): number {
    const { view, offset } = this.view(pointer);
    return view.getFloat32(offset + 4 * index, true);
  }
  setF32(pointer: bigint, index: number, value: number): void {
    const { view, offset } = this.view(pointer);
    view.setFloat32(offset + 4 * index, value, true);
  }
  copyIn(pointer: bigint, source: ArrayBufferView): void {
    const { view, offset } = this.view(pointer);
    new Uint8Array(view.buffer, offset, source.byteLength).set(new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
  }
}

const geluTanh = (x: number): number => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
const geluGrad = (x: number): number => {
  const c = Math.sqrt(2 / Math.PI);
  const t = Math.tanh(c * (x + 0.044715 * x ** 3));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
};

/**
 * cuBLASLt's semantics of a column-major plan on host memory (Float only): D = epi(alpha·op(A)·op(B)
 * + beta·C), bias along D's rows, aux in D's layout at auxLd, BGRADA / BGRADB summing op(A)'s
 * rows / op(B)'s columns over k, D*_BGRAD summing the result along D's rows (over its columns).
 * The heuristic answers one algorithm unless the plan's epilogue is in `empty`.
 */
function interpreter(memory: HostMemory, empty: ReadonlySet<number> = new Set()): GemmNative & { heuristicCalls: number; matmulCalls: number } {
  const at = (layout: CublasLtLayout, pointer: bigint, batch: number, row: number, col: number): number => {
    if (layout.dataType !== V.CUDA_R_32F) throw new Error('the interpreter reads Float only');
    return memory.getF32(pointer, batch * layout.batchStride + col * layout.ld + row);
  };
  const native = {
    heuristicCalls: 0,
    matmulCalls: 0,
    cublasLtProbe: () => ({ loaded: true, reason: '', path: '/fake/libcublasLt.so', version: 130100 }),
    cublasLtCreate: () => 1n,
    cublasLtDestroy: () => undefined,
    cublasLtHeuristic: (_h: bigint, plan: CublasLtPlan) => {
      native.heuristicCalls += 1;
      return empty.has(plan.epilogue) ? [] : [{ algo: new Uint8Array(8), workspaceSize: 0, wavesCount: 1 }];
    },
    cublasLtMatmul: (_h: bigint, plan: CublasLtPlan) => {
      native.matmulCalls += 1;
      const { a, b, c, d } = plan;
      const rows = d.rows;
      const cols = d.cols;
      const k = plan.transa === V.CUBLAS_OP_T ? a.rows : a.cols;
      const opA = (bt: number, i: number, l: number): number => (plan.transa === V.CUBLAS_OP_T ? at(a, plan.aPointer, bt, l, i) : at(a, plan.aPointer, bt, i, l));
      const opB = (bt: number, l: number, j: number): number => (plan.transb === V.CUBLAS_OP_T ? at(b, plan.bPointer, bt, j, l) : at(b, plan.bPointer, bt, l, j));
      const ep = plan.epilogue;
      if (ep === V.CUBLASLT_EPILOGUE_BGRADA || ep === V.CUBLASLT_EPILOGUE_BGRADB) {
        const entries = ep === V.CUBLASLT_EPILOGUE_BGRADA ? rows : cols;
        for (let i = 0; i < entries; i += 1) {
          let s = 0;
          for (let l = 0; l < k; l += 1) s += ep === V.CUBLASLT_EPILOGUE_BGRADA ? opA(0, i, l) : opB(0, l, i);
          memory.setF32(plan.biasPointer, i, s);
        }
      }
      const results: number[] = [];
      for (let bt = 0; bt < d.batchCount; bt += 1) {
        const gradient = new Array<number>(rows).fill(0);
        for (let j = 0; j < cols; j += 1) {
          for (let i = 0; i < rows; i += 1) {
            let acc = 0;
            for (let l = 0; l < k; l += 1) acc += opA(bt, i, l) * opB(bt, l, j);
            acc *= plan.alpha;
            if (plan.beta !== 0) acc += plan.beta * at(c, plan.cPointer, bt, i, j);
            const auxIndex = bt * plan.auxBatchStride + j * plan.auxLd + i;
            if ([V.CUBLASLT_EPILOGUE_BIAS, V.CUBLASLT_EPILOGUE_RELU_BIAS, V.CUBLASLT_EPILOGUE_GELU_BIAS, V.CUBLASLT_EPILOGUE_GELU_AUX_BIAS].includes(ep as never)) {
              acc += memory.getF32(plan.biasPointer, bt * plan.biasBatchStride + i);
            }
            if (ep === V.CUBLASLT_EPILOGUE_GELU_AUX || ep === V.CUBLASLT_EPILOGUE_GELU_AUX_BIAS) memory.setF32(plan.auxPointer, auxIndex, acc);
            if (ep === V.CUBLASLT_EPILOGUE_DGELU || ep === V.CUBLASLT_EPILOGUE_DGELU_BGRAD) acc *= geluGrad(memory.getF32(plan.auxPointer, auxIndex));
            if (ep === V.CUBLASLT_EPILOGUE_RELU || ep === V.CUBLASLT_EPILOGUE_RELU_BIAS) acc = Math.max(acc, 0);
            if ([V.CUBLASLT_EPILOGUE_GELU, V.CUBLASLT_EPILOGUE_GELU_BIAS, V.CUBLASLT_EPILOGUE_GELU_AUX, V.CUBLASLT_EPILOGUE_GELU_AUX_BIAS].includes(ep as never)) acc = geluTanh(acc);
            gradient[i] = (gradient[i] as number) + Math.fround(acc);
            results.push(bt * d.batchStride + j * d.ld + i, acc);
          }
        }
        if (ep === V.CUBLASLT_EPILOGUE_DGELU_BGRAD) gradient.forEach((g, i) => memory.setF32(plan.biasPointer, bt * plan.biasBatchStride + i, g));
      }
      // written after every read: C may be D (in place)
      for (let r = 0; r < results.length; r += 2) memory.setF32(plan.dPointer, results[r] as number, results[r + 1] as number);
    },
  };
  return native;
}

function hostDevice(memory: HostMemory): GemmDevice {
  return {
    stream: 1n,
    malloc: (bytes) => memory.alloc(Number(bytes)),
    free: () => undefined,
    copyHostToDevice: (destination, source) => memory.copyIn(destination, source),
  };
}

/** mulberry32: the inputs of one seed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Problem {
  memory: HostMemory;
  desc: GemmDescriptor;
  /** Output buffers to compare, with their element counts. */
  outputs: { name: string; pointer: bigint; count: number }[];
}

/** One Float GEMM problem with `kind`'s epilogue on random inputs (same seed: same problem). */
function problem(kind: GemmEpilogueKind, seed: number, shape: { m: number; n: number; k: number; batch: number; ta: boolean; tb: boolean; beta: number }): Problem {
  const memory = new HostMemory();
  const rand = seeded(seed);
  const { m, n, k, batch } = shape;
  const filled = (count: number): bigint => {
    const p = memory.alloc(4 * count);
    for (let i = 0; i < count; i += 1) memory.setF32(p, i, rand() * 2 - 1);
    return p;
  };
  const matrix = (rows: number, cols: number, transposed: boolean, count: number): GemmMatrix => {
    const [sr, sc] = transposed ? [cols, rows] : [rows, cols];
    const ld = sc + 1;
    const stride = count > 1 ? sr * ld + 3 : 0;
    return { pointer: filled(Math.max(count, 1) * Math.max(stride, sr * ld)), dtype: 'Float', rows: sr, cols: sc, ld, transposed, batchCount: count, batchStride: stride };
  };
  const dStride = batch > 1 ? m * (n + 2) : 0;
  const d: GemmMatrix = { pointer: filled(batch * m * (n + 2)), dtype: 'Float', rows: m, cols: n, ld: n + 2, batchCount: batch, batchStride: dStride };
  const outputs = [{ name: 'D', pointer: d.pointer, count: batch * m * (n + 2) }];
  const auxLd = Math.ceil(n / 8) * 8;
  const auxCount = batch * m * auxLd;
  const vector = (length: number): { pointer: bigint; dtype: 'Float'; batchStride: number } => ({ pointer: filled(batch * length), dtype: 'Float', batchStride: batch > 1 ? length : 0 });
  let epilogue: GemmEpilogue;
  switch (kind) {
    case 'BIAS':
    case 'RELU_BIAS':
    case 'GELU_BIAS':
      epilogue = { kind, bias: vector(n) };
      break;
    case 'RELU':
    case 'GELU':
    case 'DEFAULT':
      epilogue = { kind };
      break;
    case 'GELU_AUX':
    case 'GELU_AUX_BIAS': {
      const aux = { pointer: filled(auxCount), ld: auxLd, batchStride: batch > 1 ? m * auxLd : 0 };
      outputs.push({ name: 'aux', pointer: aux.pointer, count: auxCount });
      epilogue = kind === 'GELU_AUX' ? { kind, aux } : { kind, aux, bias: vector(n) };
      break;
    }
    case 'DGELU':
    case 'DGELU_BGRAD': {
      const aux = { pointer: filled(auxCount), ld: auxLd, batchStride: batch > 1 ? m * auxLd : 0 };
      if (kind === 'DGELU') {
        epilogue = { kind, aux };
      } else {
        const g = vector(n);
        outputs.push({ name: 'bias gradient', pointer: g.pointer, count: batch * n });
        epilogue = { kind, aux, biasGradient: g };
      }
      break;
    }
    case 'BGRADA':
    case 'BGRADB': {
      const g = vector(kind === 'BGRADA' ? m : n);
      outputs.push({ name: 'bias gradient', pointer: g.pointer, count: kind === 'BGRADA' ? m : n });
      epilogue = { kind, biasGradient: { ...g, batchStride: 0 } };
      break;
    }
    default:
      throw new Error(`the test builds no ${kind}`);
  }
  // A batched, B one matrix broadcast over the batch
  const desc: GemmDescriptor = { a: matrix(m, k, shape.ta, batch), b: matrix(k, n, shape.tb, 1), d, epilogue, alpha: 0.75, beta: shape.beta };
  if (shape.beta !== 0) {
    desc.c = { pointer: filled(batch * m * n), dtype: 'Float', rows: m, cols: n, ld: n, batchCount: batch, batchStride: batch > 1 ? m * n : 0 };
  }
  validateGemm(desc);
  return { memory, desc, outputs };
}

const FALLBACK_KINDS: GemmEpilogueKind[] = ['BIAS', 'RELU_BIAS', 'GELU_BIAS', 'RELU', 'GELU', 'GELU_AUX', 'GELU_AUX_BIAS', 'DGELU', 'DGELU_BGRAD', 'BGRADA', 'BGRADB'];

describe('fallbackForm (the decision)', () => {
  const f32 = (rows: number, cols: number): GemmMatrix => ({ pointer: 0x1000n, dtype: 'Float', rows, cols, ld: cols });
  const base: GemmDescriptor = { a: f32(8, 4), b: f32(4, 16), d: { ...f32(8, 16), pointer: 0x3000n } };
  const shape = { m: 8, n: 16, k: 4, batch: 1 };
  it('composes every epilogue that further cuBLASLt calls can finish, and says how', () => {
    for (const kind of FALLBACK_KINDS) {
      const p = problem(kind, 1, { m: 5, n: 7, k: 3, batch: 1, ta: false, tb: false, beta: 0 });
      const decided = fallbackForm(p.desc, { m: 5, n: 7, k: 3, batch: 1 });
      expect(decided, kind).toMatchObject({ ok: true, epilogue: kind });
    }
    expect(fallbackForm({ ...base, epilogue: { kind: 'BGRADA', biasGradient: { pointer: 0x9000n, dtype: 'Float' } } }, shape)).toMatchObject({ summary: expect.stringMatching(/DEFAULT GEMM, then the bias gradient Σₖ op\(A\) as onesᵀ·op\(A\)ᵀ \(1×8, k 4\)/) });
  });
  it('refuses what no composition of cuBLASLt calls can write, with the reason', () => {
    const aux = { pointer: 0x5000n, ld: 128 };
    expect(fallbackForm(base, shape)).toMatchObject({ ok: false, reason: expect.stringMatching(/no epilogue to split off/) });
    expect(fallbackForm({ ...base, epilogue: { kind: 'RELU_AUX', aux } }, shape)).toMatchObject({ ok: false, reason: expect.stringMatching(/ReLU bit mask/) });
    const fp8: GemmDescriptor = { a: { ...f32(8, 16), dtype: 'Float8_e4m3fn' }, b: { ...f32(16, 16), dtype: 'Float8_e4m3fn', transposed: true }, d: { ...f32(8, 16), dtype: 'Float8_e4m3fn' }, epilogue: { kind: 'RELU' } };
    expect(fallbackForm(fp8, { m: 8, n: 16, k: 16, batch: 1 })).toMatchObject({ ok: false, reason: expect.stringMatching(/fp8 D .* cannot be read back/) });
    const bf16Bias: GemmDescriptor = { ...fp8, d: { ...f32(8, 16), dtype: 'Half' }, epilogue: { kind: 'BIAS', bias: { pointer: 0x9000n, dtype: 'BFloat16' } } };
    expect(fallbackForm(bf16Bias, { m: 8, n: 16, k: 16, batch: 1 })).toMatchObject({ ok: false, reason: expect.stringMatching(/BFloat16 bias is not D's Half/) });
    const overlapping: GemmDescriptor = { ...base, epilogue: { kind: 'DGELU_BGRAD', aux: { pointer: 0x5000n, ld: 16 }, biasGradient: { pointer: 0x9000n, dtype: 'Float', batchStride: 0 } } };
    expect(fallbackForm(overlapping, { ...shape, batch: 2 })).toMatchObject({ ok: false, reason: expect.stringMatching(/bias gradients overlap/) });
  });
  it('builds valid steps from the call\'s pointers: the plain GEMM first, then the pass over D', () => {
    const ones: GemmFallbackResources = { ones: (dtype, count) => (dtype === 'Float' ? 0x7700n + BigInt(count) : 0n) };
    const desc: GemmDescriptor = { ...base, epilogue: { kind: 'GELU_BIAS', bias: { pointer: 0x9000n, dtype: 'Float' } } };
    const steps = fallbackSteps(desc, shape, fallbackForm(desc, shape), ones);
    expect(steps.map((s) => s.epilogue?.kind)).toEqual(['DEFAULT', 'GELU']);
    expect(steps[1]).toMatchObject({ a: { pointer: 0x7708n, rows: 1, cols: 8, transposed: true }, b: { pointer: 0x9000n, rows: 1, cols: 16 }, d: base.d, alpha: 1, beta: 1 });
    for (const s of steps) validateGemm(s);
  });
});

describe('GemmLibrary fallbacks (host interpreter of cuBLASLt plans)', () => {
  const seed = Number(process.env['GEMM_FALLBACK_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const shapes = [
    { m: 5, n: 7, k: 3, batch: 1, ta: false, tb: false, beta: 0 },
    { m: 9, n: 4, k: 6, batch: 1, ta: true, tb: true, beta: 0.5 },
    { m: 3, n: 8, k: 5, batch: 3, ta: false, tb: true, beta: 0 },
  ];
  for (const kind of FALLBACK_KINDS) {
    it(`${kind}: the fallback's calls give the fused epilogue's result (seed ${seed})`, () => {
      for (const [index, shape] of shapes.entries()) {
        if ((kind === 'BGRADA' || kind === 'BGRADB') && shape.batch > 1) continue; // no batched form in cuBLASLt
        const fused = problem(kind, seed + index, shape);
        const fusedNative = interpreter(fused.memory);
        GemmLibrary.withNative(fusedNative, hostDevice(fused.memory)).matmul(fused.desc);
        const split = problem(kind, seed + index, shape);
        const library = GemmLibrary.withNative(interpreter(split.memory), hostDevice(split.memory), { noAlgorithmFor: [kind] });
        const call = library.matmul(split.desc);
        expect(call.fallback, kind).toMatch(new RegExp(`^fallback: cuBLASLt has no ${kind} algorithm for .*noAlgorithmFor`));
        expect(call.fallbackCalls).toBe(2);
        for (const [o, out] of fused.outputs.entries()) {
          const other = split.outputs[o] as (typeof split.outputs)[number];
          for (let i = 0; i < out.count; i += 1) {
            const want = fused.memory.getF32(out.pointer, i);
            const got = split.memory.getF32(other.pointer, i);
            // f32 storage: the fallback rounds D once more (after the plain GEMM)
            expect(Math.abs(got - want), `${kind} shape ${index} ${out.name}[${i}] (seed ${seed})`).toBeLessThanOrEqual(2e-6 * (1 + Math.abs(want)) * (shape.k + shape.m));
          }
        }
      }
    });
  }

  it('decides once per heuristic key, reports it on every call and lists it', () => {
    const p = problem('GELU_AUX_BIAS', 7, shapes[0] as (typeof shapes)[number]);
    const native = interpreter(p.memory, new Set([V.CUBLASLT_EPILOGUE_GELU_AUX_BIAS]));
    const library = GemmLibrary.withNative(native, hostDevice(p.memory));
    const first = library.matmul(p.desc);
    const asked = native.heuristicCalls;
    const second = library.matmul(p.desc);
    expect(asked).toBe(3); // the GEMM's key, then its two steps' keys
    expect(native.heuristicCalls).toBe(asked);
    expect([first.cachedAlgorithm, second.cachedAlgorithm]).toEqual([false, true]);
    expect(second.fallback).toBe(first.fallback);
    expect(first.fallback).toMatch(/cublasLtMatmulAlgoGetHeuristic returned none\): BIAS GEMM into the aux \(the pre-activation\), then D = GELU\(aux\)/);
    expect(library.fallbacks).toEqual([{ epilogue: 'GELU_AUX_BIAS', report: first.fallback, ran: true }]);
    expect(native.matmulCalls).toBe(4);
  });

  it('refuses, naming the GEMM and why, when no fallback exists or a step has no algorithm either', () => {
    const p = problem('DEFAULT', 3, shapes[0] as (typeof shapes)[number]);
    const library = GemmLibrary.withNative(interpreter(p.memory), hostDevice(p.memory), { noAlgorithmFor: ['DEFAULT'] });
    expect(() => library.matmul(p.desc)).toThrow(GemmError);
    expect(() => library.matmul(p.desc)).toThrow(/no algorithm for this GEMM on this device .*Float \[5×3\] · Float \[3×7\] → Float 5×7 \(k 3\), epilogue DEFAULT.*no fallback: the plain GEMM has no epilogue to split off/);
    const q = problem('BGRADB', 3, shapes[0] as (typeof shapes)[number]);
    // the heuristic really empty for DEFAULT plans: the fallback's first step has none either
    const both = GemmLibrary.withNative(interpreter(q.memory, new Set([V.CUBLASLT_EPILOGUE_DEFAULT])), hostDevice(q.memory), { noAlgorithmFor: ['BGRADB'] });
    expect(() => both.matmul(q.desc)).toThrow(/fallback: cuBLASLt has no BGRADB algorithm .*; but a step failed: .*no fallback: it is a fallback step itself/);
  });

  it('reads TSFUSER_GEMM_NO_ALGORITHM, refusing unknown epilogue names', () => {
    const memory = new HostMemory();
    const previous = process.env['TSFUSER_GEMM_NO_ALGORITHM'];
    try {
      process.env['TSFUSER_GEMM_NO_ALGORITHM'] = 'BGRADA, GELU_AUX_BIAS';
      expect([...GemmLibrary.withNative(interpreter(memory), hostDevice(memory)).noAlgorithmFor]).toEqual(['BGRADA', 'GELU_AUX_BIAS']);
      process.env['TSFUSER_GEMM_NO_ALGORITHM'] = 'BGRADA,GELU_TANH';
      expect(() => GemmLibrary.withNative(interpreter(memory), hostDevice(memory))).toThrow(/TSFUSER_GEMM_NO_ALGORITHM names unknown epilogues GELU_TANH/);
      expect(() => GemmLibrary.withNative(interpreter(memory), hostDevice(memory), { noAlgorithmFor: ['BIAS', 'BGRAD' as GemmEpilogueKind] })).toThrow(/noAlgorithmFor names unknown epilogues BGRAD \(known: DEFAULT, /);
    } finally {
      if (previous === undefined) delete process.env['TSFUSER_GEMM_NO_ALGORITHM'];
      else process.env['TSFUSER_GEMM_NO_ALGORITHM'] = previous;
    }
  });
});
