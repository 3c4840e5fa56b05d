// GemmLibrary: cuBLASLt GEMMs on one DeviceContext — the executor of the runtime's library-call
// (GEMM) segments. `matmul(desc)` validates and lowers the descriptor (cublaslt-plan.ts), takes
// the algorithm from cublasLtMatmulAlgoGetHeuristic once per heuristic key (shapes, strides,
// dtypes, epilogue, alignment) — the fastest of its first few, timed on that first call
// (gemm-autotune.ts) — and enqueues cublasLtMatmul on the device's stream with a
// workspace from the device's caching allocator. Invariant: nothing reaches the addon before
// the descriptor validated; a configuration cuBLASLt has no algorithm for is a GemmError naming
// it; a failing cuBLASLt call is a CudaError naming the call and its status.

import { loadAddon, type Handle } from '../native/addon.js';
import { GemmError, RuntimeUnavailableError } from '../errors.js';
import type { GemmDescriptor } from './gemm-descriptor.js';
import { gemmHeuristicKey, lowerGemm, type CublasLtPlan } from './cublaslt-plan.js';
import { autotuneRefusal, pickFastest, type AutotuneRecord, type TimingDevice } from './gemm-autotune.js';
import { completeFp8Output, type Fp8OutputResources } from './fp8-output.js';

export interface GemmAvailability {
  available: boolean;
  /** Why not: the addon or libcublasLt missing (every candidate tried and why it failed). */
  reason?: string;
  /** The libcublasLt file loaded. */
  path?: string;
  /** cublasLtGetVersion(), e.g. 130100. */
  version?: number;
}

export interface CublasLtHeuristicResult {
  algo: Uint8Array;
  workspaceSize: number;
  wavesCount: number;
}

/** The addon's cuBLASLt functions (native/bind_gemm.cc). */
export interface GemmNative {
  cublasLtProbe(): { loaded: boolean; reason: string; path: string; version: number };
  cublasLtCreate(): Handle;
  cublasLtDestroy(handle: Handle): void;
  cublasLtHeuristic(handle: Handle, plan: CublasLtPlan, maxWorkspaceBytes: number, requestedCount: number): CublasLtHeuristicResult[];
  cublasLtMatmul(handle: Handle, plan: CublasLtPlan, algo: Uint8Array, workspace: bigint, workspaceBytes: number, stream: Handle): void;
}

/**
 * What GemmLibrary needs of a device: its stream and its caching allocator (and, to autotune,
 * event timing; to read grouped_mm's offsets back and zero uncovered output, copies, memset and
 * a stream sync).
 */
export interface GemmDevice extends Partial<TimingDevice> {
  readonly stream: bigint;
  malloc(bytes: number | bigint): bigint;
  free(pointer: bigint): void;
  copyDeviceToHost?(destination: ArrayBufferView, source: bigint, range?: { byteCount?: number }): void;
  /** Writes the fp8 output's unit D scale (fp8-output.ts). */
  copyHostToDevice?(destination: bigint, source: ArrayBufferView): void;
  memsetD8?(pointer: bigint, value: number, byteCount: number | bigint): void;
  synchronize?(): void;
  readonly isCapturing?: boolean;
}

export interface GemmLibraryOptions {
  /** Workspace for cuBLASLt; default 32 MiB (PyTorch's CUBLASLT_WORKSPACE_SIZE on Hopper). */
  workspaceBytes?: number;
  /**
   * Heuristic algorithms timed on a key's first call, the fastest kept (gemm-autotune.ts);
   * default 1 (the heuristic's first, untimed), or TSFUSER_GEMM_AUTOTUNE (e.g. 8).
   */
  autotuneCandidates?: number;
}

export interface GemmCall {
  /** The algorithm came from this library's heuristic cache. */
  cachedAlgorithm: boolean;
  /** Workspace bytes the algorithm uses. */
  workspaceBytes: number;
  m: number;
  n: number;
  k: number;
  batch: number;
  /** On the key's first call: the tuning (candidates timed, the one chosen, or why none was). */
  autotune?: AutotuneRecord;
}

export interface GemmCallOptions {
  /** Stream to enqueue on; default the device's stream. */
  stream?: bigint;
}

const DEFAULT_WORKSPACE_BYTES = 32 * 1024 * 1024;
// Off by default: on the H200 (2026-12-02) tuning on the operands of a key's first call did not
// pick reliably faster algorithms for the flushed, back-to-back calls the bench times (see the
// device README); the heuristic's first is what PyTorch's cuBLAS path takes too.
const DEFAULT_AUTOTUNE_CANDIDATES = 1;
/** Timed runs per candidate (after one warm-up). */
const AUTOTUNE_RUNS = 3;

function autotuneCandidatesFrom(option: number | undefined): number {
  if (option !== undefined) return option;
  const env = process.env['TSFUSER_GEMM_AUTOTUNE'];
  if (env === undefined || env === '') return DEFAULT_AUTOTUNE_CANDIDATES;
  const n = Number(env);
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`TSFUSER_GEMM_AUTOTUNE must be a non-negative integer (candidates to time), got '${env}'`);
  return n;
}

