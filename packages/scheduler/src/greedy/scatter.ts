// The greedy scheduler's scatter segments (nvFuser's greedy scheduler takes ScatterOp too):
// a segment that is one scatter or index_put_accumulate reading segment inputs only. Its kernel
// writes into a buffer that already holds a copy of `self` / `acc`: the launch plan makes that
// copy (a pointwise copy kernel) right before the scatter kernel (`scatterInitialization` says
// which input initializes which output). The kernel takes one update point per thread — an
// element of the index (scatter) or of the value (index_put_accumulate) — checks the index
// value (outside [0, size) traps, as PyTorch's device-side check), and stores (scatter) or
// atomically adds (index_put_accumulate) into the output.
//
// Invariant: a fusion accepted here has exactly one tensor expression, a ScatterOp or
// IndexPutAccumulateOp whose tensor inputs are all segment inputs and whose output is the only
// segment output; every size check the reference evaluator makes has been made here, so the
// kernel never writes outside the output or reads outside an input.

import { castTo, type DataType, type Fusion, type IndexPutAccumulateOp, type Scalar, type ScalarValue, type ScatterOp, type TensorView } from '@tsfuser/fusion-ir';
import type { LaunchDims } from '../heuristic-params.js';
import { chooseIndexType } from '../index-type.js';
import type { RuntimeInfo, TensorInputInfo } from '../runtime-info.js';
import type { GreedyParams } from './params.js';

export type ScatterLikeOp = ScatterOp | IndexPutAccumulateOp;

/** Dtypes the scatter kernel stores (scatter) and atomically adds (index_put_accumulate). */
const SCATTER_DTYPES: readonly DataType[] = ['Float', 'Double', 'Half', 'BFloat16', 'Int32', 'Int', 'Bool'];
const ACCUMULATE_DTYPES: readonly DataType[] = ['Float', 'Double', 'Half', 'BFloat16', 'Int32', 'Int'];

/** Threads per block of the scatter kernel (one update point per thread). */
export const SCATTER_THREADS = 256;

export interface ScatterFacts {
  op: ScatterLikeOp;
  /** Segment input positions of self / acc, the index and the tensor src / value (null: a scalar src). */
  selfPosition: number;
  indexPosition: number;
  srcPosition: number | null;
  outputPosition: number;
  /** Sizes the kernel iterates: the index's (scatter) or the value's (index_put_accumulate). */
  points: number[];
  tensors: TensorInputInfo[];
}

function opName(op: ScatterLikeOp): 'scatter' | 'index_put_accumulate' {
  return op.kind === 'ScatterOp' ? 'scatter' : 'index_put_accumulate';
}

/** The scatter-like expression of a fusion, if it has one. */
export function scatterOpOf(fusion: Fusion): ScatterLikeOp | null {
  return fusion.exprs().find((e): e is ScatterLikeOp => e.kind === 'ScatterOp' || e.kind === 'IndexPutAccumulateOp') ?? null;
}

function tensorInfo(fusion: Fusion, runtimeInfo: RuntimeInfo, tv: TensorView, what: string, op: string): { position: number; info: TensorInputInfo } | string {
  const position = fusion.inputs.indexOf(tv);
  if (position < 0) return `the ${op} ${what} T${tv.name} is not a segment input`;
  const info = runtimeInfo.inputs[position];
  if (info === undefined || info.kind !== 'tensor') return `input ${position} (T${tv.name}) is not described as a tensor`;
  if (info.sizes.length !== tv.rank()) return `input T${tv.name} has rank ${tv.rank()} but was given ${info.sizes.length} sizes`;
  return { position, info };
}

