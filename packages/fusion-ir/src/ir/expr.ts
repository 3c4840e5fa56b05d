// Expressions of the Fusion IR. The set is closed: `Expr` is a discriminated union on `kind`, and
// every consumer switches over it exhaustively. Constructing an Expr registers it with its
// fusion: its outputs get it as definition and its inputs list it among their uses.
//
// Tensor exprs (UnaryOp … IotaOp) say what is computed; IterDomain exprs (Split, Merge) only
// describe how loop domains derive from logical ones.

import type { DataType } from './data-type.js';
import type { Fusion } from './fusion.js';
import type { IterDomain } from './iter-domain.js';
import type { BinaryOpType, ReductionOpType, RngOpType, TernaryOpType, UnaryOpType } from './op-types.js';
import type { ScanOpType } from './op-types.js';
import type { Scalar } from './scalar.js';
import type { TensorView } from './tensor-view.js';
import type { Val } from './val.js';
import type { EmbeddingFwdOp, GatherOp, IndexPutAccumulateOp, IndexSelectOp, ScatterOp, SelectOp } from './indexing-exprs.js';
import type { GroupedMmaOp, LinearOp, MatmulOp, ScaledMmaOp } from './matmul-exprs.js';
import type { SdpaBwdOp, SdpaFwdOp } from './attention-exprs.js';

export type Expr =
  | UnaryOp
  | BinaryOp
  | TernaryOp
  | ReductionOp
  | WelfordOp
  | BroadcastOp
  | SqueezeOp
  | ExpandOp
  | ViewOp
  | LoadStoreOp
  | SliceOp
  | PadOp
  | CatOp
  | FullOp
  | IotaOp
  | RNGOp
  | SelectOp
  | IndexSelectOp
  | GatherOp
  | ScatterOp
  | IndexPutAccumulateOp
  | EmbeddingFwdOp
  | ScanOp
  | ArgsortOp
  | TopKOp
  | MatmulOp
  | LinearOp
  | ScaledMmaOp
  | GroupedMmaOp
  | SdpaFwdOp
  | SdpaBwdOp
  | Split
  | Merge;

export type ExprKind = Expr['kind'];

/** Shared by every Expr class (also those in indexing-exprs.ts). */
export abstract class ExprBase {
  readonly name: number;

  constructor(
    readonly fusion: Fusion,
    readonly inputs: readonly Val[],
    readonly outputs: readonly Val[],
  ) {
    this.name = fusion.registerExpr(this as unknown as Expr);
  }

  /** Output 0, the value most exprs produce. */
  out(): Val {
    const o = this.outputs[0];
    if (o === undefined) throw new Error('expression has no outputs');
    return o;
  }

  in(): Val {
    const i = this.inputs[0];
    if (i === undefined) throw new Error('expression has no inputs');
    return i;
  }
}

export class UnaryOp extends ExprBase {
  readonly kind = 'UnaryOp' as const;
  constructor(fusion: Fusion, readonly op: UnaryOpType, out: Val, input: Val) {
    super(fusion, [input], [out]);
  }
}

export class BinaryOp extends ExprBase {
  readonly kind = 'BinaryOp' as const;
  constructor(fusion: Fusion, readonly op: BinaryOpType, out: Val, lhs: Val, rhs: Val) {
    super(fusion, [lhs, rhs], [out]);
  }
  lhs(): Val {
    return this.inputs[0] as Val;
  }
  rhs(): Val {
    return this.inputs[1] as Val;
  }
}

export class TernaryOp extends ExprBase {
  readonly kind = 'TernaryOp' as const;
  constructor(fusion: Fusion, readonly op: TernaryOpType, out: Val, a: Val, b: Val, c: Val) {
    super(fusion, [a, b, c], [out]);
  }
}

/** Reduces the reduction IDs of the output's logical domain. */
export class ReductionOp extends ExprBase {
  readonly kind = 'ReductionOp' as const;
  constructor(
    fusion: Fusion,
    readonly op: ReductionOpType,
    readonly init: Scalar,
    out: TensorView,
    input: TensorView,
    /** All threads get the result (persistent normalization) instead of thread 0 only. */
    readonly allreduce = false,
  ) {
    super(fusion, [input], [out]);
  }
}

/**
 * Welford mean/variance over the output's reduction IDs. Outputs: avg, var_sum (M2) and N.
 * Inputs: the tensor being reduced, or for a merge of partial results (rFactor), the partial
 * avg, var_sum and N tensors.
 */
