// lowerGemm's column-major plan computes what the row-major descriptor means: a small host
// model of cuBLASLt's documented semantics (column-major layouts, op(A)/op(B), strided batches,
// bias along D's rows, aux, BGRADA/BGRADB, scales) runs the plan, and a direct row-major
// reference runs the descriptor; they must agree on random shapes, transpositions, batches
// (broadcast included) and epilogues (seed printed; TSFUSER_SEED replays one). Also the
// heuristic key: equal for plans cuBLASLt cannot tell apart, different for any input of the
// heuristic.

import { describe, expect, it } from 'vitest';
import { CUBLASLT_VALUES as V } from '../src/gemm/cublaslt-constants.js';
import { gemmHeuristicKey, lowerGemm, type CublasLtLayout, type CublasLtPlan } from '../src/gemm/cublaslt-plan.js';
import type { GemmDescriptor, GemmEpilogue, GemmMatrix } from '../src/gemm/gemm-descriptor.js';

// The device package cannot depend on @tsfuser/test-support (it sits above it in the package
// order), so this file carries its own mulberry32, the same generator.
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const seed = process.env.TSFUSER_SEED !== undefined ? Number(process.env.TSFUSER_SEED) : Math.floor(Math.random() * 2 ** 31);

/** Float memory: address = BASE + 4 · index. */
const BASE = 0x7f0000000000n;
class Memory {
  readonly data: Float64Array;
  private next = 0;
  constructor(elements: number) {
    this.data = new Float64Array(elements).fill(Number.NaN);
  }
  alloc(elements: number): bigint {
    const start = Math.ceil(this.next / 64) * 64; // 256-byte aligned, as the allocator gives
    this.next = start + elements;
    if (this.next > this.data.length) throw new Error('test memory exhausted');
    return BASE + 4n * BigInt(start);
  }
  index(pointer: bigint): number {
    return Number((pointer - BASE) / 4n);
  }
}

const gelu = (x: number): number => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
const geluGrad = (x: number): number => {
  const u = Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3);
  const t = Math.tanh(u);
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * Math.sqrt(2 / Math.PI) * (1 + 3 * 0.044715 * x * x);
};