/** Whether cuBLASLt can be used (addon present, libcublasLt found); never throws. */
export function gemmAvailability(): GemmAvailability {
  const load = loadAddon();
  if (!load.ok) return { available: false, reason: load.reason };
  return availabilityOf(load.addon);
}

function availabilityOf(native: GemmNative): GemmAvailability {
  const probe = native.cublasLtProbe();
  if (!probe.loaded) return { available: false, reason: probe.reason };
  return { available: true, path: probe.path, version: probe.version };
}

interface CachedAlgorithm {
  algo: Uint8Array;
  workspaceSize: number;
}

export class GemmLibrary {
  private readonly algorithms = new Map<string, CachedAlgorithm>();
  private workspace: bigint | undefined;
  /** fp8 outputs' unit D scale (bytes 0..3) and amax scratch (4..7); see fp8-output.ts. */
  private fp8Scalars: bigint | undefined;
  private fp8ScratchC: { pointer: bigint; bytes: number } | undefined;
  private disposed = false;

  private constructor(
    private readonly native: GemmNative,
    private readonly device: GemmDevice,
    private readonly handle: Handle,
    /** The workspace limit handed to the heuristic. */
    readonly workspaceBytes: number,
    /** Heuristic algorithms timed on a key's first call (≤ 1: none). */
    readonly autotuneCandidates: number,
  ) {}

  /** A library on `device`; RuntimeUnavailableError (with the reason) when cuBLASLt is missing. */
  static create(device: GemmDevice, options: GemmLibraryOptions = {}): GemmLibrary {
    const load = loadAddon();
    if (!load.ok) throw new RuntimeUnavailableError(load.reason);
    return GemmLibrary.withNative(load.addon, device, options);
  }

  /** As create, over a given native layer (the addon, or a test double of it). */
  static withNative(native: GemmNative, device: GemmDevice, options: GemmLibraryOptions = {}): GemmLibrary {
    const availability = availabilityOf(native);
    if (!availability.available) throw new RuntimeUnavailableError(availability.reason ?? 'cuBLASLt unavailable');
    const workspaceBytes = options.workspaceBytes ?? DEFAULT_WORKSPACE_BYTES;
    if (!Number.isSafeInteger(workspaceBytes) || workspaceBytes < 0) {
      throw new RangeError(`GemmLibrary: workspaceBytes must be a non-negative integer, got ${workspaceBytes}`);
    }
    const candidates = autotuneCandidatesFrom(options.autotuneCandidates);
    if (!Number.isSafeInteger(candidates) || candidates < 0) throw new RangeError(`GemmLibrary: autotuneCandidates must be a non-negative integer, got ${candidates}`);
    return new GemmLibrary(native, device, native.cublasLtCreate(), workspaceBytes, candidates);
  }

  /** Distinct heuristic keys seen (one cublasLtMatmulAlgoGetHeuristic call each). */
  get cachedAlgorithmCount(): number {
    return this.algorithms.size;
  }

  /** Enqueues D = epilogue(alpha·op(A)·op(B) + beta·C) (see GemmDescriptor) on the stream. */
  matmul(desc: GemmDescriptor, options: GemmCallOptions = {}): GemmCall {
    if (this.disposed) throw new Error('GemmLibrary: used after dispose()');
    const { shape, plan } = lowerGemm(completeFp8Output(desc, this.fp8Resources));
    const key = gemmHeuristicKey(plan, this.workspaceBytes);
    let algorithm = this.algorithms.get(key);
    const cachedAlgorithm = algorithm !== undefined;
    let autotune: AutotuneRecord | undefined;
    const stream = options.stream ?? this.device.stream;
    if (algorithm === undefined) {
      const refusal = this.autotuneCandidates > 1 ? autotuneRefusal(desc, this.device) : 'tuning is off';
      const requested = refusal === null ? this.autotuneCandidates : 1;
      const results = this.native.cublasLtHeuristic(this.handle, plan, this.workspaceBytes, requested);
      let best = results[0];
      if (best !== undefined && refusal === null && stream === this.device.stream) {
        const run = (i: number): void => {
          const r = results[i] as CublasLtHeuristicResult;
          this.native.cublasLtMatmul(this.handle, plan, r.algo, r.workspaceSize > 0 ? this.workspacePointer() : 0n, r.workspaceSize, stream);
        };
        autotune = pickFastest(results, run, this.device as TimingDevice, { candidates: this.autotuneCandidates, runs: AUTOTUNE_RUNS });
        best = results[autotune.chosen];
      } else if (best !== undefined) {
        autotune = { tried: 0, chosen: 0, msPerRun: [], skipped: refusal ?? 'the call is on another stream than the one timed' };
      }
      if (best === undefined) {
        throw new GemmError(
          'descriptor',
          `cuBLASLt has no algorithm for this GEMM on this device (cublasLtMatmulAlgoGetHeuristic returned none): ` +
            `${describeGemm(desc, shape)}`,
        );
      }
      algorithm = { algo: best.algo, workspaceSize: best.workspaceSize };
      this.algorithms.set(key, algorithm);
    }
    const workspace = algorithm.workspaceSize > 0 ? this.workspacePointer() : 0n;
    this.native.cublasLtMatmul(this.handle, plan, algorithm.algo, workspace, algorithm.workspaceSize, stream);
    return { cachedAlgorithm, workspaceBytes: algorithm.workspaceSize, ...shape, ...(autotune === undefined ? {} : { autotune }) };
  }