export class WelfordOp extends ExprBase {
  readonly kind = 'WelfordOp' as const;
  constructor(
    fusion: Fusion,
    outs: { avg: TensorView; varSum: TensorView; n: TensorView },
    ins: { avg: TensorView; varSum: TensorView | null; n: TensorView | Scalar },
  ) {
    super(
      fusion,
      ins.varSum === null ? [ins.avg, ins.n] : [ins.avg, ins.varSum, ins.n],
      [outs.avg, outs.varSum, outs.n],
    );
  }
  outAvg(): TensorView {
    return this.outputs[0] as TensorView;
  }
  outVarSum(): TensorView {
    return this.outputs[1] as TensorView;
  }
  outN(): TensorView {
    return this.outputs[2] as TensorView;
  }
  inAvg(): TensorView {
    return this.inputs[0] as TensorView;
  }
  /** Partial M2 input when merging partial states; null when reducing raw values. */
  inVarSum(): TensorView | null {
    return this.inputs.length === 3 ? (this.inputs[1] as TensorView) : null;
  }
  inN(): TensorView | Scalar {
    return this.inputs[this.inputs.length - 1] as TensorView | Scalar;
  }
}

/** Inserts broadcast dims: flags[i] says whether output logical dim i is a new broadcast. */
export class BroadcastOp extends ExprBase {
  readonly kind = 'BroadcastOp' as const;
  constructor(fusion: Fusion, out: TensorView, input: TensorView, readonly isBroadcastDim: readonly boolean[]) {
    super(fusion, [input], [out]);
  }
}

/** Removes size-1 dims: flags[i] says whether input logical dim i is dropped. */
export class SqueezeOp extends ExprBase {
  readonly kind = 'SqueezeOp' as const;
  constructor(fusion: Fusion, out: TensorView, input: TensorView, readonly isSqueezeDim: readonly boolean[]) {
    super(fusion, [input], [out]);
  }
}

/** Expands broadcast dims to the given extents (no data is copied: stride 0). */
export class ExpandOp extends ExprBase {
  readonly kind = 'ExpandOp' as const;
  constructor(fusion: Fusion, out: TensorView, input: TensorView, extents: readonly Scalar[]) {
    super(fusion, [input, ...extents], [out]);
  }
  expandedExtents(): Scalar[] {
    return this.inputs.slice(1) as Scalar[];
  }
}

/** Reshape: the output's root domain mirrors the input; Split/Merge lead root → logical. */
export class ViewOp extends ExprBase {
  readonly kind = 'ViewOp' as const;
  constructor(
    fusion: Fusion,
    out: TensorView,
    input: TensorView,
    readonly originalSizes: readonly Scalar[],
    readonly newSizes: readonly Scalar[],
  ) {
    super(fusion, [input], [out]);
  }
}

/**
 * A copy (nvFuser's LoadStoreOp `Set`). Also expresses permute: the output's root domain follows
 * the input's dims and its logical domain is the permuted root.
 */
export class LoadStoreOp extends ExprBase {
  readonly kind = 'LoadStoreOp' as const;
  constructor(
    fusion: Fusion,
    readonly opType: 'Set' | 'SegmenterSet',
    out: TensorView,
    input: TensorView,
    /** For permute: out logical dim i reads input dim permutation[i]. Null for a plain copy. */
    readonly permutation: readonly number[] | null = null,
  ) {
    super(fusion, [input], [out]);
  }
}

export interface SliceRange {
  start: Scalar;
  stop: Scalar;
  step: Scalar;
}

export class SliceOp extends ExprBase {
  readonly kind = 'SliceOp' as const;
  constructor(fusion: Fusion, out: TensorView, input: TensorView, readonly ranges: readonly SliceRange[]) {
    super(
      fusion,
      [input, ...ranges.flatMap((r) => [r.start, r.stop, r.step])],
      [out],
    );
  }
}

/** Pads with `value`; widths are [left, right] pairs starting from the innermost dim (torch.nn.functional.pad order). */
export class PadOp extends ExprBase {
  readonly kind = 'PadOp' as const;
  constructor(
    fusion: Fusion,
    out: TensorView,
    input: TensorView,
    readonly widths: readonly Scalar[],
    readonly value: Scalar,
  ) {
    super(fusion, [input, value, ...widths], [out]);
  }
}

export class CatOp extends ExprBase {
  readonly kind = 'CatOp' as const;
  constructor(fusion: Fusion, out: TensorView, inputs: readonly TensorView[], readonly axis: number) {
    super(fusion, inputs, [out]);
  }
}

export class FullOp extends ExprBase {
  readonly kind = 'FullOp' as const;
  constructor(fusion: Fusion, out: TensorView, readonly fillValue: Scalar, readonly shape: readonly Scalar[]) {
    super(fusion, [fillValue, ...shape], [out]);
  }
}

export class IotaOp extends ExprBase {
  readonly kind = 'IotaOp' as const;
  constructor(
    fusion: Fusion,
    out: TensorView,
    readonly length: Scalar,
    readonly start: Scalar,
    readonly step: Scalar,
    readonly dtype: DataType,
  ) {
    super(fusion, [length, start, step], [out]);
  }
}

