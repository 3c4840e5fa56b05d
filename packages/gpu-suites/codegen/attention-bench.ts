// Timings of the GPU attention entry: forward and backward (preprocess + main + convert) of the
// generated kernels at the bench points (bf16, batch 4, 16 heads, E 128, L = S of
// 1024 / 2048 / 4096 / 8192, causal and not), CUDA events, median of 7 after 2 warm-ups, and
// the same for other tilings at one point (the tuning experiment, optionally one pass: the
// other's time is NaN). TFLOP/s counts
// 4·N·H·L·S·E for the forward, 2.5× that for the backward, half of each when causal.
//
// Invariant: inputs are random (never zeros), every timing launches exactly the kernels a
// segment would launch for that call, and buffers are freed before the next size.

import type { DeviceContext } from '@tsfuser/device';
import {
  dropoutConstants,
  generateAttentionBackward,
  generateAttentionBackwardConvert,
  generateAttentionBackwardPreprocess,
  generateAttentionForward,
  tilingTag,
  type AttentionProblem,
  type AttentionTiling,
  type AttentionVariant,
} from '@tsfuser/codegen';
import { floatBuffer, type KernelCache } from './attention-device.js';

export interface BenchRow {
  seq: number;
  causal: boolean;
  tiling: string;
  forwardMs: number;
  forwardTflops: number;
  backwardMs: number;
  backwardTflops: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function timeMs(device: DeviceContext, work: () => void): number {
  for (let i = 0; i < 2; i += 1) work();
  device.synchronize();
  const times: number[] = [];
  for (let i = 0; i < 7; i += 1) times.push(device.time(work));
  return median(times);
}

/** Random bf16 bits in ±[0.5, 2) (no zeros), tiled from a 64K table. */
function randomBf16(count: number): Uint16Array {
  const table = new Uint16Array(65536);
  for (let i = 0; i < table.length; i += 1) table[i] = (Math.random() < 0.5 ? 0x8000 : 0) | (0x3f00 + Math.floor(Math.random() * 0x100));
  const out = new Uint16Array(count);
  for (let i = 0; i < count; i += table.length) out.set(table.subarray(0, Math.min(table.length, count - i)), i);
  return out;
}

export const BENCH_SEQUENCES = [1024, 2048, 4096, 8192];

export function benchAttention(
  device: DeviceContext,
  kernels: KernelCache,
  points: readonly { seq: number; causal: boolean; forwardTiling?: AttentionTiling; backwardTiling?: AttentionTiling }[],
  passes: 'both' | 'forward' | 'backward' = 'both',
): BenchRow[] {
  const batch = 4;
  const heads = 16;
  const e = 128;
  const maxSeq = Math.max(...points.map((p) => p.seq));
  const count = batch * heads * maxSeq * e;
  const buffers = ['q', 'k', 'v', 'o', 'dO', 'dq', 'dk', 'dv'].map((name) => {
    const pointer = device.malloc(2 * count);
    if (name === 'q' || name === 'k' || name === 'v' || name === 'dO') device.copyHostToDevice(pointer, randomBf16(count));
    return pointer;
  });
  const [q, k, v, o, dO, dq, dk, dv] = buffers as [bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint];
  const lse = floatBuffer(device, batch * heads * maxSeq, false);
  const delta = floatBuffer(device, batch * heads * maxSeq, false);
  const accumulator = floatBuffer(device, count, false);
  const rows: BenchRow[] = [];
  try {
    for (const point of points) {
      const { seq, causal } = point;
      const variant: AttentionVariant = { dtype: 'BFloat16', headDim: e, causal, bias: 'none', dropout: false };
      const problem: AttentionProblem = { batch, heads, kvHeads: heads, queryLength: seq, keyLength: seq };
      const strides = (prefix: string): Record<string, number> => ({ [`${prefix}StrideN`]: heads * seq * e, [`${prefix}StrideH`]: seq * e, [`${prefix}StrideL`]: e });
      const scale = 1 / Math.sqrt(e);
      const { keepProb, keepScale } = dropoutConstants(0);
      const common = { bias: 0n, heads, kvHeads: heads, queryLength: seq, keyLength: seq, biasStrideN: 0, biasStrideH: 0, biasStrideL: 0, biasStrideS: 0, scaleLog2: Math.fround(scale * Math.LOG2E), scale: Math.fround(scale), seed: 0n, offset: 0n, keepProb, keepScale };
      const fwd = generateAttentionForward(variant, point.forwardTiling);
      const pre = generateAttentionBackwardPreprocess(variant);
      const main = generateAttentionBackward(variant, point.backwardTiling);
      const convert = generateAttentionBackwardConvert(variant);
      const forward = (): void => kernels.launch(fwd, problem, { ...common, q, k, v, o, lse, ...strides('q'), ...strides('k'), ...strides('v'), ...strides('o') });
      const backward = (): void => {
        kernels.launch(pre, problem, { o, gradOutput: dO, delta, gradQueryAccumulator: accumulator, heads, queryLength: seq, rows: batch * heads * seq, ...strides('o'), ...strides('gradOutput') });
        kernels.launch(main, problem, { ...common, q, k, v, gradOutput: dO, lse, delta, gradQueryAccumulator: accumulator, gradKey: dk, gradValue: dv, ...strides('q'), ...strides('k'), ...strides('v'), ...strides('gradOutput'), ...strides('gradKey'), ...strides('gradValue') });
        kernels.launch(convert, problem, { gradQueryAccumulator: accumulator, gradQuery: dq, heads, queryLength: seq, rows: batch * heads * seq, ...strides('gradQuery'), scale: Math.fround(scale) });
      };
      // A pass not timed (NaN) still runs once when the other needs its outputs (O, logsumexp).
      if (passes === 'backward') forward();
      const forwardMs = passes === 'backward' ? NaN : timeMs(device, forward);
      const backwardMs = passes === 'forward' ? NaN : timeMs(device, backward);
      const flops = (4 * batch * heads * seq * seq * e) / (causal ? 2 : 1);
      const t = fwd.tiling;
      const b = main.tiling;
      rows.push({
        seq,
        causal,
        tiling: `fwd ${tilingTag(t)} / bwd ${tilingTag(b)} (kv ${b.blockN}, q ${b.blockM})`,
        forwardMs,
        forwardTflops: flops / (forwardMs * 1e9),
        backwardMs,
        backwardTflops: (2.5 * flops) / (backwardMs * 1e9),
      });
    }
  } finally {
    for (const p of [...buffers, lse, delta, accumulator]) device.free(p);
    device.releasePool();
  }
  return rows;
}