  /**
   * `count` Int32 values at `pointer` once the stream's earlier work is done (a host sync):
   * grouped_mm's offsets, which size its per-group calls. Refused while the stream is captured.
   */
  readInt32(pointer: bigint, count: number): Int32Array {
    const d = this.device;
    if (d.isCapturing === true) throw new GemmError('offsets', 'grouped_mm with offsets reads them on the host, which a CUDA graph capture cannot do (run it without graph replay)');
    if (d.copyDeviceToHost === undefined || d.synchronize === undefined) throw new GemmError('offsets', 'this device cannot copy the offsets back to the host');
    const out = new Int32Array(count);
    d.synchronize();
    if (count > 0) d.copyDeviceToHost(out, pointer, { byteCount: count * 4 });
    return out;
  }

  /** Zeroes `bytes` at `pointer` (cuMemsetD8 on the legacy stream, ordered with this blocking stream). */
  zero(pointer: bigint, bytes: number): void {
    if (this.device.memsetD8 === undefined) throw new GemmError('d', 'this device has no memset');
    if (bytes > 0) this.device.memsetD8(pointer, 0, bytes);
  }

  /** Releases the workspace (to the device's pool) and the cuBLASLt handle. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.workspace !== undefined) this.device.free(this.workspace);
    this.workspace = undefined;
    if (this.fp8Scalars !== undefined) this.device.free(this.fp8Scalars);
    if (this.fp8ScratchC !== undefined) this.device.free(this.fp8ScratchC.pointer);
    this.fp8Scalars = undefined;
    this.fp8ScratchC = undefined;
    this.native.cublasLtDestroy(this.handle);
  }

  /** The device buffers fp8 outputs need (fp8-output.ts), made on first use and kept. */
  private readonly fp8Resources: Fp8OutputResources = {
    unitScale: () => this.fp8ScalarPointer(),
    amaxScratch: () => this.fp8ScalarPointer() + 4n,
    scratchC: (bytes) => {
      // C of beta 0 is never read: one zeroed buffer, grown to the largest C asked for
      if (this.fp8ScratchC === undefined || this.fp8ScratchC.bytes < bytes) {
        if (this.fp8ScratchC !== undefined) this.device.free(this.fp8ScratchC.pointer);
        const pointer = this.device.malloc(bytes);
        this.device.memsetD8?.(pointer, 0, bytes);
        this.fp8ScratchC = { pointer, bytes };
      }
      return this.fp8ScratchC.pointer;
    },
  };

  private fp8ScalarPointer(): bigint {
    if (this.fp8Scalars === undefined) {
      if (this.device.copyHostToDevice === undefined) throw new GemmError('scales.d', 'an fp8 output needs a unit D scale on the device, and this device cannot copy to it');
      const pointer = this.device.malloc(16);
      this.device.copyHostToDevice(pointer, new Float32Array([1, 0, 0, 0]));
      this.fp8Scalars = pointer;
    }
    return this.fp8Scalars;
  }

  // One workspace for every call: calls on one stream run in order, so they never overlap. A
  // caller using several streams gives each its own GemmLibrary.
  private workspacePointer(): bigint {
    if (this.workspace === undefined) this.workspace = this.device.malloc(this.workspaceBytes);
    return this.workspace;
  }
}

/** "bf16 [8192×4096]·[4096×4096]ᵀ → bf16, GELU_BIAS, batch 1": the configuration, for messages. */
export function describeGemm(desc: GemmDescriptor, shape: { m: number; n: number; k: number; batch: number }): string {
  const t = (transposed: boolean | undefined): string => (transposed === true ? 'ᵀ' : '');
  return (
    `${desc.a.dtype} [${desc.a.rows}×${desc.a.cols}]${t(desc.a.transposed)} · ${desc.b.dtype} [${desc.b.rows}×${desc.b.cols}]${t(desc.b.transposed)}` +
    ` → ${desc.d.dtype} ${shape.m}×${shape.n} (k ${shape.k}), epilogue ${desc.epilogue?.kind ?? 'DEFAULT'}, batch ${shape.batch}`
  );
}

/** cuBLASLt on `device` (GemmLibrary.create). */
export function cublasLt(device: GemmDevice, options: GemmLibraryOptions = {}): GemmLibrary {
  return GemmLibrary.create(device, options);
}
