// GemmLibrary: cuBLASLt GEMMs on one DeviceContext — the executor of the runtime's library-call
// (GEMM) segments. `matmul(desc)` validates and lowers the descriptor (cublaslt-plan.ts), takes
// the algorithm from cublasLtMatmulAlgoGetHeuristic once per heuristic key (shapes, strides,
// dtypes, epilogue, alignment) — the fastest of its first few, timed on that first call
// (gemm-autotune.ts) — and enqueues cublasLtMatmul on the device's stream with a
// workspace from the device's caching allocator. When the heuristic has no algorithm for a
// key, the same place decides once what runs instead (gemm-fallback.ts: the plain GEMM and the
// rest of the epilogue as further cuBLASLt calls), caches that decision with the key, and every
// call of the key reports it (GemmCall.fallback). An fp8 A / B scale pointer cuBLASLt refuses
// (not 16-byte aligned) is first copied into the library's own slot (fp8-scale-staging.ts,
// GemmCall.stagedScales). Invariant: nothing reaches the addon before
// the descriptor validated; a configuration cuBLASLt has no algorithm for and no fallback can
// replace is a GemmError naming it and why; a failing cuBLASLt call is a CudaError naming the
// call and its status.

import { loadAddon, type Handle } from '../native/addon.js';
import { GemmError, RuntimeUnavailableError } from '../errors.js';
import { GEMM_EPILOGUE_KINDS, type GemmDescriptor, type GemmDtype, type GemmEpilogueKind } from './gemm-descriptor.js';
import { fallbackForm, fallbackSteps, type GemmFallbackForm, type GemmFallbackResources } from './gemm-fallback.js';
import { gemmHeuristicKey, lowerGemm, type CublasLtPlan } from './cublaslt-plan.js';
import type { GemmShape } from './validate-gemm.js';
import { autotuneRefusal, pickFastest, type AutotuneRecord, type TimingDevice } from './gemm-autotune.js';
import { completeFp8Output, type Fp8OutputResources } from './fp8-output.js';
import { fp8ScalesToStage, scaleCopy, withStagedScales } from './fp8-scale-staging.js';

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
  /**
   * Epilogues whose heuristic answer is taken as empty (no algorithm) for the GEMMs asked for
   * (not for a fallback's own steps), so their fallback runs (gemm-fallback.ts): the GPU suite
   * forces it with this; default none, or
   * TSFUSER_GEMM_NO_ALGORITHM (comma-separated epilogue kinds, e.g. "BGRADA,GELU_AUX_BIAS").
   */
  noAlgorithmFor?: readonly GemmEpilogueKind[];
  /**
   * Copy an fp8 A / B scale that is not 16-byte aligned into the library's own slot first
   * (fp8-scale-staging.ts: cuBLASLt refuses it otherwise); default true. The probe turns it off.
   */
  stageFp8Scales?: boolean;
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
  /**
   * "fallback: <why>: <what runs instead>" when cuBLASLt has no algorithm for this epilogue here
   * and the GEMM ran as several calls (gemm-fallback.ts); absent otherwise.
   */
  fallback?: string;
  /** The cuBLASLt calls the fallback made (2 today); absent without a fallback. */
  fallbackCalls?: number;
  /** fp8 scales copied into aligned slots before the GEMM, with why (fp8-scale-staging.ts). */
  stagedScales?: string[];
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

function noAlgorithmFrom(option: readonly GemmEpilogueKind[] | undefined): ReadonlySet<GemmEpilogueKind> {
  const env = process.env['TSFUSER_GEMM_NO_ALGORITHM'];
  const [source, kinds] = option !== undefined
    ? ['GemmLibraryOptions.noAlgorithmFor', option as readonly string[]]
    : ['TSFUSER_GEMM_NO_ALGORITHM', (env ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '')];
  const unknown = kinds.filter((x) => !(GEMM_EPILOGUE_KINDS as readonly string[]).includes(x));
  if (unknown.length > 0) throw new RangeError(`${source} names unknown epilogues ${unknown.join(', ')} (known: ${GEMM_EPILOGUE_KINDS.join(', ')})`);
  return new Set(kinds as GemmEpilogueKind[]);
}

/** The bytes of `count` ones in `dtype` (little-endian). */
function onesBytes(dtype: GemmDtype, count: number): Uint8Array {
  const bits: Record<GemmDtype, [number, number]> = { Float: [0x3f800000, 4], BFloat16: [0x3f80, 2], Half: [0x3c00, 2], Float8_e4m3fn: [0x38, 1], Float8_e5m2: [0x3c, 1] };
  const [one, size] = bits[dtype];
  const out = new Uint8Array(count * size);
  const view = new DataView(out.buffer);
  for (let i = 0; i < count; i += 1) {
    if (size === 4) view.setUint32(4 * i, one, true);
    else if (size === 2) view.setUint16(2 * i, one, true);
    else view.setUint8(i, one);
  }
  return out;
}

function availabilityOf(native: GemmNative): GemmAvailability {
  const probe = native.cublasLtProbe();
  if (!probe.loaded) return { available: false, reason: probe.reason };
  return { available: true, path: probe.path, version: probe.version };
}

