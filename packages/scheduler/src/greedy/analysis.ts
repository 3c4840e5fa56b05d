// What the greedy scheduler accepts, and the facts its heuristics need: a segment that is one
// scan or sort (ScanOp, ArgsortOp, TopKOp) reading a segment input and writing segment outputs,
// with a constant init / k. Anything else — pointwise work before or after the op, a second op —
// is refused with a reason naming it, so the segmenter gives the op a segment of its own.
//
// Invariant: a fusion accepted here has exactly one tensor expression, and its input tensor is
// fusion input `inputPosition`.

import type { ArgsortOp, DataType, Fusion, ScanOp, TensorView, TopKOp } from '@tsfuser/fusion-ir';
import type { RuntimeInfo, TensorInputInfo } from '../runtime-info.js';

/** The greedy scheduler's refusal of a fusion without a scan or sort (dumps leave it out: it explains nothing). */
export const NO_SCAN_OR_SORT = 'the fusion has no scan or sort (cumsum, cumprod, cummin, cummax, argsort, topk)';

/** Rows longer than this do not fit the shared-memory bitonic sort. */
export const MAX_BITONIC_ROW = 4096;
/** topk with k up to this uses one warp per row (lists in registers). */
export const MAX_WARP_TOPK = 16;

const SUPPORTED: readonly DataType[] = ['Float', 'Double', 'Half', 'BFloat16', 'Int32', 'Int'];

export type GreedyOp = ScanOp | ArgsortOp | TopKOp;

export interface GreedyFacts {
  op: GreedyOp;
  input: TensorView;
  inputPosition: number;
  info: TensorInputInfo;
  rowLength: number;
  rows: number;
  /** topk's k (a constant); null for the other ops. */
  k: number | null;
}

function opName(e: GreedyOp): string {
  switch (e.kind) {
    case 'ScanOp':
      return e.opType === 'add' ? 'cumsum' : e.opType === 'mul' ? 'cumprod' : e.opType === 'max' ? 'cummax' : 'cummin';
    case 'ArgsortOp':
      return 'argsort';
    case 'TopKOp':
      return 'topk';
    default: {
      const unreachable: never = e;
      throw new Error(`unknown greedy op ${String(unreachable)}`);
    }
  }
}

export function greedyOpName(e: GreedyOp): string {
  return opName(e);
}

/** The facts, or the reason the greedy scheduler refuses the fusion. */
export function analyzeGreedy(fusion: Fusion, runtimeInfo: RuntimeInfo): GreedyFacts | string {
  const tensorExprs = fusion.exprs().filter((e) => e.outputs.some((o) => o.kind === 'tensorView'));
  const ops = tensorExprs.filter((e): e is GreedyOp => e.kind === 'ScanOp' || e.kind === 'ArgsortOp' || e.kind === 'TopKOp');
  if (ops.length === 0) return NO_SCAN_OR_SORT;
  const op = ops[0] as GreedyOp;
  const out = op.outputs[0] as TensorView;
  if (ops.length > 1) return `the greedy scheduler takes one scan or sort per segment; T${out.name} and T${(ops[1]?.outputs[0] as TensorView).name} are two`;
  const other = tensorExprs.find((e) => e !== op);
  if (other !== undefined) {
    const o = other.outputs[0] as TensorView;
    return `${other.kind} producing T${o.name} is not part of a ${opName(op)} kernel (the greedy scheduler takes the scan or sort alone)`;
  }
  const input = op.inputs[0] as TensorView;
  const inputPosition = fusion.inputs.indexOf(input);
  if (inputPosition < 0) return `the ${opName(op)} input T${input.name} is not a segment input`;
  for (const o of fusion.outputs) {
    if (!op.outputs.includes(o)) return `output ${o.name} is not an output of the ${opName(op)}`;
  }
  const info = runtimeInfo.inputs[inputPosition];
  if (info === undefined || info.kind !== 'tensor') return `input ${inputPosition} (T${input.name}) is not described as a tensor`;
  if (!SUPPORTED.includes(input.dtype)) return `${opName(op)} of ${input.dtype} is not supported by the greedy scheduler (${SUPPORTED.join(', ')})`;
  if (info.sizes.length !== input.rank()) return `input T${input.name} has rank ${input.rank()} but was given ${info.sizes.length} sizes`;
  const rowLength = info.sizes[op.dim] as number;
  const numel = info.sizes.reduce((a, b) => a * b, 1);
  if (numel === 0) return `T${input.name} has no elements (nothing to compute)`;
  const rows = numel / rowLength;
  let k: number | null = null;
  switch (op.kind) {
    case 'ScanOp':
      if (op.init.constNumber() === null && op.init.value === null) return `${opName(op)} producing T${out.name}: init is not a constant`;
      break;
    case 'ArgsortOp':
      if (rowLength > MAX_BITONIC_ROW) return `argsort producing T${out.name}: rows of ${rowLength} elements do not fit the shared-memory sort (at most ${MAX_BITONIC_ROW})`;
      break;
    case 'TopKOp': {
      const kc = op.k().constNumber();
      if (kc === null) return `topk producing T${out.name}: k is not a constant`;
      if (kc > rowLength) return `topk producing T${out.name}: k = ${kc} is larger than dim ${op.dim} (size ${rowLength})`;
      if (kc === 0) return `topk producing T${out.name}: k = 0 (nothing to compute)`;
      if (kc > MAX_WARP_TOPK && rowLength > MAX_BITONIC_ROW) {
        return `topk producing T${out.name}: k = ${kc} > ${MAX_WARP_TOPK} over rows of ${rowLength} elements (more than the shared-memory sort's ${MAX_BITONIC_ROW})`;
      }
      k = kc;
      break;
    }
    default: {
      const unreachable: never = op;
      throw new Error(`unknown greedy op ${String(unreachable)}`);
    }
  }
  return { op, input, inputPosition, info, rowLength, rows, k };
}