/** The facts, or the reason the greedy scheduler refuses the fusion as a scatter segment. */
export function analyzeScatter(fusion: Fusion, runtimeInfo: RuntimeInfo, op: ScatterLikeOp): ScatterFacts | string {
  const name = opName(op);
  const out = op.outputs[0] as TensorView;
  const where = `${name} producing T${out.name}`;
  const other = fusion.exprs().find((e) => e !== op && e.outputs.some((o) => o.kind === 'tensorView'));
  if (other !== undefined) {
    return `${other.kind} producing T${(other.outputs[0] as TensorView).name} is not part of a ${name} kernel (the greedy scheduler takes the ${name} alone)`;
  }
  if (fusion.outputs.length !== 1 || fusion.outputs[0] !== out) return `${where}: the ${name} result must be the segment's only output`;
  const allowed = op.kind === 'ScatterOp' ? SCATTER_DTYPES : ACCUMULATE_DTYPES;
  if (!allowed.includes(out.dtype)) return `${where}: ${out.dtype} is not supported by the scatter kernel (${allowed.join(', ')})`;
  const self = op.kind === 'ScatterOp' ? op.selfTv() : op.accTv();
  const selfInfo = tensorInfo(fusion, runtimeInfo, self, op.kind === 'ScatterOp' ? 'input' : 'acc', name);
  if (typeof selfInfo === 'string') return selfInfo;
  const indexInfo = tensorInfo(fusion, runtimeInfo, op.indexTv(), 'index', name);
  if (typeof indexInfo === 'string') return indexInfo;
  if (op.indexTv().dtype !== 'Int' && op.indexTv().dtype !== 'Int32') return `${where}: the index T${op.indexTv().name} is ${op.indexTv().dtype} (Int or Int32 expected)`;
  const srcVal = op.kind === 'ScatterOp' ? op.src() : op.valueTv();
  let srcInfo: { position: number; info: TensorInputInfo } | null = null;
  if (srcVal.kind === 'tensorView') {
    const r = tensorInfo(fusion, runtimeInfo, srcVal, op.kind === 'ScatterOp' ? 'src' : 'value', name);
    if (typeof r === 'string') return r;
    srcInfo = r;
  } else if (scatterScalarSource(fusion, srcVal, out.dtype) === null) {
    return `${where}: the scalar src is neither a constant nor a segment input of ${out.dtype}`;
  }
  const selfSizes = selfInfo.info.sizes;
  const indexSizes = indexInfo.info.sizes;
  const dims = (s: readonly number[]): string => `[${s.join(', ')}]`;
  let points: number[];
  if (op.kind === 'ScatterOp') {
    for (let d = 0; d < indexSizes.length; d += 1) {
      if (d !== op.dim && (indexSizes[d] as number) > (selfSizes[d] as number)) {
        return `${where}: index sizes ${dims(indexSizes)} do not fit [${selfSizes.join(', ')}] at dim ${d}`;
      }
      if (srcInfo !== null && (indexSizes[d] as number) > (srcInfo.info.sizes[d] as number)) {
        return `${where}: index sizes ${dims(indexSizes)} do not fit the src sizes ${dims(srcInfo.info.sizes)} at dim ${d}`;
      }
    }
    points = [...indexSizes];
  } else {
    const value = srcInfo as { info: TensorInputInfo };
    const expected = [indexSizes[0] as number, ...selfSizes.slice(1)];
    if (value.info.sizes.length !== expected.length || value.info.sizes.some((s, d) => s !== expected[d] && s !== 1)) {
      return `${where}: value sizes ${dims(value.info.sizes)} must be ${dims(expected)}`;
    }
    points = expected;
  }
  const tensors = [selfInfo.info, indexInfo.info, ...(srcInfo === null ? [] : [srcInfo.info])];
  return {
    op,
    selfPosition: selfInfo.position,
    indexPosition: indexInfo.position,
    srcPosition: srcInfo === null ? null : srcInfo.position,
    outputPosition: 0,
    points,
    tensors,
  };
}

function launch(gdimx: number, bdimx: number): LaunchDims {
  return { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy: 1, bdimz: 1 };
}

/** One update point per thread, SCATTER_THREADS threads per block (at least one block). */
export function computeScatterHeuristics(f: ScatterFacts): GreedyParams {
  const out = f.op.outputs[0] as TensorView;
  const count = f.points.reduce((a, b) => a * b, 1);
  const selfInfo = f.tensors[0] as TensorInputInfo;
  const indexType = chooseIndexType([...f.tensors, { sizes: f.points, strides: f.points.map(() => 1) }]);
  const threads = SCATTER_THREADS;
  return {
    schedulerType: 'greedy',
    tag: 'Greedy heuristics',
    op: opName(f.op),
    dim: f.op.kind === 'ScatterOp' ? f.op.dim : 0,
    rank: selfInfo.sizes.length,
    dtype: out.dtype,
    rows: count,
    rowLength: 1,
    kernel: { kind: 'scatter', accumulate: f.op.kind === 'IndexPutAccumulateOp', threads },
    valuesOutput: f.outputPosition,
    indicesOutput: null,
    indexType,
    lparams: launch(Math.max(1, Math.ceil(count / threads)), threads),
    sharedMemBytes: 0,
  };
}

/**
 * A scatter's scalar src as the kernel reads it: a constant (a cast of a constant folded, as the
 * definition's `scatter(x, i, 0.5, dim)` casts its Double 0.5 to x's dtype) or a segment input —
 * of the output's dtype, or cast to it (nvFuser's test_scatter_scalar_src: a Double scalar input
 * scattered into a Float tensor; the kernel converts the argument, `scalar.dtype` says from what);
 * null when it is neither.
 */
export function scatterScalarSource(fusion: Fusion, src: Scalar, dtype: DataType): { kind: 'constant'; value: ScalarValue } | { kind: 'input'; scalar: Scalar } | null {
  if (src.value !== null) return { kind: 'constant', value: src.value };
  const def = src.definition;
  if (def !== null && def.kind === 'UnaryOp' && def.op === 'cast' && src.dtype === dtype) {
    const inner = def.inputs[0];
    if (inner !== undefined && inner.kind === 'scalar' && inner.value !== null) return { kind: 'constant', value: castTo(inner.value, src.dtype) };
    if (inner !== undefined && inner.kind === 'scalar' && fusion.inputs.includes(inner) && isRealScalarType(inner.dtype)) return { kind: 'input', scalar: inner };
  }
  if (fusion.inputs.includes(src) && src.dtype === dtype) return { kind: 'input', scalar: src };
  return null;
}

/** Scalar argument dtypes a scatter kernel converts with a C++ cast (complex and fp8 are not). */
function isRealScalarType(dtype: DataType): boolean {
  return dtype === 'Bool' || dtype === 'Int' || dtype === 'Int32' || dtype === 'Float' || dtype === 'Double';
}

/**
 * For a scatter segment: which segment input the output starts as a copy of (the launch plan
 * copies it into the output buffer before the kernel runs); null for any other segment.
 */
export function scatterInitialization(fusion: Fusion): { input: number; output: number } | null {
  const op = scatterOpOf(fusion);
  if (op === null) return null;
  const self = op.kind === 'ScatterOp' ? op.selfTv() : op.accTv();
  const input = fusion.inputs.indexOf(self);
  const output = fusion.outputs.indexOf(op.outputs[0] as TensorView);
  return input < 0 || output < 0 ? null : { input, output };
}
