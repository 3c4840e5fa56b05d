// Kernel IR: the lowered form of one scheduled fusion — a tree of statements (loops, guards,
// allocations, copies, computations) over tensor accesses with explicit index expressions.
// It is its own closed discriminated union; the emitter and the printer switch over it
// exhaustively. Produced by ../lower, consumed by ../emit.

import type { BinaryOpType, DataType, Expr, ReductionOpType, RngOpType, TernaryOpType, UnaryOpType } from '@tsfuser/fusion-ir';
import type { IndexType } from '@tsfuser/scheduler';
import type { IndexExpr } from './index-expr.js';

/** One element (or, for vector copies, the first of `width` elements) of a tensor. */
export interface TensorAccess {
  kind: 'tensor';
  /** Kernel name of the buffer or argument, e.g. `T3`. */
  tensor: string;
  dtype: DataType;
  /** Shared: a row buffer in dynamic shared memory filled by a BulkLoadIssue, or a shared Allocate (a transpose tile). */
  memory: 'Global' | 'Local' | 'Shared';
  index: IndexExpr;
}

/** A scalar operand: a literal or a named scalar (kernel parameter or local). */
export interface ScalarOperand {
  kind: 'scalar';
  /** C text of the value, e.g. `3.0000000000000000e+00` or `d4`. */
  text: string;
  dtype: DataType;
}

export type Operand = TensorAccess | ScalarOperand;

export type ComputeOp =
  | { family: 'unary'; op: UnaryOpType }
  | { family: 'binary'; op: BinaryOpType }
  | { family: 'ternary'; op: TernaryOpType };

/** The three accumulators of a Welford state at one point: mean, M2 (varSum) and count N. */
export interface WelfordAccesses {
  avg: TensorAccess;
  varSum: TensorAccess;
  n: TensorAccess;
}

/**
 * The Welford state an update folds in: a raw value (varSum the literal 0, n the literal 1) or
 * a partial state (rFactor partials: three tensor accesses).
 */
export interface WelfordOperands {
  avg: Operand;
  varSum: Operand;
  n: Operand;
}

/** The second reduction of a grouped block allreduce. */
export interface GroupedAllreduce {
  out: TensorAccess;
  in: TensorAccess;
  op: ReductionOpType;
  init: ScalarOperand;
}

/** `index < extent` */
export interface Predicate {
  index: IndexExpr;
  extent: IndexExpr;
}

/** One output of a GridOuterReduce. */
export interface GridOuterReduction {
  work: string;
  out: string;
  outDtype: DataType;
  op: ReductionOpType;
  init: ScalarOperand;
  /** Elements of the output (= columns of the work buffer). */
  columns: IndexExpr;
}

/**
 * One row of a global tensor copied to a shared-memory buffer by one cp.async.bulk: `elements`
 * elements from `source` (the row's first element; 16-byte aligned, and the row's bytes a
 * multiple of 16) into `buffer`, which holds `capacity` elements at byte `sharedOffset` of the
 * dynamic shared memory; completion is signalled on the mbarrier at byte `barrierOffset`.
 * A buffer of several `stages` (a circular buffer over a row loop: bulk-row-pipeline.ts) holds
 * `stages` slots of `capacity` elements one after another, each with its own mbarrier (8 bytes
 * apart from `barrierOffset`); the copy fills slot `stage`. Absent: one slot, slot 0.
 */
