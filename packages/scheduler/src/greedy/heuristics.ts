// The greedy scheduler's heuristics: which of its three kernels (params.ts) and how many threads,
// from the row length, the dtype and the input's layout. A scan along a dim that is not
// innermost, over at least 256 rows, takes a thread per row (coalesced across rows). A long scan row gets one block of up to
// 512 threads with 16 bytes per thread per chunk; short rows share a block (one row group of at
// least a warp per row). argsort and large-k topk sort a row per block in shared memory; topk
// with k ≤ 16 takes a warp per row, 8 rows per block.

import { contiguousStrides, dataTypeSize } from '@tsfuser/fusion-ir';
import type { LaunchDims } from '../heuristic-params.js';
import { chooseIndexType } from '../index-type.js';
import { MAX_WARP_TOPK, greedyOpName, type GreedyFacts } from './analysis.js';
import type { GreedyKernel, GreedyParams } from './params.js';

function nextPow2(x: number): number {
  let p = 1;
  while (p < x) p *= 2;
  return p;
}

function launch(gdimx: number, bdimx: number, bdimy: number): LaunchDims {
  return { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy, bdimz: 1 };
}

/** Bytes of a sort key in shared memory (half and bfloat16 sort as float). */
function keyBytes(dtype: GreedyFacts['input']['dtype']): number {
  return dtype === 'Double' || dtype === 'Int' ? 8 : 4;
}

function scanAccBytes(dtype: GreedyFacts['input']['dtype']): number {
  return keyBytes(dtype);
}

export function computeGreedyHeuristics(f: GreedyFacts): GreedyParams {
  const { op, info, rowLength: n, rows } = f;
  const dtype = f.input.dtype;
  const elem = dataTypeSize(dtype);
  const outSizes = info.sizes.map((s, d) => (d === op.dim && f.k !== null ? f.k : s));
  const indexType = chooseIndexType([info, { sizes: outSizes, strides: contiguousStrides(outSizes) }]);
  let kernel: GreedyKernel;
  let lparams: LaunchDims;
  let sharedMemBytes = 0;
  const laterDimsUsed = info.sizes.slice(op.dim + 1).some((s) => s > 1);
  if (op.kind === 'ScanOp' && laterDimsUsed && rows >= 256) {
    const threads = 128;
    kernel = { kind: 'serial_scan', opType: op.opType, init: initText(op.init.value), threads };
    lparams = launch(Math.ceil(rows / threads), threads, 1);
  } else if (op.kind === 'ScanOp') {
    const items = Math.max(1, Math.floor(16 / elem));
    const threadsPerRow = Math.min(512, Math.max(32, nextPow2(Math.ceil(n / items))));
    const rowsPerBlock = Math.max(1, Math.min(Math.floor(256 / threadsPerRow), nextPow2(rows)));
    const stride = info.strides[op.dim] as number;
    const rowAligned = info.strides.every((s, d) => d === op.dim || info.sizes[d] === 1 || (s * elem) % 16 === 0);
    // The output is allocated row-major: its rows are contiguous only when no dim after `dim` has extent > 1.
    const outputRowsContiguous = info.sizes.slice(op.dim + 1).every((s) => s === 1);
    const vectorized = stride === 1 && outputRowsContiguous && n % items === 0 && info.alignment >= 16 && rowAligned && (n * elem) % 16 === 0;
    const init = op.init.value;
    kernel = {
      kind: 'scan',
      opType: op.opType,
      init: initText(init),
      threadsPerRow,
      rowsPerBlock,
      itemsPerThread: items,
      vectorized,
    };
    lparams = launch(Math.ceil(rows / rowsPerBlock), threadsPerRow, rowsPerBlock);
    sharedMemBytes = rowsPerBlock * Math.max(1, threadsPerRow / 32) * scanAccBytes(dtype);
  } else if (op.kind === 'TopKOp' && (f.k as number) <= MAX_WARP_TOPK) {
    const k = f.k as number;
    const rowsPerBlock = 8;
    kernel = { kind: 'warp_topk', largest: op.largest, k, kPow2: nextPow2(k), rowsPerBlock };
    lparams = launch(Math.ceil(rows / rowsPerBlock), 32, rowsPerBlock);
  } else {
    const sortSize = Math.max(2, nextPow2(n));
    const threads = Math.min(1024, Math.max(32, sortSize / 2));
    kernel = {
      kind: 'bitonic',
      descending: op.kind === 'ArgsortOp' ? op.descending : op.largest,
      outputLength: f.k ?? n,
      sortSize,
      threads,
    };
    lparams = launch(rows, threads, 1);
    sharedMemBytes = sortSize * (keyBytes(dtype) + 4);
  }
  return {
    schedulerType: 'greedy',
    tag: 'Greedy heuristics',
    op: greedyOpName(op) as GreedyParams['op'],
    dim: op.dim,
    rank: info.sizes.length,
    dtype,
    rows,
    rowLength: n,
    kernel,
    valuesOutput: op.kind === 'ArgsortOp' ? null : positionOf(f, op.outputs[0]),
    indicesOutput: op.kind === 'ArgsortOp' ? positionOf(f, op.outputs[0]) : op.kind === 'TopKOp' ? positionOf(f, op.outputs[1]) : null,
    indexType,
    lparams,
    sharedMemBytes,
  };
}

/** GreedyScanKernel.init's text form of a constant. */
function initText(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  return '0';
}

function positionOf(f: GreedyFacts, v: GreedyFacts['op']['outputs'][number] | undefined): number | null {
  if (v === undefined) return null;
  const p = f.op.fusion.outputs.indexOf(v);
  return p < 0 ? null : p;
}
