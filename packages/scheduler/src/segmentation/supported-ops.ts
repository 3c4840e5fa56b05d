// Which expression kinds the reduction and normalization schedulers take (pointwise math,
// broadcast/squeeze/expand, plain copies, permutes that keep the innermost dim innermost, tensor
// factories (full, iota: a value computed per point), reductions and Welford), and the refusal reason for the others, naming the tensor
// produced (slice / pad / cat and indexed loads: only the pointwise scheduler takes them, so a
// resize next to a normalization is a segment boundary — the reduction scheduler takes slice /
// pad / cat before its reduction itself, reduction/resize-before-reduction.ts; scatter and
// index_put_accumulate: the greedy scheduler).
// Exhaustive over the Expr union, so a new kind must be
// classified here.

import type { Expr, Fusion } from '@tsfuser/fusion-ir';

export function unsupportedOp(e: Expr, scheduler: string): string | null {
  const out = e.outputs[0];
  const name = out !== undefined && out.kind === 'tensorView' ? ` producing T${out.name}` : '';
  switch (e.kind) {
    case 'UnaryOp':
    case 'BinaryOp':
    case 'TernaryOp':
    case 'BroadcastOp':
    case 'SqueezeOp':
    case 'ExpandOp':
    case 'ReductionOp':
    case 'WelfordOp':
    case 'RNGOp':
    case 'FullOp':
    case 'IotaOp':
    case 'Split':
    case 'Merge':
      return null;
    case 'LoadStoreOp':
      return permuteRefusal(e.permutation, name);
    case 'ViewOp':
      return `reshape${name} is not supported by the ${scheduler} scheduler yet`;
    case 'SliceOp':
    case 'PadOp':
    case 'CatOp':
      return `${e.kind === 'SliceOp' ? 'slice' : e.kind === 'PadOp' ? 'pad' : 'cat'}${name} is not supported by the ${scheduler} scheduler (slice, pad and cat run in pointwise segments)`;
    case 'SelectOp':
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'EmbeddingFwdOp':
      return `${e.kind}${name} (an indexed load) is left to the pointwise scheduler`;
    case 'ScatterOp':
    case 'IndexPutAccumulateOp':
      return scatterRefusal(e.kind, name);
    case 'ScanOp':
    case 'ArgsortOp':
    case 'TopKOp':
      return `${e.kind}${name} (a scan or sort along a dim) is left to the greedy scheduler`;
    case 'MatmulOp':
    case 'LinearOp':
    case 'ScaledMmaOp':
    case 'GroupedMmaOp':
    case 'SdpaFwdOp':
    case 'SdpaBwdOp':
      return libraryOpRefusal(e.kind, name);
    default: {
      const unreachable: never = e;
      return `unknown expression ${String(unreachable)}`;
    }
  }
}

/** nvFuser's python name of each GEMM / attention expr kind (for refusal messages). */
const LIBRARY_OP_NAMES = {
  MatmulOp: 'matmul',
  LinearOp: 'linear',
  ScaledMmaOp: 'scaled_mm',
  GroupedMmaOp: 'grouped_mm',
  SdpaFwdOp: 'sdpfa_fwd',
  SdpaBwdOp: 'sdpfa_bwd',
} as const;

export type LibraryOpKind = keyof typeof LIBRARY_OP_NAMES;

/** Whether `e` is a GEMM or attention op: a library or attention call, never inside a generated kernel. */
export function isLibraryExpr(e: Expr): boolean {
  return Object.prototype.hasOwnProperty.call(LIBRARY_OP_NAMES, e.kind);
}

/**
 * GEMMs and attention: no generated-kernel scheduler computes them (a loop nest of FMAs would
 * run on CUDA cores, far from tensor-core speed). matmul and linear are the matmul scheduler's:
 * a GEMM segment of their own (cuBLASLt) with the epilogue cuBLASLt fuses; sdpfa_fwd / sdpfa_bwd
 * the attention scheduler's (generated flash-attention kernels, one op a segment); scaled_mm and
 * grouped_mm the matmul scheduler's too (a GEMM segment of the op alone).
 */
export function libraryOpRefusal(kind: LibraryOpKind, name: string): string {
  if (kind === 'SdpaFwdOp' || kind === 'SdpaBwdOp') {
    return `${LIBRARY_OP_NAMES[kind]}${name} is not a loop-nest op: it needs an attention segment of its own (generated flash-attention kernels), which the attention scheduler makes`;
  }
  return `${LIBRARY_OP_NAMES[kind]}${name} is not a generated-kernel op: it needs a GEMM segment (cuBLASLt) of its own, which the matmul scheduler makes`;
}

/**
 * A permute inside a reduction or persistent kernel (softmax, layer_norm, rms_norm, batch_norm-like,
 * layer_norm backward): taken when it keeps the innermost dim innermost (it only reorders outer
 * dims, e.g. attention heads [B, H, S, D] → [B, S, H, D] before a norm over D): the kernel reads
 * and writes rows along the same contiguous dim and indexes the outer dims through the
 * permutation. A permute that moves the innermost dim stays a boundary: the transpose scheduler
 * moves that data through shared memory, coalesced on both sides, where one reduction kernel
 * would read or write it with a stride.
 */
export function permuteRefusal(permutation: readonly number[] | null, name: string): string | null {
  if (permutation === null) return null;
  const last = permutation.length - 1;
  if (last < 0 || permutation[last] === last) return null;
  return `permute${name} moves the innermost dim (permutation [${permutation.join(', ')}]) and is left to the transpose scheduler`;
}

/** scatter and index_put_accumulate: only the greedy scheduler takes them (a segment of their own). */
export function scatterRefusal(kind: 'ScatterOp' | 'IndexPutAccumulateOp', name: string): string {
  const op = kind === 'ScatterOp' ? 'scatter' : 'index_put_accumulate';
  return `${op}${name} writes at data-dependent positions and is left to the greedy scheduler (a scatter segment of its own)`;
}

/**
 * The first unsupported expression's reason, or null. With `reshapes`, ViewOps are skipped (the
 * persistent schedulers check them themselves: normalization/persistent-reshapes.ts); with
 * `resizes`, slice / pad / cat are skipped (persistent/resize-before-row.ts checks them).
 */
export function firstUnsupportedOp(fusion: Fusion, scheduler: string, opts: { reshapes?: boolean; resizes?: boolean } = {}): string | null {
  for (const e of fusion.exprs()) {
    if (opts.reshapes === true && e.kind === 'ViewOp') continue;
    if (opts.resizes === true && (e.kind === 'SliceOp' || e.kind === 'PadOp' || e.kind === 'CatOp')) continue;
    const r = unsupportedOp(e, scheduler);
    if (r !== null) return r;
  }
  return null;
}
