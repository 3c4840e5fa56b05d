// Matrix-product expressions of the Fusion IR (nvFuser's MatmulOp, LinearOp, ScaledMmaOp and
// GroupedMmaOp, csrc/ir/composite_nodes.h). They are opaque to the generated-kernel schedulers:
// a GEMM library (cuBLASLt) or the reference evaluator computes them whole. Inputs are ordered
// as nvFuser orders them; optional operands are present only when given (their presence is kept
// as a field, so the printer and the evaluator never guess from input counts).
// The ops that build them and their shape rules: ops/matmul.ts; their values: eval/matmul.ts.
//
// Invariant: an output's logical domain is nvFuser's — the result dims, then one Reduction ID
// for K when K is not a broadcast (MatmulOp, LinearOp, ScaledMmaOp).

import type { Fusion } from './fusion.js';
import { ExprBase } from './expr.js';
import type { TensorView } from './tensor-view.js';

/** torch.matmul(a, b) for every rank case (dot, mv, vm, mm, batched with broadcast batch dims). */
export class MatmulOp extends ExprBase {
  readonly kind = 'MatmulOp' as const;
  constructor(fusion: Fusion, out: TensorView, a: TensorView, b: TensorView) {
    super(fusion, [a, b], [out]);
  }
  inA(): TensorView {
    return this.inputs[0] as TensorView;
  }
  inB(): TensorView {
    return this.inputs[1] as TensorView;
  }
  override out(): TensorView {
    return this.outputs[0] as TensorView;
  }
}

/** F.linear(a, weight, bias): a [..., K] · weight [N, K]ᵀ (+ bias [N]); a 1-D weight [K] drops N. */
export class LinearOp extends ExprBase {
  readonly kind = 'LinearOp' as const;
  readonly hasBias: boolean;
  constructor(fusion: Fusion, out: TensorView, a: TensorView, weight: TensorView, bias: TensorView | null) {
    super(fusion, bias === null ? [a, weight] : [a, weight, bias], [out]);
    this.hasBias = bias !== null;
  }
  inA(): TensorView {
    return this.inputs[0] as TensorView;
  }
  inB(): TensorView {
    return this.inputs[1] as TensorView;
  }
  bias(): TensorView | null {
    return this.hasBias ? (this.inputs[2] as TensorView) : null;
  }
  override out(): TensorView {
    return this.outputs[0] as TensorView;
  }
}

/**
 * torch._scaled_mm with per-tensor scales: out = round_to_dtype((mat1 · scale1) @ (mat2 · scale2)
 * (+ bias)). Inputs: mat1, mat2, scale1, scale2, then bias when given (nvFuser's order; its alpha /
 * beta / block-scaled outputs are refused by the op).
 */
export class ScaledMmaOp extends ExprBase {
  readonly kind = 'ScaledMmaOp' as const;
  constructor(fusion: Fusion, out: TensorView, mat1: TensorView, mat2: TensorView, scale1: TensorView, scale2: TensorView, bias: TensorView | null) {
    super(fusion, bias === null ? [mat1, mat2, scale1, scale2] : [mat1, mat2, scale1, scale2, bias], [out]);
  }
  matrix1(): TensorView {
    return this.inputs[0] as TensorView;
  }
  matrix2(): TensorView {
    return this.inputs[1] as TensorView;
  }
  scale1(): TensorView {
    return this.inputs[2] as TensorView;
  }
  scale2(): TensorView {
    return this.inputs[3] as TensorView;
  }
  bias(): TensorView | null {
    return (this.inputs[4] as TensorView | undefined) ?? null;
  }
  override out(): TensorView {
    return this.outputs[0] as TensorView;
  }
}

/**
 * torch._grouped_mm(mat1, mat2, offs): groups split the dim that the offsets tensor (Int32,
 * cumulative group ends) cuts — M for 2d×3d, N for 3d×2d, K for 2d×2d (output [G, M, N]); 3d×3d
 * is a plain batched product without offsets.
 */
export class GroupedMmaOp extends ExprBase {
  readonly kind = 'GroupedMmaOp' as const;
  constructor(fusion: Fusion, out: TensorView, mat1: TensorView, mat2: TensorView, offsets: TensorView | null) {
    super(fusion, offsets === null ? [mat1, mat2] : [mat1, mat2, offsets], [out]);
  }
  matrix1(): TensorView {
    return this.inputs[0] as TensorView;
  }
  matrix2(): TensorView {
    return this.inputs[1] as TensorView;
  }
  offsets(): TensorView | null {
    return (this.inputs[2] as TensorView | undefined) ?? null;
  }
  override out(): TensorView {
    return this.outputs[0] as TensorView;
  }
}

export type MatmulExpr = MatmulOp | LinearOp | ScaledMmaOp | GroupedMmaOp;