export interface BulkRowCopy {
  buffer: string;
  dtype: DataType;
  source: TensorAccess;
  elements: IndexExpr;
  capacity: number;
  sharedOffset: number;
  barrierOffset: number;
  stages?: number;
  stage?: IndexExpr;
}
export type Stmt =
  | { kind: 'ForLoop'; index: string; extent: IndexExpr; unroll: boolean; body: Stmt[] }
  | { kind: 'IfThenElse'; predicates: Predicate[]; then: Stmt[]; else: Stmt[] }
  /** `memory` 'Shared': a block-wide `__shared__` array (a transpose tile), not a per-thread buffer. */
  | { kind: 'Allocate'; buffer: string; dtype: DataType; size: number; align: number; memory?: 'Shared' }
  /** `__syncthreads()`: every thread of the block reaches it before any goes on (shared tiles written before, read after). */
  | { kind: 'BlockSync' }
  /**
   * `cacheHint` 'evictLast': a global vector load marked L1::evict_last (row parameters);
   * 'evictLastL2': L1::evict_last plus an L2 evict_last cache policy (slice / pad / cat loads).
   */
  | { kind: 'LoadStore'; out: TensorAccess; in: TensorAccess; width: number; cacheHint?: 'evictLast' | 'evictLastL2' }
  | { kind: 'Compute'; out: TensorAccess; op: ComputeOp; operands: Operand[]; computeDtype: DataType }
  /**
   * One random number (nvFuser's kir::RNGOp): `out` = element `linearIndex` (row-major over the
   * RNG tensor's logical domain) of the op's Philox stream for (seed, offset); `parameters` are
   * low/high or mean/std (Double). `dtype` is the RNG op's dtype (the counter layout depends on
   * it). Values: fusion-ir's eval/random.ts; CUDA: emit/runtime/philox.ts.
   */
  | { kind: 'Rng'; out: TensorAccess; op: RngOpType; dtype: DataType; linearIndex: IndexExpr; seed: ScalarOperand; offset: ScalarOperand; parameters: ScalarOperand[] }
  /**
   * An element of an iota (nvFuser's IotaOp): `out = start + index · step`, computed in the
   * output's compute type (float for Half/BFloat16), `index` the element's position in the
   * iota's one logical dim.
   */
  | { kind: 'Iota'; out: TensorAccess; index: IndexExpr; start: ScalarOperand; step: ScalarOperand }
  /**
   * An indexed load (select, index_select, gather, take_along_axis, embedding): i = the integer
   * `index` operand (+ `extent` when negative and `wrapNegative`, as torch.select); an i outside
   * [0, extent) traps the kernel (PyTorch's device-side index check), else
   * out = lookup tensor at `lookup.index` + i · `stride` (`lookup.index` covers the other dims);
   * `width` > 1: that many consecutive elements in one vector load (a whole-row lookup whose
   * innermost dim is contiguous; the index is the same for every lane).
   */
  | { kind: 'IndexedLoad'; out: TensorAccess; index: Operand; lookup: TensorAccess; stride: IndexExpr; extent: IndexExpr; wrapNegative: boolean; op: string; width: number }
  /** A scalar local defined from other scalars (fusion scalar math). */
  | { kind: 'ScalarCompute'; name: string; dtype: DataType; op: ComputeOp; operands: ScalarOperand[]; computeDtype: DataType }
  /** A reduction's accumulator set to the op's identity before its loops (and block reduction). */
  | { kind: 'ReductionInit'; out: TensorAccess; value: ScalarOperand }
  /**
   * Threads of a block combine their partial values over the parallel dims `reduceDims`
   * (`blockReduce` of the runtime library, dynamic shared memory); the thread whose reduced
   * indices are 0 folds the result into `out` (which holds the init value). Every thread calls
   * it: out-of-range threads contribute `init` (read predicates false) instead of skipping.
   */
  | {
      kind: 'BlockReduce';
      out: TensorAccess;
      in: TensorAccess;
      op: ReductionOpType;
      init: ScalarOperand;
      /** The type partial values are combined in (Float for Half/BFloat16). */
      accDtype: DataType;
      reduceDims: ('TIDx' | 'TIDy')[];
      readPredicates: Predicate[];
      writePredicates: Predicate[];
      /** Every thread of the reduced dims receives the result (`blockAllreduce`), not just index 0. */
      allreduce?: boolean;
      /**
       * Another allreduce over the same dims with the same predicates and accumulation type,
       * done in the same pass (`blockAllreduce2`: one set of barriers for both; nvFuser's grouped
       * reductions). Only with `allreduce`.
       */
      grouped?: GroupedAllreduce;
      /**
       * A single-barrier allreduce (`blockAllreduceOneBarrier`) on shared-memory area 0 or 1
       * (area 1 starts blockDim.x · blockDim.y elements in); set only by
       * lower/allreduce-barriers.ts, which proves that the missing trailing barrier is safe.
       */
      oneBarrierArea?: 0 | 1;
      /**
       * Lanes (outer reductions with iteration vectors): `lanes` independent reductions of
       * adjacent local elements — `out` and `in` name lane 0, lane k is index + k — over the
       * same threads and predicates, in one call (`blockReduceLanes`: one set of barriers).
       * Not with `allreduce`, `grouped` or `oneBarrierArea`.
       */
      lanes?: number;
    }
  /**
   * A BlockReduce over `reduceDims` followed by a reduction across the blocks of a row over
   * blockIdx.y: each block stores its partial in the static work buffer `work`, the last block
   * to arrive (semaphore `semaphores[blockIdx.x]`, reset after use) combines them into `out`.
   * `pending` is set to 0 in that last block and 1 elsewhere: statements computed from `out`
   * are guarded by `pending < 1`. Every thread of every block calls it.
   */
  | {
      kind: 'GridReduce';
      out: TensorAccess;
      in: TensorAccess;
      op: ReductionOpType;
      init: ScalarOperand;
      accDtype: DataType;
      reduceDims: ('TIDx' | 'TIDy')[];
      readPredicates: Predicate[];
      writePredicates: Predicate[];
      work: string;
      semaphores: string;
      pending: string;
      /**
       * Lanes as for BlockReduce (`gridReduceLanes`): every lane's partial stored, one fence and
       * one semaphore round for all of them; the work buffer holds `lanes` slots per segment.
       */
      lanes?: number;
    }
  /**
   * A grid outer reduction's per-block partial (inner-outer persistent kernels): every thread
   * stores its accumulator `in` for column `column` in `work[blockIdx.x · columns + column]`.
   */
  | { kind: 'GridOuterStore'; work: string; column: IndexExpr; columns: IndexExpr; in: TensorAccess; accDtype: DataType }
  /**
   * The end of an inner-outer persistent kernel: a grid barrier (every block resident; the
   * semaphore is a sense-reversing counter, never reset), then the blocks split the columns of
   * every grid outer reduction and each column's gridDim.x partials are combined (in
   * `accDtype`) and written, cast to `outDtype`, to the contiguous output `out`. Every thread
   * of every block executes it, at the kernel's top level.
   */
  | { kind: 'GridOuterReduce'; semaphore: string; accDtype: DataType; reductions: GridOuterReduction[] }
  /**
   * Serial Welford step: `out` merges the state `in` (welfordCombine of the runtime library:
   * δ = b.avg − a.avg; N = a.N + b.N; avg += δ·b.N/N; M2 += b.M2 + δ²·a.N·b.N/N; a state with
   * N = 0 is the identity). `accDtype` is the avg / M2 type; counts are nvfuser_index_t.
   */
  | { kind: 'WelfordUpdate'; out: WelfordAccesses; in: WelfordOperands; accDtype: DataType }
  /**
   * BlockReduce for Welford states (`blockWelford`): threads combine their partial states over
   * `reduceDims` with the Welford merge; the thread whose reduced indices are 0 merges the
   * result into `out` (holding the init state N = 0). Out-of-range threads contribute N = 0.
   */
  | {
      kind: 'BlockWelford';
      out: WelfordAccesses;
      in: WelfordAccesses;
      accDtype: DataType;
      reduceDims: ('TIDx' | 'TIDy')[];
      readPredicates: Predicate[];
      writePredicates: Predicate[];
    }
  /**
   * GridReduce for Welford states (`gridWelford`): a BlockWelford, each block's partial state
   * in the static work buffers `work` (avg, M2, N), the last block of a row merges them;
   * `pending` as for GridReduce.
   */
  | {
      kind: 'GridWelford';
      out: WelfordAccesses;
      in: WelfordAccesses;
      accDtype: DataType;
      reduceDims: ('TIDx' | 'TIDy')[];
      readPredicates: Predicate[];
      writePredicates: Predicate[];
      work: { avg: string; varSum: string; n: string };
      semaphores: string;
      pending: string;
    }
  /**
   * Thread (0, 0) of the block initialises each copy's mbarrier and issues the copies; then a
   * __syncthreads, so no thread waits on a barrier before it is initialised. At the kernel's
   * top level (it declares the buffers' pointers).
   */
  | {
      kind: 'BulkLoadIssue';
      copies: BulkRowCopy[];
      /** Only where these hold (a block whose first row is past the tensor copies nothing). */
      predicates?: Predicate[];
      /**
       * Copies of later rows into the other slots of the same (multi-stage) buffers, issued with
       * the first (each group where its predicates hold): the circular buffer's prologue.
       */
      ahead?: { copies: BulkRowCopy[]; predicates: Predicate[] }[];
    }
  /**
   * Every thread waits until these buffers' copies have landed: the mbarrier phase of parity
   * `parity` (absent: phase 0, the only copy) of slot `stage`'s mbarrier (absent: slot 0), and
   * only where `predicates` hold (where the copy was issued; a wait for a copy never issued
   * would not return).
   */
  | { kind: 'BulkLoadWait'; buffers: string[]; parity?: IndexExpr; stage?: IndexExpr; predicates?: Predicate[] }
  /**
   * Inside a serial row loop, after the last read of the buffers: a __syncthreads (every thread
   * has read them), then thread (0, 0), where `predicates` hold, copies the next row into the
   * same buffers (`copies`' sources; into slot `stage` of a multi-stage buffer), completing the
   * barriers' next phase.
   */
  | { kind: 'BulkLoadReissue'; copies: BulkRowCopy[]; predicates: Predicate[] }
  /**
   * Lowering-internal: a fusion expression placed in the loop nest, not yet indexed. `phase`
   * 'init' marks the accumulator initialisation of a ReductionOp or WelfordOp, placed outside
   * its loops.
   */
  | { kind: 'PendingExpr'; expr: Expr; positionIndices: IndexExpr[]; phase?: 'init' | 'final' };

