// Test helpers: byte-addressed fake device memory and a host interpreter of cuBLASLt's
// column-major plans (the addon's cublasLtHeuristic / cublasLtMatmul on host memory, Float
// only), so GemmLibrary's lowering and call sequences run without a GPU; a device double over
// that memory; a seeded generator.

import { CUBLASLT_VALUES as V } from '../src/gemm/cublaslt-constants.js';
import type { CublasLtLayout, CublasLtPlan } from '../src/gemm/cublaslt-plan.js';
import type { GemmDevice, GemmNative } from '../src/gemm/gemm-library.js';

/** Byte-addressed fake device memory; every buffer at its own base. Float only (4-byte elements). */
export class HostMemory {
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
export function interpreter(memory: HostMemory, empty: ReadonlySet<number> = new Set()): GemmNative & { heuristicCalls: number; matmulCalls: number } {
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

export function hostDevice(memory: HostMemory): GemmDevice {
  return {
    stream: 1n,
    malloc: (bytes) => memory.alloc(Number(bytes)),
    free: () => undefined,
    copyHostToDevice: (destination, source) => memory.copyIn(destination, source),
  };
}

/** mulberry32: the inputs of one seed. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