/**
 * A tensor of random numbers (nvFuser's RNGOp): element i of the output's logical domain, in
 * row-major order, is drawn from Philox-4x32-10 keyed by `seed` with counter
 * (`offset`, i / m) and word i % m (m = 2 for Double, 4 otherwise); see eval/random.ts.
 * Inputs: the output's extents, the parameters (low/high or mean/std, Double), seed, offset.
 * `seeded` says whether the user gave rng_seed/rng_offset (printing only: without them the op
 * uses seed 0 and offset = its ordinal among the fusion's RNG ops).
 */
export class RNGOp extends ExprBase {
  readonly kind = 'RNGOp' as const;
  constructor(
    fusion: Fusion,
    readonly rngOp: RngOpType,
    out: TensorView,
    readonly dtype: DataType,
    readonly shape: readonly Scalar[],
    readonly parameters: readonly Scalar[],
    readonly seed: Scalar,
    readonly offset: Scalar,
    readonly seeded: boolean,
  ) {
    super(fusion, [...shape, ...parameters, seed, offset], [out]);
  }
}

/**
 * An inclusive scan along logical dim `dim` (nvFuser's ScanOp: cumsum, cumprod, cummin, cummax):
 * out[…, i, …] = init ⊕ in[…, 0, …] ⊕ … ⊕ in[…, i, …]. The output has the input's shape and dtype.
 */
export class ScanOp extends ExprBase {
  readonly kind = 'ScanOp' as const;
  constructor(fusion: Fusion, readonly opType: ScanOpType, readonly init: Scalar, out: TensorView, input: TensorView, readonly dim: number) {
    super(fusion, [input], [out]);
  }
}

/**
 * The indices (Int) that sort the input along `dim` (nvFuser's ArgsortOp). NaN sorts above every
 * number, as in PyTorch; equal keys keep their input order (tsfuser always sorts stably, which
 * is one valid result of a non-stable sort).
 */
export class ArgsortOp extends ExprBase {
  readonly kind = 'ArgsortOp' as const;
  constructor(fusion: Fusion, out: TensorView, input: TensorView, readonly dim: number, readonly descending: boolean, readonly stable: boolean) {
    super(fusion, [input], [out]);
  }
}

/**
 * The k largest (or smallest) elements along `dim` and their Int indices (nvFuser's TopKOp).
 * Inputs: the tensor and k (an Int scalar); outputs: values (input dtype) and indices, whose
 * dim `dim` has extent k. Results are always in sorted order, ties by lower index first.
 */
export class TopKOp extends ExprBase {
  readonly kind = 'TopKOp' as const;
  constructor(
    fusion: Fusion,
    outs: { values: TensorView; indices: TensorView },
    input: TensorView,
    k: Scalar,
    readonly dim: number,
    readonly largest: boolean,
    readonly sorted: boolean,
  ) {
    super(fusion, [input, k], [outs.values, outs.indices]);
  }
  k(): Scalar {
    return this.inputs[1] as Scalar;
  }
  outValues(): TensorView {
    return this.outputs[0] as TensorView;
  }
  outIndices(): TensorView {
    return this.outputs[1] as TensorView;
  }
}

/**
 * Split `in` by `factor`. Inner split: inner extent = factor, outer = ceilDiv(in, factor).
 * Outer split: outer extent = factor, inner = ceilDiv(in, factor).
 * Backward index relation: in = outerIndex * inner.extent + innerIndex.
 */
export class Split extends ExprBase {
  readonly kind = 'Split' as const;
  constructor(
    fusion: Fusion,
    outer: IterDomain,
    inner: IterDomain,
    input: IterDomain,
    readonly factor: Scalar,
    readonly innerSplit: boolean,
  ) {
    super(fusion, [input], [outer, inner]);
  }
  outer(): IterDomain {
    return this.outputs[0] as IterDomain;
  }
  inner(): IterDomain {
    return this.outputs[1] as IterDomain;
  }
  override in(): IterDomain {
    return this.inputs[0] as IterDomain;
  }
}

/** Merge outer and inner into one ID of extent outer*inner. Backward: outer = out / inner.extent, inner = out % inner.extent. */
export class Merge extends ExprBase {
  readonly kind = 'Merge' as const;
  constructor(fusion: Fusion, out: IterDomain, outer: IterDomain, inner: IterDomain) {
    super(fusion, [outer, inner], [out]);
  }
  outer(): IterDomain {
    return this.inputs[0] as IterDomain;
  }
  inner(): IterDomain {
    return this.inputs[1] as IterDomain;
  }
  override out(): IterDomain {
    return this.outputs[0] as IterDomain;
  }
}

export function isIterDomainExpr(e: Expr): e is Split | Merge {
  return e.kind === 'Split' || e.kind === 'Merge';
}