/** What a heuristic key runs: an algorithm, a fallback composition, or nothing (the error). */
type CachedAlgorithm =
  | { kind: 'algorithm'; algo: Uint8Array; workspaceSize: number }
  | { kind: 'fallback'; form: Extract<GemmFallbackForm, { ok: true }>; report: string }
  | { kind: 'none'; epilogue: GemmEpilogueKind; message: string };

/** One key's fallback decision, as `GemmLibrary.fallbacks` lists it. */
export interface GemmFallbackRecord {
  epilogue: GemmEpilogueKind;
  /** "fallback: …" (as GemmCall.fallback) or, when none could run, the error's message. */
  report: string;
  ran: boolean;
}

export class GemmLibrary {
  private readonly algorithms = new Map<string, CachedAlgorithm>();
  private workspace: bigint | undefined;
  /** fp8 outputs' unit D scale (bytes 0..3) and amax scratch (4..7); see fp8-output.ts. */
  private fp8Scalars: bigint | undefined;
  private fp8ScratchC: { pointer: bigint; bytes: number } | undefined;
  /** Aligned slots of staged fp8 A / B scales (fp8-scale-staging.ts): A at +0, B at +256. */
  private scaleSlots: bigint | undefined;
  /** Ones vectors of the fallbacks (gemm-fallback.ts), per dtype, grown to the longest asked for. */
  private readonly onesVectors = new Map<GemmDtype, { pointer: bigint; count: number }>();
  private disposed = false;

  private constructor(
    private readonly native: GemmNative,
    private readonly device: GemmDevice,
    private readonly handle: Handle,
    /** The workspace limit handed to the heuristic. */
    readonly workspaceBytes: number,
    /** Heuristic algorithms timed on a key's first call (≤ 1: none). */
    readonly autotuneCandidates: number,
    /** Epilogues whose heuristic is taken as empty (GemmLibraryOptions.noAlgorithmFor). */
    readonly noAlgorithmFor: ReadonlySet<GemmEpilogueKind>,
    /** GemmLibraryOptions.stageFp8Scales. */
    readonly stageFp8Scales: boolean,
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
    const noAlgorithm = noAlgorithmFrom(options.noAlgorithmFor);
    return new GemmLibrary(native, device, native.cublasLtCreate(), workspaceBytes, candidates, noAlgorithm, options.stageFp8Scales ?? true);
  }

  /** Distinct heuristic keys seen (one cublasLtMatmulAlgoGetHeuristic call each). */
  get cachedAlgorithmCount(): number {
    return this.algorithms.size;
  }

  /** The keys whose heuristic had no algorithm: the fallback decided for each (or why none ran). */
  get fallbacks(): GemmFallbackRecord[] {
    const out: GemmFallbackRecord[] = [];
    for (const entry of this.algorithms.values()) {
      if (entry.kind === 'fallback') out.push({ epilogue: entry.form.epilogue, report: entry.report, ran: true });
      else if (entry.kind === 'none') out.push({ epilogue: entry.epilogue, report: entry.message, ran: false });
    }
    return out;
  }

  /** Enqueues D = epilogue(alpha·op(A)·op(B) + beta·C) (see GemmDescriptor) on the stream. */
  matmul(desc: GemmDescriptor, options: GemmCallOptions = {}): GemmCall {
    return this.call(desc, options, true);
  }

