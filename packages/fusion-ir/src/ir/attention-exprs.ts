// Attention expressions of the Fusion IR (nvFuser's SdpaFwdOp and SdpaBwdOp,
// csrc/ir/composite_nodes.h): scaled dot-product flash attention, forward and backward, computed
// whole by an attention kernel or the reference evaluator. Inputs in nvFuser's order: the
// tensors, dropout_p and is_causal (always present: defaults 0.0 and false are materialized),
// then scale, bias and mask only when given — the fields say which are present.
// The ops: ops/attention.ts; their values: eval/attention.ts (the dropout definition there is
// the one the GPU kernel reproduces bit for bit).
//
// Invariant: outputs are (output, logsumexp, philox_seed, philox_offset) and (grad_query,
// grad_key, grad_value), in that order.

import type { Fusion } from './fusion.js';
import { ExprBase } from './expr.js';
import type { Scalar } from './scalar.js';
import type { TensorView } from './tensor-view.js';

export interface SdpaFwdOutputs {
  output: TensorView;
  logsumexp: TensorView;
  philoxSeed: TensorView;
  philoxOffset: TensorView;
}

export interface SdpaFwdInputs {
  query: TensorView;
  key: TensorView;
  value: TensorView;
  bias: TensorView | null;
  mask: TensorView | null;
  dropoutP: Scalar;
  isCausal: Scalar;
  scale: Scalar | null;
}

/**
 * The forward. `rngSeed()` / `rngOffset()` are the Int scalars its dropout draws from (the last
 * two inputs: constants — seed 0 and the fusion's random-op ordinal, as unseeded RNG ops — or
 * runtime scalars such as a TorchScript graph's generator inputs); they are written to
 * philox_seed = [seed, offset] (UInt64 [2], PyTorch ≥ 2.7's rng_state) and philox_offset
 * (UInt64, 0-dim, unused) for the backward.
 */
export class SdpaFwdOp extends ExprBase {
  readonly kind = 'SdpaFwdOp' as const;
  readonly hasScale: boolean;
  readonly hasBias: boolean;
  readonly hasMask: boolean;
  constructor(fusion: Fusion, outs: SdpaFwdOutputs, ins: SdpaFwdInputs, rngSeed: Scalar, rngOffset: Scalar) {
    super(
      fusion,
      [
        ins.query,
        ins.key,
        ins.value,
        ins.dropoutP,
        ins.isCausal,
        ...(ins.scale === null ? [] : [ins.scale]),
        ...(ins.bias === null ? [] : [ins.bias]),
        ...(ins.mask === null ? [] : [ins.mask]),
        rngSeed,
        rngOffset,
      ],
      [outs.output, outs.logsumexp, outs.philoxSeed, outs.philoxOffset],
    );
    this.hasScale = ins.scale !== null;
    this.hasBias = ins.bias !== null;
    this.hasMask = ins.mask !== null;
  }
  query(): TensorView {
    return this.inputs[0] as TensorView;
  }
  key(): TensorView {
    return this.inputs[1] as TensorView;
  }
  value(): TensorView {
    return this.inputs[2] as TensorView;
  }
  dropoutP(): Scalar {
    return this.inputs[3] as Scalar;
  }
  isCausal(): Scalar {
    return this.inputs[4] as Scalar;
  }
  scale(): Scalar | null {
    return this.hasScale ? (this.inputs[5] as Scalar) : null;
  }
  bias(): TensorView | null {
    return this.hasBias ? (this.inputs[5 + Number(this.hasScale)] as TensorView) : null;
  }
  mask(): TensorView | null {
    return this.hasMask ? (this.inputs[5 + Number(this.hasScale) + Number(this.hasBias)] as TensorView) : null;
  }
  rngSeed(): Scalar {
    return this.inputs[this.inputs.length - 2] as Scalar;
  }
  rngOffset(): Scalar {
    return this.inputs[this.inputs.length - 1] as Scalar;
  }
  sdpaInputs(): SdpaFwdInputs {
    return { query: this.query(), key: this.key(), value: this.value(), bias: this.bias(), mask: this.mask(), dropoutP: this.dropoutP(), isCausal: this.isCausal(), scale: this.scale() };
  }
  sdpaOutputs(): SdpaFwdOutputs {
    const [output, logsumexp, philoxSeed, philoxOffset] = this.outputs as [TensorView, TensorView, TensorView, TensorView];
    return { output, logsumexp, philoxSeed, philoxOffset };
  }
}

export interface SdpaBwdInputs {
  gradOutput: TensorView;
  query: TensorView;
  key: TensorView;
  value: TensorView;
  output: TensorView;
  logsumexp: TensorView;
  dropoutP: Scalar;
  isCausal: Scalar;
  philoxSeed: TensorView;
  philoxOffset: TensorView;
  scale: Scalar | null;
}

export interface SdpaBwdOutputs {
  gradQuery: TensorView;
  gradKey: TensorView;
  gradValue: TensorView;
}

/** The backward: recomputes the attention probabilities from logsumexp (and the dropout mask from philox_seed). */
export class SdpaBwdOp extends ExprBase {
  readonly kind = 'SdpaBwdOp' as const;
  readonly hasScale: boolean;
  constructor(fusion: Fusion, outs: SdpaBwdOutputs, ins: SdpaBwdInputs) {
    super(
      fusion,
      [
        ins.gradOutput,
        ins.query,
        ins.key,
        ins.value,
        ins.output,
        ins.logsumexp,
        ins.dropoutP,
        ins.isCausal,
        ins.philoxSeed,
        ins.philoxOffset,
        ...(ins.scale === null ? [] : [ins.scale]),
      ],
      [outs.gradQuery, outs.gradKey, outs.gradValue],
    );
    this.hasScale = ins.scale !== null;
  }
  sdpaInputs(): SdpaBwdInputs {
    const t = (i: number): TensorView => this.inputs[i] as TensorView;
    const s = (i: number): Scalar => this.inputs[i] as Scalar;
    return {
      gradOutput: t(0),
      query: t(1),
      key: t(2),
      value: t(3),
      output: t(4),
      logsumexp: t(5),
      dropoutP: s(6),
      isCausal: s(7),
      philoxSeed: t(8),
      philoxOffset: t(9),
      scale: this.hasScale ? s(10) : null,
    };
  }
  sdpaOutputs(): SdpaBwdOutputs {
    const [gradQuery, gradKey, gradValue] = this.outputs as [TensorView, TensorView, TensorView];
    return { gradQuery, gradKey, gradValue };
  }
}

export type AttentionExpr = SdpaFwdOp | SdpaBwdOp;
