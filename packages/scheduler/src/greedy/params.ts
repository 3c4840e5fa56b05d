// Parameters of the greedy scheduler's kernels (nvFuser's SchedulerType::Greedy is the one that
// takes ScanOp, ArgsortOp and TopKOp). In tsfuser a greedy segment is one scan or sort and its
// kernel is an expression-level kernel chosen from these parameters (codegen emit/greedy/):
//   serial_scan — a scan along a dim that is not innermost: a thread per row, coalesced across
//                rows;
//   scan       — one row per row group of `threadsPerRow` threads (`rowsPerBlock` groups per
//                block), `itemsPerThread` consecutive elements per thread, a block-wide scan
//                (warp shuffles + shared memory) per chunk of threadsPerRow·itemsPerThread
//                elements and a carry across chunks;
//   bitonic    — argsort, or topk with a large k: one row per block, a bitonic sort of the
//                row (padded to `sortSize`, a power of two) in shared memory;
//   warp_topk  — topk with k ≤ 16: one warp per row, each lane keeps its best `kPow2`
//                elements in registers and a butterfly of shuffles merges the lanes' lists;
//   scatter    — scatter / index_put_accumulate: a thread per update point, stores or atomic
//                adds into an output the launch plan first fills with a copy of the input
//                (greedy/scatter.ts).
// Equal parameters mean the same kernel (the kernel cache is keyed by them).

import type { DataType, ScanOpType } from '@tsfuser/fusion-ir';
import type { LaunchDims } from '../launch-dims.js';
import type { IndexType } from '../index-type.js';

export interface GreedyScanKernel {
  kind: 'scan';
  opType: ScanOpType;
  /**
   * The init value (a constant of the ScanOp) as exact text: a decimal integer for integer
   * dtypes; for floats String(x) ('Infinity', 'NaN', '-0' for −0). Text, so that the kernel cache
   * key (JSON) is exact (JSON has no bigint, NaN or infinities).
   */
  init: string;
  threadsPerRow: number;
  rowsPerBlock: number;
  itemsPerThread: number;
  /** Loads and stores of itemsPerThread elements at once (rows contiguous and 16-byte aligned). */
  vectorized: boolean;
}

/**
 * A scan along a dim that is not innermost (a later dim has extent > 1): one thread per row,
 * scanning its row sequentially; consecutive threads take consecutive rows, which are adjacent
 * in memory for a row-major input, so every step's loads and stores are coalesced.
 */
export interface GreedySerialScanKernel {
  kind: 'serial_scan';
  opType: ScanOpType;
  /** As GreedyScanKernel.init. */
  init: string;
  threads: number;
}

export interface GreedyBitonicKernel {
  kind: 'bitonic';
  /** argsort: descending; topk: largest. */
  descending: boolean;
  /** Elements written per row: the row length for argsort, k for topk. */
  outputLength: number;
  sortSize: number;
  threads: number;
}

export interface GreedyWarpTopKKernel {
  kind: 'warp_topk';
  largest: boolean;
  k: number;
  kPow2: number;
  rowsPerBlock: number;
}

/** scatter (stores) or index_put_accumulate (atomic adds): one update point per thread. */
export interface GreedyScatterKernel {
  kind: 'scatter';
  accumulate: boolean;
  threads: number;
}

export type GreedyKernel = GreedyScanKernel | GreedySerialScanKernel | GreedyBitonicKernel | GreedyWarpTopKKernel | GreedyScatterKernel;

export interface GreedyParams {
  schedulerType: 'greedy';
  tag: string;
  /** Which op (by its nvFuser name) and the dim it works along. */
  op: 'cumsum' | 'cumprod' | 'cummax' | 'cummin' | 'argsort' | 'topk' | 'scatter' | 'index_put_accumulate';
  dim: number;
  rank: number;
  dtype: DataType;
  rows: number;
  rowLength: number;
  kernel: GreedyKernel;
  /** Fusion output positions of (values, indices); null where the segment does not output one. */
  valuesOutput: number | null;
  indicesOutput: number | null;
  indexType: IndexType;
  lparams: LaunchDims;
  /** Static shared memory of the kernel, in bytes. */
  sharedMemBytes: number;
}

export function greedyParamsToString(p: GreedyParams): string {
  const k = p.kernel;
  const lines = ['', '===== Greedy Parameters ========', `Tag: ${p.tag}`, `${p.op} along dim ${p.dim} of rank ${p.rank} (${p.dtype}): ${p.rows} rows of ${p.rowLength}`];
  switch (k.kind) {
    case 'scan':
      lines.push(`Block scan: ${k.threadsPerRow} threads per row, ${k.rowsPerBlock} rows per block, ${k.itemsPerThread} items per thread${k.vectorized ? ' (vectorized)' : ''}, op ${k.opType}, init ${String(k.init)}`);
      break;
    case 'serial_scan':
      lines.push(`Serial scan: one thread per row, ${k.threads} threads per block, op ${k.opType}, init ${k.init}`);
      break;
    case 'bitonic':
      lines.push(`Bitonic sort in shared memory: sort size ${k.sortSize}, ${k.threads} threads, ${k.descending ? 'descending' : 'ascending'}, ${k.outputLength} outputs per row`);
      break;
    case 'scatter':
      lines.push(`Scatter: one update point per thread (${p.rows} points), ${k.threads} threads per block, ${k.accumulate ? 'atomic adds' : 'stores'} into a copy of the input`);
      break;
    case 'warp_topk':
      lines.push(`Warp top-k: k ${k.k} (lists of ${k.kPow2}), ${k.rowsPerBlock} rows per block, ${k.largest ? 'largest' : 'smallest'}`);
      break;
    default: {
      const unreachable: never = k;
      throw new Error(`unknown greedy kernel ${String(unreachable)}`);
    }
  }
  lines.push(`Gridx: ${p.lparams.gdimx} BlckY: ${p.lparams.bdimy} BlckX: ${p.lparams.bdimx}`);
  lines.push(`Index type: ${p.indexType === 'Int32' ? 'int' : 'int64_t'}`);
  lines.push('====================================');
  return `${lines.join('\n')}\n`;
}