  /** One GEMM; `allowFallback` false for a fallback's own steps (they never fall back again). */
  private call(desc: GemmDescriptor, options: GemmCallOptions, allowFallback: boolean): GemmCall {
    if (this.disposed) throw new Error('GemmLibrary: used after dispose()');
    const staged = this.stageFp8Scales ? fp8ScalesToStage(desc) : [];
    const slots: Partial<Record<'a' | 'b', bigint>> = {};
    for (const s of staged) slots[s.which] = this.scaleSlot(s.which);
    const completed = completeFp8Output(staged.length === 0 ? desc : withStagedScales(desc, slots), this.fp8Resources);
    const { shape, plan } = lowerGemm(completed);
    // the copies go after validation (nothing reaches the addon for a bad descriptor), before the GEMM
    for (const s of staged) this.call(scaleCopy(s.from, slots[s.which] as bigint, this.onesResources.ones('Float', 1)), options, false);
    const stagedReport = staged.length === 0 ? {} : { stagedScales: staged.map((s) => s.reason) };
    // A fallback's steps have their own keys: a step must see the heuristic's answer, never a
    // fallback decided (or forced) for a caller's GEMM of the same key (on the H200 the
    // DRELU_BGRAD fallback's DRELU step met the forced DRELU case's fallback and failed).
    const key = `${allowFallback ? '' : 'step|'}${gemmHeuristicKey(plan, this.workspaceBytes)}`;
    let entry = this.algorithms.get(key);
    const cachedAlgorithm = entry !== undefined;
    let autotune: AutotuneRecord | undefined;
    const stream = options.stream ?? this.device.stream;
    if (entry === undefined) {
      const looked = this.lookUp(completed, shape, plan, stream, allowFallback);
      entry = looked.entry;
      autotune = looked.autotune;
      // a step's own refusal is reported through its GEMM's error, not remembered for the key
      if (entry.kind !== 'none' || allowFallback) this.algorithms.set(key, entry);
    }
    switch (entry.kind) {
      case 'algorithm': {
        const workspace = entry.workspaceSize > 0 ? this.workspacePointer() : 0n;
        this.native.cublasLtMatmul(this.handle, plan, entry.algo, workspace, entry.workspaceSize, stream);
        return { cachedAlgorithm, workspaceBytes: entry.workspaceSize, ...shape, ...(autotune === undefined ? {} : { autotune }), ...stagedReport };
      }
      case 'fallback': {
        if (!allowFallback) throw new GemmError('descriptor', `a fallback step has no algorithm of its own: ${describeGemm(desc, shape)} (${entry.report})`);
        const steps = fallbackSteps(completed, shape, entry.form, this.onesResources);
        let workspaceBytes = 0;
        for (const step of steps) {
          let made: GemmCall;
          try {
            made = this.call(step, options, false);
          } catch (error) {
            if (error instanceof GemmError) throw new GemmError('descriptor', `${entry.report}; but a step failed: ${error.message}`);
            throw error;
          }
          workspaceBytes = Math.max(workspaceBytes, made.workspaceBytes);
        }
        return { cachedAlgorithm, workspaceBytes, ...shape, fallback: entry.report, fallbackCalls: steps.length, ...stagedReport };
      }
      case 'none':
        throw new GemmError('descriptor', entry.message);
      default: {
        const never: never = entry;
        throw new Error(`unknown cache entry ${String(never)}`);
      }
    }
  }

  /** The heuristic's answer for a new key (tuned when asked), or the fallback decided instead. */
  private lookUp(desc: GemmDescriptor, shape: GemmShape, plan: CublasLtPlan, stream: bigint, allowFallback: boolean): { entry: CachedAlgorithm; autotune?: AutotuneRecord } {
    const kind = desc.epilogue?.kind ?? 'DEFAULT';
    // forced for the GEMMs asked for, not a fallback's own steps (which are other problems:
    // k 1 passes, ones vectors — forcing RELU must not empty the RELU pass that replaces it)
    const forced = allowFallback && this.noAlgorithmFor.has(kind);
    const refusal = this.autotuneCandidates > 1 ? autotuneRefusal(desc, this.device) : 'tuning is off';
    const requested = refusal === null ? this.autotuneCandidates : 1;
    const results = forced ? [] : this.native.cublasLtHeuristic(this.handle, plan, this.workspaceBytes, requested);
    let best = results[0];
    let autotune: AutotuneRecord | undefined;
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
    if (best !== undefined) return { entry: { kind: 'algorithm', algo: best.algo, workspaceSize: best.workspaceSize }, ...(autotune === undefined ? {} : { autotune }) };
    const why = forced
      ? `the heuristic is taken as empty for ${kind} (noAlgorithmFor / TSFUSER_GEMM_NO_ALGORITHM)`
      : 'cublasLtMatmulAlgoGetHeuristic returned none';
    const chosen: GemmFallbackForm = allowFallback ? fallbackForm(desc, shape) : { ok: false, epilogue: kind, reason: 'it is a fallback step itself' };
    if (chosen.ok) return { entry: { kind: 'fallback', form: chosen, report: `fallback: cuBLASLt has no ${kind} algorithm for ${describeGemm(desc, shape)} (${why}): ${chosen.summary}` } };
    return { entry: { kind: 'none', epilogue: kind, message: `cuBLASLt has no algorithm for this GEMM on this device (${why}): ${describeGemm(desc, shape)}; no fallback: ${chosen.reason}` } };
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
    for (const v of this.onesVectors.values()) this.device.free(v.pointer);
    if (this.scaleSlots !== undefined) this.device.free(this.scaleSlots);
    this.scaleSlots = undefined;
    this.onesVectors.clear();
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

  /** Ones vectors for the fallbacks (gemm-fallback.ts), made on first use, grown, kept. */
  private readonly onesResources: GemmFallbackResources = {
    ones: (dtype, count) => {
      const have = this.onesVectors.get(dtype);
      if (have !== undefined && have.count >= count) return have.pointer;
      if (this.device.copyHostToDevice === undefined) throw new GemmError('epilogue', 'a GEMM fallback needs a ones vector on the device, and this device cannot copy to it');
      // freed in stream order: the pool hands it out again only to later work on this stream
      if (have !== undefined) this.device.free(have.pointer);
      const bytes = onesBytes(dtype, count);
      const pointer = this.device.malloc(Math.max(bytes.byteLength, 16));
      this.device.copyHostToDevice(pointer, bytes);
      this.onesVectors.set(dtype, { pointer, count });
      return pointer;
    },
  };

  private scaleSlot(which: 'a' | 'b'): bigint {
    this.scaleSlots ??= this.device.malloc(512);
    return this.scaleSlots + (which === 'a' ? 0n : 256n);
  }

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
