// Autotuning of a cuBLASLt GEMM's algorithm: on the first call of a heuristic key, the
// heuristic's first `candidates` algorithms each run on the call's own operands (all warmed up
// first, then two rounds of `runs` timed together between CUDA events, the minimum kept) and
// the fastest is kept for the key — the heuristic's first unless another beats it by over 3%
// (measurement noise; a lucky timing must not trade a good algorithm for a worse one). Why:
// cublasLtMatmulAlgoGetHeuristic ranks by a model; its first choice is measurably slower than a
// later one on some shapes (PyTorch's cuBLAS path takes the first), and the measurement is paid
// once per key. When it must not run — the device cannot time, the stream is being captured into
// a CUDA graph, or D overlaps an operand (a repeated run would read its own result) — the
// heuristic's first algorithm is taken, and the reason is recorded.
// Invariant: every candidate computes the same D (cuBLASLt's algorithms differ in order of
// summation only); the caller's real call runs after the tuning, with the chosen algorithm, so D
// holds that algorithm's result.

import type { CublasLtHeuristicResult } from './gemm-library.js';
import type { GemmDescriptor, GemmMatrix } from './gemm-descriptor.js';
import { gemmDtypeBytes } from './cublaslt-plan.js';

/** What tuning needs of the device beyond the GemmDevice: event timing of work on its stream. */
export interface TimingDevice {
  /** Device milliseconds of the work `work` enqueues on the stream (events before and after). */
  time(work: () => void): number;
  /** A CUDA-graph capture of the stream is in progress (no timing possible). */
  readonly isCapturing?: boolean;
}

export interface AutotuneOptions {
  /** Heuristic algorithms tried (1: no tuning). */
  candidates: number;
  /** Timed runs per candidate after one warm-up. */
  runs: number;
}

export interface AutotuneRecord {
  /** Candidates timed (0: not tuned, see `skipped`). */
  tried: number;
  /** Index of the chosen algorithm in the heuristic's ranking. */
  chosen: number;
  /** Milliseconds per run of each candidate, in ranking order. */
  msPerRun: number[];
  /** Why the first algorithm was taken untimed. */
  skipped?: string;
}

/** Timing rounds per candidate (the minimum is kept). */
const ROUNDS = 2;
/** A candidate replaces the heuristic's first only when faster by more than this fraction. */
const MARGIN = 0.03;

/** Bytes between the first and one past the last element a matrix spans. */
function span(m: GemmMatrix): [bigint, bigint] {
  const batches = Math.max(1, m.batchCount ?? 1);
  const rowsStored = m.transposed === true ? m.cols : m.rows;
  const colsStored = m.transposed === true ? m.rows : m.cols;
  const last = (batches - 1) * (m.batchStride ?? 0) + (rowsStored - 1) * m.ld + colsStored;
  return [m.pointer, m.pointer + BigInt(Math.max(0, last) * gemmDtypeBytes(m.dtype))];
}

function overlaps(a: GemmMatrix, b: GemmMatrix): boolean {
  const [a0, a1] = span(a);
  const [b0, b1] = span(b);
  return a0 < b1 && b0 < a1;
}

/** Why this call must not be tuned, or null. */
export function autotuneRefusal(desc: GemmDescriptor, device: Partial<TimingDevice>): string | null {
  if (typeof device.time !== 'function') return 'the device cannot time work on its stream';
  if (device.isCapturing === true) return 'the stream is being captured into a CUDA graph';
  if ((desc.beta ?? 0) !== 0 && desc.c === undefined) return 'D is also C (beta accumulates into its old values)';
  for (const [name, m] of [['A', desc.a], ['B', desc.b], ['C', desc.c]] as const) {
    if (m !== undefined && overlaps(desc.d, m)) return `D overlaps ${name}`;
  }
  return null;
}

/**
 * The index of the fastest of `results` for the call `run(i)` enqueues with algorithm i (see the
 * header). `run` must only enqueue work on the timed stream.
 */
export function pickFastest(results: readonly CublasLtHeuristicResult[], run: (index: number) => void, device: TimingDevice, options: AutotuneOptions): AutotuneRecord {
  const tried = Math.min(results.length, Math.max(1, options.candidates));
  if (tried <= 1) return { tried: 0, chosen: 0, msPerRun: [], skipped: results.length <= 1 ? 'the heuristic returned one algorithm' : 'tuning is off' };
  const runs = Math.max(1, options.runs);
  // Every candidate's warm-up first (module load, and the clocks ramping on a key's first call
  // would otherwise be charged to the first candidate timed), then ROUNDS timings each, the
  // fastest of them kept per candidate.
  for (let i = 0; i < tried; i += 1) run(i);
  const msPerRun = new Array<number>(tried).fill(Infinity);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < tried; i += 1) {
      const ms = device.time(() => {
        for (let r = 0; r < runs; r += 1) run(i);
      }) / runs;
      msPerRun[i] = Math.min(msPerRun[i] as number, ms);
    }
  }
  let chosen = 0;
  msPerRun.forEach((ms, i) => {
    if (ms < (msPerRun[chosen] as number)) chosen = i;
  });
  // The heuristic's first choice stays unless another is faster by more than the noise margin.
  if ((msPerRun[chosen] as number) > (msPerRun[0] as number) * (1 - MARGIN)) chosen = 0;
  return { tried, chosen, msPerRun };
}
