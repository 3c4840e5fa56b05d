// Kernel IR: the lowered form of one scheduled fusion — a tree of statements (loops, guards,
// allocations, copies, computations) over tensor accesses with explicit index expressions.
// It is its own closed discriminated union; the emitter and the printer switch over it
// exhaustively. Produced by ../lower, consumed by ../emit.

import type { BinaryOpType, DataType, Expr, ReductionOpType, TernaryOpType, UnaryOpType } from '@tsfuser/fusion-ir';
import type { IndexType } from '@tsfuser/scheduler';
import type { IndexExpr } from './index-expr.js';

/** One element (or, for vector copies, the first of `width` elements) of a tensor. */
export interface TensorAccess {
  kind: 'tensor';
  /** Kernel name of the buffer or argument, e.g. `T3`. */
  tensor: string;
  dtype: DataType;
  memory: 'Global' | 'Local';
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

/** `index < extent` */
export interface Predicate {
  index: IndexExpr;
  extent: IndexExpr;
}

export type Stmt =
  | { kind: 'ForLoop'; index: string; extent: IndexExpr; unroll: boolean; body: Stmt[] }
  | { kind: 'IfThenElse'; predicates: Predicate[]; then: Stmt[]; else: Stmt[] }
  | { kind: 'Allocate'; buffer: string; dtype: DataType; size: number; align: number }
  | { kind: 'LoadStore'; out: TensorAccess; in: TensorAccess; width: number }
  | { kind: 'Compute'; out: TensorAccess; op: ComputeOp; operands: Operand[]; computeDtype: DataType }
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
    }
  /**
   * Lowering-internal: a fusion expression placed in the loop nest, not yet indexed. `phase`
   * 'init' marks the accumulator initialisation of a ReductionOp, placed outside its loops.
   */
  | { kind: 'PendingExpr'; expr: Expr; positionIndices: IndexExpr[]; phase?: 'init' };

export type StmtKind = Stmt['kind'];

/** What one kernel parameter is, in signature order. */
export type KernelParam =
  | { kind: 'tensor'; name: string; dtype: DataType; rank: number; role: 'input' | 'output'; position: number }
  | { kind: 'scalar'; name: string; dtype: DataType; role: 'input'; position: number };

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
  body: Stmt[];
  /** Threads per block, for __launch_bounds__. */
  maxThreadsPerBlock: number;
  vectorizeFactor: number;
  /** Dynamic shared memory the kernel needs (block reductions), in bytes. */
  sharedMemBytes: number;
  /** Static `__device__` arrays of the kernel (grid reduction work buffer and semaphores). */
  deviceGlobals: { name: string; ctype: 'double' | 'unsigned int'; size: number }[];
}
