// Segment kinds: what a segment of a compile plan IS, decided by the scheduler that took it —
// a view of its inputs (expr_eval: no kernel), outputs that are all empty (no_op: allocated,
// nothing launched), a generated kernel of a scheduled fusion (pointwise, transpose, reduction,
// the persistent schedulers), or a greedy kernel emitted from its parameters (scan, sort,
// scatter), or a library call (matmul: one GEMM through cuBLASLt), or an attention call (one
// sdpfa_fwd / sdpfa_bwd as codegen's generated flash-attention kernels). A new kind is a new member here first:
// the `never` checks then name every place that must handle it (scheduler README, "Adding a
// segment kind").
// Invariant: every scheduler type has exactly one kind, and the parameters of a kernel kind are
// those of its schedulers only.

import type { GreedyParams } from '../greedy/params.js';
import type { HeuristicParams, KernelParams, SchedulerType } from '../heuristic-params.js';

export type SegmentKind = 'view' | 'empty' | 'kernel' | 'greedy' | 'libraryCall' | 'attention';

/** The parameters of a scheduler whose kernel codegen lowers through a loop nest. */
export type LoopKernelParams = Exclude<KernelParams, GreedyParams>;

/** The kind of the segments `type` schedules. */
export function segmentKindOf(type: SchedulerType): SegmentKind {
  switch (type) {
    case 'expr_eval':
      return 'view';
    case 'no_op':
      return 'empty';
    case 'pointwise':
    case 'transpose':
    case 'reduction':
    case 'inner_persistent':
    case 'outer_persistent':
    case 'inner_outer_persistent':
      return 'kernel';
    case 'greedy':
      return 'greedy';
    case 'matmul':
      // One GEMM and its fused epilogue, handed to cuBLASLt (the runtime's library-call segment).
      return 'libraryCall';
    case 'attention':
      // One sdpfa_fwd / sdpfa_bwd: flash-attention kernels generated from the parameters (the runtime's attention segment).
      return 'attention';
    default: {
      const unreachable: never = type;
      throw new Error(`unknown scheduler type ${String(unreachable)}`);
    }
  }
}

/** `p` when its scheduler makes a generated kernel (a `kernel` or `greedy` segment), else null. */
export function kernelParamsOf(p: HeuristicParams): KernelParams | null {
  switch (p.schedulerType) {
    case 'expr_eval':
    case 'no_op':
      return null;
    case 'pointwise':
    case 'transpose':
    case 'reduction':
    case 'inner_persistent':
    case 'outer_persistent':
    case 'inner_outer_persistent':
    case 'greedy':
      return p;
    case 'matmul':
      // a cuBLASLt call (library-call segment), no generated kernel
      return null;
    case 'attention':
      // kernels generated from the parameters (attention segment), no scheduled fusion
      return null;
    default: {
      const unreachable: never = p;
      throw new Error(`unknown scheduler parameters ${String(unreachable)}`);
    }
  }
}