/** cuBLASLt's semantics, column-major, as its documentation states them. */
function runPlan(plan: CublasLtPlan, mem: Memory): void {
  const at = (layout: CublasLtLayout, pointer: bigint, batch: number, i: number, j: number): number =>
    mem.index(pointer) + batch * layout.batchStride + i + j * layout.ld;
  const opA = (b: number, i: number, l: number): number =>
    mem.data[plan.transa === V.CUBLAS_OP_N ? at(plan.a, plan.aPointer, b, i, l) : at(plan.a, plan.aPointer, b, l, i)] as number;
  const opB = (b: number, l: number, j: number): number =>
    mem.data[plan.transb === V.CUBLAS_OP_N ? at(plan.b, plan.bPointer, b, l, j) : at(plan.b, plan.bPointer, b, j, l)] as number;
  const rows = plan.d.rows;
  const cols = plan.d.cols;
  const k = plan.transa === V.CUBLAS_OP_N ? plan.a.cols : plan.a.rows;
  const ep = plan.epilogue;
  const hasBias = ([V.CUBLASLT_EPILOGUE_BIAS, V.CUBLASLT_EPILOGUE_RELU_BIAS, V.CUBLASLT_EPILOGUE_GELU_BIAS, V.CUBLASLT_EPILOGUE_RELU_AUX_BIAS, V.CUBLASLT_EPILOGUE_GELU_AUX_BIAS] as number[]).includes(ep);
  const hasGelu = ([V.CUBLASLT_EPILOGUE_GELU, V.CUBLASLT_EPILOGUE_GELU_AUX, V.CUBLASLT_EPILOGUE_GELU_BIAS, V.CUBLASLT_EPILOGUE_GELU_AUX_BIAS] as number[]).includes(ep);
  const hasRelu = ([V.CUBLASLT_EPILOGUE_RELU, V.CUBLASLT_EPILOGUE_RELU_AUX, V.CUBLASLT_EPILOGUE_RELU_BIAS, V.CUBLASLT_EPILOGUE_RELU_AUX_BIAS] as number[]).includes(ep);
  const scale = (plan.aScalePointer === 0n ? 1 : (mem.data[mem.index(plan.aScalePointer)] as number)) *
    (plan.bScalePointer === 0n ? 1 : (mem.data[mem.index(plan.bScalePointer)] as number));
  const biasAt = (b: number, i: number): number => mem.index(plan.biasPointer) + b * plan.biasBatchStride + i;
  const auxAt = (b: number, i: number, j: number): number => mem.index(plan.auxPointer) + b * plan.auxBatchStride + i + j * plan.auxLd;
  for (let b = 0; b < plan.d.batchCount; b += 1) {
    const result: number[][] = [];
    for (let i = 0; i < rows; i += 1) {
      const row: number[] = [];
      for (let j = 0; j < cols; j += 1) {
        let acc = 0;
        for (let l = 0; l < k; l += 1) acc += opA(b, i, l) * opB(b, l, j);
        let v = plan.alpha * scale * acc;
        if (plan.beta !== 0) v += plan.beta * (mem.data[at(plan.c, plan.cPointer, b, i, j)] as number);
        if (hasBias) v += mem.data[biasAt(b, i)] as number;
        if (ep === V.CUBLASLT_EPILOGUE_GELU_AUX || ep === V.CUBLASLT_EPILOGUE_GELU_AUX_BIAS) mem.data[auxAt(b, i, j)] = v;
        if (ep === V.CUBLASLT_EPILOGUE_DGELU || ep === V.CUBLASLT_EPILOGUE_DGELU_BGRAD) v *= geluGrad(mem.data[auxAt(b, i, j)] as number);
        if (hasGelu) v = gelu(v);
        if (hasRelu) v = Math.max(v, 0);
        row.push(v);
      }
      result.push(row);
    }
    for (let i = 0; i < rows; i += 1) {
      for (let j = 0; j < cols; j += 1) mem.data[at(plan.d, plan.dPointer, b, i, j)] = result[i]?.[j] as number;
    }
    if (ep === V.CUBLASLT_EPILOGUE_DGELU_BGRAD) {
      for (let i = 0; i < rows; i += 1) mem.data[biasAt(b, i)] = (result[i] ?? []).reduce((s, x) => s + x, 0);
    }
    if (ep === V.CUBLASLT_EPILOGUE_BGRADA) {
      for (let i = 0; i < rows; i += 1) {
        let s = 0;
        for (let l = 0; l < k; l += 1) s += opA(b, i, l);
        mem.data[biasAt(b, i)] = s;
      }
    }
    if (ep === V.CUBLASLT_EPILOGUE_BGRADB) {
      for (let j = 0; j < cols; j += 1) {
        let s = 0;
        for (let l = 0; l < k; l += 1) s += opB(b, l, j);
        mem.data[biasAt(b, j)] = s;
      }
    }
  }
}

/** The descriptor's meaning, row-major, straight from its fields. */
function reference(desc: GemmDescriptor, mem: Memory): { d: number[]; aux: number[]; vector: number[] } {
  const elem = (m: GemmMatrix, b: number, r: number, c: number): number => {
    const batch = (m.batchCount ?? 1) === 1 ? 0 : b;
    const [sr, sc] = m.transposed === true ? [c, r] : [r, c];
    return mem.data[mem.index(m.pointer) + batch * (m.batchStride ?? 0) + sr * m.ld + sc] as number;
  };
  const m = desc.d.rows;
  const n = desc.d.cols;
  const k = desc.a.transposed === true ? desc.a.rows : desc.a.cols;
  const batch = desc.d.batchCount ?? 1;
  const epilogue = desc.epilogue ?? { kind: 'DEFAULT' };
  const d: number[] = [];
  const aux: number[] = [];
  const vector: number[] = [];
  for (let b = 0; b < batch; b += 1) {
    const result: number[][] = [];
    for (let r = 0; r < m; r += 1) {
      const row: number[] = [];
      for (let c = 0; c < n; c += 1) {
        let acc = 0;
        for (let l = 0; l < k; l += 1) acc += elem(desc.a, b, r, l) * elem(desc.b, b, l, c);
        let v = (desc.alpha ?? 1) * acc + (desc.beta ?? 0) * (desc.beta ? elem(desc.c ?? desc.d, b, r, c) : 0);
        if ('bias' in epilogue) v += mem.data[mem.index(epilogue.bias.pointer) + b * (epilogue.bias.batchStride ?? 0) + c] as number;
        if (epilogue.kind === 'GELU_AUX_BIAS') aux.push(v);
        if (epilogue.kind === 'DGELU_BGRAD') v *= geluGrad(mem.data[mem.index(epilogue.aux.pointer) + b * (epilogue.aux.batchStride ?? 0) + r * epilogue.aux.ld + c] as number);
        if (epilogue.kind === 'GELU_BIAS' || epilogue.kind === 'GELU_AUX_BIAS' || epilogue.kind === 'GELU') v = gelu(v);
        if (epilogue.kind === 'RELU_BIAS' || epilogue.kind === 'RELU') v = Math.max(v, 0);
        row.push(v);
      }
      result.push(row);
      d.push(...row);
    }
    if (epilogue.kind === 'DGELU_BGRAD') for (let c = 0; c < n; c += 1) vector.push(result.reduce((s, row) => s + (row[c] as number), 0));
    if (epilogue.kind === 'BGRADA') for (let r = 0; r < m; r += 1) vector.push(Array.from({ length: k }, (_, l) => elem(desc.a, b, r, l)).reduce((s, x) => s + x, 0));
    if (epilogue.kind === 'BGRADB') for (let c = 0; c < n; c += 1) vector.push(Array.from({ length: k }, (_, l) => elem(desc.b, b, l, c)).reduce((s, x) => s + x, 0));
  }
  return { d, aux, vector };
}

