// expand(T0, [S1, -1]) keeps a non-broadcast dim (nvFuser takes a symbolic size there), so the
// given size must equal the dim's own at run time — a generated kernel iterates the input's
// extent and ignores S1, so a disagreeing S1 was a silently wrong answer on the GPU path (the
// reference evaluator raises PyTorch's error). Checked on each new input layout (integral
// scalars are part of the layout key) from the extents the executor bound.
// Invariant: null exactly when every such size evaluates equal to its dim's extent, or cannot
// be evaluated from the inputs (then nothing here can check it).

import type { ExpandOp, Fusion, Scalar } from '@tsfuser/fusion-ir';
import { evaluateExtent, type ExtentBindings } from '@tsfuser/scheduler';

/** One kept dim of an expand whose size is given symbolically. */
export interface KeptExpandDim {
  expr: ExpandOp;
  dim: number;
  given: Scalar;
  extent: Scalar;
}

/** The fusion's expands of non-broadcast dims to a size that is not a constant (compute once). */
export function keptExpandDims(fusion: Fusion): KeptExpandDim[] {
  const out: KeptExpandDim[] = [];
  for (const e of fusion.exprs()) {
    if (e.kind !== 'ExpandOp') continue;
    const input = e.inputs[0];
    if (input === undefined || input.kind !== 'tensorView') continue;
    const ids = input.domain.logicalNoReductions();
    e.expandedExtents().forEach((given, dim) => {
      const id = ids[dim];
      if (id === undefined || id.isBroadcast() || given.constNumber() !== null) return;
      out.push({ expr: e, dim, given, extent: id.logicalExtent() });
    });
  }
  return out;
}

function tryEvaluate(s: Scalar, bindings: ExtentBindings): number | null {
  try {
    return evaluateExtent(s, bindings);
  } catch {
    return null;
  }
}

/** PyTorch's message for the first kept dim whose given size disagrees, or null. */
export function expandSizeMismatch(dims: readonly KeptExpandDim[], bindings: ExtentBindings): string | null {
  for (const d of dims) {
    const want = tryEvaluate(d.given, bindings);
    const have = tryEvaluate(d.extent, bindings);
    if (want === null || have === null || want === -1 || want === have) continue;
    const out = d.expr.outputs[0];
    return `expand producing T${out?.name ?? '?'}: the expanded size of the tensor (${want}) must match the existing size (${have}) at non-singleton dimension ${d.dim}`;
  }
  return null;
}