export type StmtKind = Stmt['kind'];

/** What one kernel parameter is, in signature order. */
export type KernelParam =
  | { kind: 'tensor'; name: string; dtype: DataType; rank: number; role: 'input' | 'output'; position: number }
  | { kind: 'scalar'; name: string; dtype: DataType; role: 'input'; position: number };

/**
 * A run-time extent the kernel divides non-negative indices by through host-computed magic
 * numbers (lower/fast-division.ts): `name` (`i3_div`) is an `NvfDivisor` declared at kernel start
 * from the extent local `extent` (`i3`) and pair k of the kernel's last parameter, filled by the
 * packer from tensor parameter `param`'s (its index in Kernel.params) logical size `dim`.
 */
export interface KernelDivisor {
  name: string;
  extent: string;
  param: number;
  dim: number;
}

/** The kernel parameter that carries the divisors' magic numbers. */
export const DIVISOR_PARAM_NAME = 'nvf_divisors';

/** A named integer computed once at kernel start (extents read from tensor arguments). */
export interface IndexLocal {
  name: string;
  value: string;
}

export interface Kernel {
  name: string;
  indexType: IndexType;
  params: KernelParam[];
  indexLocals: IndexLocal[];
  /** Fast divisors (declared after the index locals; their magic numbers are the last parameter); empty: none. */
  divisors: KernelDivisor[];
  body: Stmt[];
  /** Threads per block, for __launch_bounds__. */
  maxThreadsPerBlock: number;
  /**
   * Blocks per SM that must be resident at once (__launch_bounds__' second argument, capping
   * registers): a persistent grid with a grid barrier (inner-outer persistent) deadlocks if not.
   */
  minBlocksPerSm?: number;
  vectorizeFactor: number;
  /** Dynamic shared memory the kernel needs (block reductions), in bytes. */
  sharedMemBytes: number;
  /**
   * Static `__device__` arrays of the kernel (grid reduction work buffer and semaphores; a grid
   * Welford's count buffer is `long long`, read as nvfuser_index_t).
   */
  deviceGlobals: { name: string; ctype: 'double' | 'float' | 'unsigned int' | 'long long'; size: number }[];
}