type Kind = 'DEFAULT' | 'RELU' | 'GELU' | 'BIAS' | 'RELU_BIAS' | 'GELU_BIAS' | 'GELU_AUX_BIAS' | 'DGELU_BGRAD' | 'BGRADA' | 'BGRADB';
const KINDS: Kind[] = ['DEFAULT', 'RELU', 'GELU', 'BIAS', 'RELU_BIAS', 'GELU_BIAS', 'GELU_AUX_BIAS', 'DGELU_BGRAD', 'BGRADA', 'BGRADB'];

function randomCase(rand: () => number, kind: Kind) {
  const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
  const mem = new Memory(1 << 16);
  const [m, n, k] = [int(1, 9), int(1, 9), int(1, 9)];
  const batched = !kind.startsWith('BGRAD') && rand() < 0.6;
  const batch = batched ? int(2, 3) : 1;
  const matrix = (rows: number, cols: number, transposed: boolean, broadcast: boolean): GemmMatrix => {
    const [sr, sc] = transposed ? [cols, rows] : [rows, cols];
    const ld = sc + int(0, 3);
    const count = batched && !broadcast ? batch : 1;
    const stride = count > 1 ? sr * ld + int(0, 5) : 0;
    const pointer = mem.alloc(Math.max(1, count) * Math.max(stride, sr * ld));
    const base = mem.index(pointer);
    for (let i = 0; i < Math.max(1, count) * Math.max(stride, sr * ld); i += 1) mem.data[base + i] = Math.round((rand() * 4 - 2) * 8) / 8;
    return { pointer, dtype: 'Float', rows: sr, cols: sc, ld, transposed, batchCount: count, batchStride: stride };
  };
  const broadcastA = batched && rand() < 0.3;
  const a = matrix(m, k, rand() < 0.5, broadcastA);
  const b = matrix(k, n, rand() < 0.5, batched && !broadcastA && rand() < 0.3);
  const dLd = n + int(0, 2);
  const dStride = batched ? m * dLd + int(0, 3) : 0;
  const d: GemmMatrix = { pointer: mem.alloc(batch * Math.max(dStride, m * dLd)), dtype: 'Float', rows: m, cols: n, ld: dLd, batchCount: batch, batchStride: dStride };
  const vectorLength = kind === 'BGRADA' ? m : n;
  const vector = () => {
    const pointer = mem.alloc(batch * (vectorLength + 2));
    for (let i = 0; i < batch * (vectorLength + 2); i += 1) mem.data[mem.index(pointer) + i] = Math.round(rand() * 16 - 8) / 8;
    return { pointer, dtype: 'Float' as const, batchStride: batched ? vectorLength + 2 : 0 };
  };
  const auxLd = Math.ceil(n / 8) * 8;
  const aux = () => {
    const elements = batch * m * auxLd;
    const pointer = mem.alloc(elements);
    for (let i = 0; i < elements; i += 1) mem.data[mem.index(pointer) + i] = Math.round(rand() * 32 - 16) / 8;
    return { pointer, ld: auxLd, batchStride: batched ? m * auxLd : 0 };
  };
  let epilogue: GemmEpilogue;
  switch (kind) {
    case 'DEFAULT':
    case 'RELU':
    case 'GELU':
      epilogue = { kind };
      break;
    case 'BIAS':
    case 'RELU_BIAS':
    case 'GELU_BIAS':
      epilogue = { kind, bias: vector() };
      break;
    case 'GELU_AUX_BIAS':
      epilogue = { kind, bias: vector(), aux: aux() };
      break;
    case 'DGELU_BGRAD':
      epilogue = { kind, aux: aux(), biasGradient: vector() };
      break;
    case 'BGRADA':
    case 'BGRADB':
      epilogue = { kind, biasGradient: vector() };
      break;
  }
  const desc: GemmDescriptor = { a, b, d, alpha: rand() < 0.5 ? 1 : 0.5, epilogue };
  return { desc, mem, m, n, batch };
}

