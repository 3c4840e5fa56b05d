// Test helpers: fake device memory (each buffer at its own base pointer, pointers counting
// elements, or bytes of a given element size: alloc(numel, elementBytes)) and a host
// interpreter of GemmDescriptor semantics as cuBLASLt computes them (row-major matrices with
// leading dims, op = T, batch strides with 0 broadcasting, BIAS / RELU / GELU(tanh) / _AUX
// epilogues, fp8's per-tensor A / B scales), which also runs the device layer's validateGemm on
// every descriptor; and GemmRunner's offsets read-back and zeroing. The oracle of the call, not
// of the fusion (the reference evaluator is that).
import { validateGemm, type GemmCall, type GemmDescriptor, type GemmMatrix } from '@tsfuser/device';
import type { GemmRunner } from '../src/plan/library-call-segment.js';

/** Fake device memory: each buffer at its own base pointer; pointers count elements. */
export class HostMemory {
  private readonly buffers: { base: bigint; data: Float64Array; elementBytes: number }[] = [];
  /** `elementBytes` 1 (the default): pointers into this buffer count elements; else bytes of that size. */
  alloc(numel: number, elementBytes = 1): bigint {
    const base = BigInt(this.buffers.length + 1) << 32n;
    this.buffers.push({ base, data: new Float64Array(Math.max(numel, 1)), elementBytes });
    return base;
  }
  at(pointer: bigint): { data: Float64Array; offset: number } {
    const b = this.buffers.find((x) => pointer >= x.base && pointer < x.base + (1n << 32n));
    if (b === undefined) throw new Error(`pointer ${pointer.toString(16)} is in no buffer`);
    const bytes = Number(pointer - b.base);
    if (bytes % b.elementBytes !== 0) throw new Error(`pointer ${pointer.toString(16)} is not aligned to its ${b.elementBytes}-byte elements`);
    return { data: b.data, offset: bytes / b.elementBytes };
  }
  elementBytesAt(pointer: bigint): number {
    const b = this.buffers.find((x) => pointer >= x.base && pointer < x.base + (1n << 32n));
    if (b === undefined) throw new Error(`pointer ${pointer.toString(16)} is in no buffer`);
    return b.elementBytes;
  }
  read(pointer: bigint, index: number): number {
    const { data, offset } = this.at(pointer);
    if (offset + index < 0 || offset + index >= data.length) throw new Error(`read outside the buffer at ${pointer.toString(16)} + ${index}`);
    return data[offset + index] as number;
  }
  write(pointer: bigint, index: number, value: number): void {
    const { data, offset } = this.at(pointer);
    if (offset + index >= data.length) throw new Error(`write outside the buffer at ${pointer.toString(16)} + ${index}`);
    data[offset + index] = value;
  }
}

const geluTanh = (x: number): number => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
const geluTanhGrad = (x: number): number => {
  const c = Math.sqrt(2 / Math.PI);
  const t = Math.tanh(c * (x + 0.044715 * x ** 3));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
};

/** cuBLASLt's semantics of a GemmDescriptor, on host memory (the oracle of the call, not of the fusion). */
export class HostGemm implements GemmRunner {
  readonly calls: GemmDescriptor[] = [];
  constructor(private readonly memory: HostMemory) {}
  matmul(desc: GemmDescriptor): GemmCall {
    const shape = validateGemm(desc);
    this.calls.push(desc);
    const { m, n, k, batch } = shape;
    const stored = (x: GemmMatrix, b: number, r: number, c: number): number => this.memory.read(x.pointer, b * (x.batchStride ?? 0) + r * x.ld + c);
    const op = (x: GemmMatrix, b: number, r: number, c: number): number => (x.transposed === true ? stored(x, b, c, r) : stored(x, b, r, c));
    const e = desc.epilogue ?? { kind: 'DEFAULT' };
    if (e.kind === 'DRELU' || e.kind === 'DRELU_BGRAD') throw new Error(`HostGemm: ${e.kind} is not interpreted here`);
    if (e.kind === 'BGRADA' || e.kind === 'BGRADB') {
      // the sum of op(A) over k (m entries) or of op(B) over k (n entries), one matrix (no batch)
      const entries = e.kind === 'BGRADA' ? m : n;
      for (let i = 0; i < entries; i += 1) {
        let acc = 0;
        for (let kk = 0; kk < k; kk += 1) acc += e.kind === 'BGRADA' ? op(desc.a, 0, i, kk) : op(desc.b, 0, kk, i);
        this.memory.write(e.biasGradient.pointer, i, acc);
      }
    }
    const bgrad: number[] = [];
    for (let b = 0; b < batch; b += 1) {
      for (let i = 0; i < m; i += 1) {
        for (let j = 0; j < n; j += 1) {
          let acc = 0;
          for (let kk = 0; kk < k; kk += 1) acc += op(desc.a, b, i, kk) * op(desc.b, b, kk, j);
          acc *= desc.alpha ?? 1;
          // fp8's per-tensor scales multiply A's and B's values (a·sa)(b·sb) = sa·sb·ab
          if (desc.scales?.a !== undefined) acc *= this.memory.read(desc.scales.a, 0);
          if (desc.scales?.b !== undefined) acc *= this.memory.read(desc.scales.b, 0);
          // beta · C before the bias and the activation (C defaults to D's old values)
          const beta = desc.beta ?? 0;
          if (beta !== 0) acc += beta * stored(desc.c ?? desc.d, b, i, j);
          if ('bias' in e) acc += this.memory.read(e.bias.pointer, j);
          const auxAt = 'aux' in e ? b * (e.aux.batchStride ?? 0) + i * e.aux.ld + j : 0;
          // DGELU reads the pre-activation (and DGELU_BGRAD sums the result over the rows); the _AUX forms write it
          if (e.kind === 'DGELU' || e.kind === 'DGELU_BGRAD') acc *= geluTanhGrad(this.memory.read(e.aux.pointer, auxAt));
          else if ('aux' in e) this.memory.write(e.aux.pointer, auxAt, acc);
          if (e.kind === 'DGELU_BGRAD') bgrad[j] = (bgrad[j] ?? 0) + acc;
          if (e.kind === 'RELU' || e.kind === 'RELU_BIAS') acc = Math.max(acc, 0);
          if (e.kind === 'GELU' || e.kind === 'GELU_BIAS' || e.kind === 'GELU_AUX' || e.kind === 'GELU_AUX_BIAS') acc = geluTanh(acc);
          this.memory.write(desc.d.pointer, b * (desc.d.batchStride ?? 0) + i * desc.d.ld + j, acc);
        }
      }
    }
    if (e.kind === 'DGELU_BGRAD') bgrad.forEach((v, j) => this.memory.write(e.biasGradient.pointer, j, v));
    return { cachedAlgorithm: false, workspaceBytes: 0, m, n, k, batch };
  }
  readInt32(pointer: bigint, count: number): Int32Array {
    return Int32Array.from({ length: count }, (_, i) => this.memory.read(pointer, i));
  }
  /** Zeroes `bytes` at `pointer` (the buffer's element size converts them to elements); recorded. */
  zero(pointer: bigint, bytes: number): void {
    this.zeroed.push({ pointer, bytes });
    const { data, offset } = this.memory.at(pointer);
    const elementBytes = this.memory.elementBytesAt(pointer);
    data.fill(0, offset, offset + bytes / elementBytes);
  }
  readonly zeroed: { pointer: bigint; bytes: number }[] = [];
}

