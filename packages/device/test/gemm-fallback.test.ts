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
import type { GemmDescriptor, GemmEpilogue, GemmEpilogueKind, GemmMatrix } from '../src/gemm/gemm-descriptor.js';
import { fallbackForm, fallbackSteps, type GemmFallbackResources } from '../src/gemm/gemm-fallback.js';
import { GemmLibrary } from '../src/gemm/gemm-library.js';
import { validateGemm } from '../src/gemm/validate-gemm.js';
import { HostMemory, hostDevice, interpreter, seeded } from './cublaslt-interpreter.js';

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

  it('a step never meets a fallback decided for a caller\'s GEMM of the same key (H200: DRELU_BGRAD after DRELU)', () => {
    const p = problem('DGELU_BGRAD', 5, shapes[0] as (typeof shapes)[number]);
    const e = p.desc.epilogue as Extract<GemmEpilogue, { kind: 'DGELU_BGRAD' }>;
    const library = GemmLibrary.withNative(interpreter(p.memory), hostDevice(p.memory), { noAlgorithmFor: ['DGELU', 'DGELU_BGRAD'] });
    // the DGELU GEMM of the same layout first: its key now holds a fallback
    expect(library.matmul({ ...p.desc, epilogue: { kind: 'DGELU', aux: e.aux } }).fallback).toMatch(/no DGELU algorithm/);
    const call = library.matmul(p.desc);
    expect(call.fallback).toMatch(/no DGELU_BGRAD algorithm .*: DGELU GEMM, then the bias gradient/);
    expect(library.fallbacks.map((f) => f.epilogue)).toEqual(['DGELU', 'DGELU_BGRAD']);
  });

  it('refuses, naming the GEMM and why, when no fallback exists or a step has no algorithm either', () => {
    const p = problem('DEFAULT', 3, shapes[0] as (typeof shapes)[number]);
    const library = GemmLibrary.withNative(interpreter(p.memory), hostDevice(p.memory), { noAlgorithmFor: ['DEFAULT'] });
    expect(() => library.matmul(p.desc)).toThrow(GemmError);
    expect(() => library.matmul(p.desc)).toThrow(/no algorithm for this GEMM on this device .*Float \[5×3\] · Float \[3×7\] → Float 5×7 \(k 3\), epilogue DEFAULT.*no fallback: the plain GEMM has no epilogue to split off/);
    expect(library.fallbacks).toEqual([{ epilogue: 'DEFAULT', report: expect.stringMatching(/no fallback: the plain GEMM/), ran: false }]);
    const batched = problem('DGELU_BGRAD', 3, shapes[2] as (typeof shapes)[number]);
    const e = batched.desc.epilogue as Extract<GemmEpilogue, { kind: 'DGELU_BGRAD' }>;
    const overlapping: GemmDescriptor = { ...batched.desc, epilogue: { ...e, biasGradient: { ...e.biasGradient, batchStride: 0 } } };
    const refusing = GemmLibrary.withNative(interpreter(batched.memory), hostDevice(batched.memory), { noAlgorithmFor: ['DGELU_BGRAD'] });
    expect(() => refusing.matmul(overlapping)).toThrow(/no fallback: the batch's bias gradients overlap \(batch stride 0 < n = 8\)/);
    expect(refusing.fallbacks.map((f) => [f.epilogue, f.ran])).toEqual([['DGELU_BGRAD', false]]);
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