describe(`lowerGemm: the column-major plan computes the row-major descriptor (seed ${seed})`, () => {
  for (const kind of KINDS) {
    it(`${kind}: 25 random shapes, transpositions and batches`, () => {
      const rand = seededRandom(seed + KINDS.indexOf(kind));
      for (let trial = 0; trial < 25; trial += 1) {
        const { desc, mem, m, n, batch } = randomCase(rand, kind);
        const expected = reference(desc, mem);
        const { plan } = lowerGemm(desc);
        runPlan(plan, mem);
        const label = `seed ${seed} ${kind} trial ${trial}: ${JSON.stringify(desc, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString(16) : v))}`;
        const got: number[] = [];
        for (let b = 0; b < batch; b += 1) {
          for (let r = 0; r < m; r += 1) {
            for (let c = 0; c < n; c += 1) got.push(mem.data[mem.index(desc.d.pointer) + b * (desc.d.batchStride ?? 0) + r * desc.d.ld + c] as number);
          }
        }
        expect(got.map((x) => Number(x.toFixed(9))), label).toEqual(expected.d.map((x) => Number(x.toFixed(9))));
        const epilogue = desc.epilogue ?? { kind: 'DEFAULT' };
        if (epilogue.kind === 'GELU_AUX_BIAS') {
          const auxGot: number[] = [];
          for (let b = 0; b < batch; b += 1) {
            for (let r = 0; r < m; r += 1) {
              for (let c = 0; c < n; c += 1) auxGot.push(mem.data[mem.index(epilogue.aux.pointer) + b * (epilogue.aux.batchStride ?? 0) + r * epilogue.aux.ld + c] as number);
            }
          }
          expect(auxGot.map((x) => Number(x.toFixed(9))), label).toEqual(expected.aux.map((x) => Number(x.toFixed(9))));
        }
        if ('biasGradient' in epilogue) {
          const length = expected.vector.length / batch;
          const vecGot: number[] = [];
          for (let b = 0; b < batch; b += 1) {
            for (let i = 0; i < length; i += 1) vecGot.push(mem.data[mem.index(epilogue.biasGradient.pointer) + b * (epilogue.biasGradient.batchStride ?? 0) + i] as number);
          }
          expect(vecGot.map((x) => Number(x.toFixed(9))), label).toEqual(expected.vector.map((x) => Number(x.toFixed(9))));
        }
      }
    });
  }
});

describe('lowerGemm: fields of the plan', () => {
  const bf16 = (pointer: bigint, rows: number, cols: number, extra: Partial<GemmMatrix> = {}): GemmMatrix => ({ pointer, dtype: 'BFloat16', rows, cols, ld: cols, ...extra });
  const linear: GemmDescriptor = { a: bf16(0x1000n, 8, 16), b: bf16(0x2000n, 32, 16, { transposed: true }), d: bf16(0x3000n, 8, 32) };

  it('swaps A and B and their transpositions (Dᵀ = op(B)ᵀ·op(A)ᵀ), f32 compute without TF32', () => {
    const { plan, shape } = lowerGemm(linear);
    expect(shape).toEqual({ m: 8, n: 32, k: 16, batch: 1 });
    expect([plan.aPointer, plan.bPointer, plan.transa, plan.transb]).toEqual([0x2000n, 0x1000n, V.CUBLAS_OP_T, V.CUBLAS_OP_N]);
    expect(plan.a).toEqual({ dataType: V.CUDA_R_16BF, rows: 16, cols: 32, ld: 16, batchCount: 1, batchStride: 0 });
    expect(plan.d).toMatchObject({ rows: 32, cols: 8, ld: 32 });
    expect(plan.computeType).toBe(V.CUBLAS_COMPUTE_32F);
    expect(plan.cPointer).toBe(0x3000n);
  });

  it('allowTf32 picks CUBLAS_COMPUTE_32F_FAST_TF32 for Float', () => {
    const f32 = (p: bigint, r: number, c: number): GemmMatrix => ({ pointer: p, dtype: 'Float', rows: r, cols: c, ld: c });
    expect(lowerGemm({ a: f32(0x100n, 2, 3), b: f32(0x200n, 3, 4), d: f32(0x300n, 2, 4), allowTf32: true }).plan.computeType).toBe(V.CUBLAS_COMPUTE_32F_FAST_TF32);
  });

  it('maps fp8 scales onto the swapped operands and names the bias type', () => {
    const e4m3 = (p: bigint, r: number, c: number, t = false): GemmMatrix => ({ pointer: p, dtype: 'Float8_e4m3fn', rows: r, cols: c, ld: c, transposed: t });
    const { plan } = lowerGemm({
      a: e4m3(0x1000n, 16, 32),
      b: e4m3(0x2000n, 64, 32, true),
      d: { pointer: 0x3000n, dtype: 'BFloat16', rows: 16, cols: 64, ld: 64 },
      scales: { a: 0x10n, b: 0x20n },
      epilogue: { kind: 'BIAS', bias: { pointer: 0x4000n, dtype: 'BFloat16' } },
    });
    expect([plan.aScalePointer, plan.bScalePointer, plan.biasDataType]).toEqual([0x20n, 0x10n, V.CUDA_R_16BF]);
  });

  it('takes alignment from the address, row pitch and batch pitch', () => {
    const { plan } = lowerGemm({ ...linear, a: bf16(0x1002n, 8, 16) });
    expect(plan.alignmentB).toBe(2);
    expect(lowerGemm({ ...linear, a: bf16(0x1000n, 8, 16, { ld: 20 }) }).plan.alignmentB).toBe(8);
    expect(lowerGemm(linear).plan.alignmentB).toBe(32);
  });
});

describe('gemmHeuristicKey', () => {
  const f32 = (p: bigint, r: number, c: number): GemmMatrix => ({ pointer: p, dtype: 'Float', rows: r, cols: c, ld: c });
  const base: GemmDescriptor = { a: f32(0x10000n, 64, 32), b: f32(0x20000n, 32, 48), d: f32(0x30000n, 64, 48) };
  const key = (desc: GemmDescriptor, workspace = 1024): string => gemmHeuristicKey(lowerGemm(desc).plan, workspace);

  it('ignores pointer values of equal alignment', () => {
    expect(key({ ...base, a: f32(0x50000n, 64, 32), d: f32(0x90000n, 64, 48) })).toBe(key(base));
  });

  it('changes with shape, ld, transposition, dtype, batch, epilogue, alignment, beta, bias presence and workspace', () => {
    const variants: GemmDescriptor[] = [
      { ...base, a: f32(0x10000n, 63, 32), d: f32(0x30000n, 63, 48) },
      { ...base, b: { ...f32(0x20000n, 32, 48), ld: 64 } },
      { ...base, b: { ...f32(0x20000n, 48, 32), transposed: true } },
      { ...base, allowTf32: true },
      { a: { ...base.a, batchCount: 2, batchStride: 4096 }, b: base.b, d: { ...base.d, batchCount: 2, batchStride: 4096 } },
      { ...base, epilogue: { kind: 'RELU' } },
      { ...base, epilogue: { kind: 'BIAS', bias: { pointer: 0x40000n, dtype: 'Float' } } },
      { ...base, a: f32(0x10004n, 64, 32) },
      { ...base, beta: 1 },
      { ...base, c: f32(0x60000n, 64, 48), beta: 1 },
    ];
    const keys = new Set([key(base), ...variants.map((v) => key(v)), key(base, 2048)]);
    expect(keys.size).toBe(variants.length + 2);
  });
});

describe('lowerGemm: fp8 outputs', () => {
  it('describes an absent C of an fp8 D in the bias type (cuBLASLt takes no fp8 C)', () => {
    const e4m3 = (p: bigint, r: number, c: number, t = false): GemmMatrix => ({ pointer: p, dtype: 'Float8_e4m3fn', rows: r, cols: c, ld: c, transposed: t });
    const base: GemmDescriptor = { a: e4m3(0x1000n, 16, 32), b: e4m3(0x2000n, 16, 32, true), d: e4m3(0x3000n, 16, 16) };
    expect(lowerGemm(base).plan.c.dataType).toBe(V.CUDA_R_16BF);
    expect(lowerGemm({ ...base, epilogue: { kind: 'BIAS', bias: { pointer: 0x4000n, dtype: 'Half' } } }).plan.c.dataType).toBe(V.CUDA_R_16F);
    expect(lowerGemm(base).plan.d.dataType).toBe(V.CUDA_R_8F_E4M3);
  });
});
