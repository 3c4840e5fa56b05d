// Input sensitivity of a fusion's outputs, for differential tests against the reference: how far
// each output element moves when every floating-point input element is scaled by (1 + ε), ε one
// ulp of the input's dtype (both directions, the larger move). A GPU result is acceptable where
// it differs from the reference by no more than that: it is then the exact result of inputs
// within an ulp (backward stable), which is all a kernel built from CUDA's few-ulp math
// functions can promise. Well-conditioned elements get (close to) zero slack, so the test stays
// as strict as the dtype tolerance there.

import { evaluate, HostTensor, isComplexType, machineEpsilon, type DataType, type EvalValue, type Fusion } from '@tsfuser/fusion-ir';

/** `v` with every stored element scaled: same sizes, strides and offset (a broadcast input stays small). */
function scaled(v: EvalValue, factor: (dtype: DataType) => number): EvalValue {
  if (!(v instanceof HostTensor)) return v;
  const f = factor(v.dtype);
  if (f === 1) return v;
  const storage = new HostTensor(v.dtype, [v.data.length], [1], v.data).toFloat64Array();
  for (let i = 0; i < storage.length; i += 1) storage[i] = (storage[i] as number) * f;
  return new HostTensor(v.dtype, v.sizes, v.strides, HostTensor.fromValues(v.dtype, [storage.length], storage).data, v.offset);
}

/** Outputs above this many elements in all (or with complex values) get no slack (two more evaluations and their moves would cost gigabytes). */
export const SENSITIVITY_MAX_ELEMENTS = 1 << 22;

/**
 * Per output, per element: the larger output move under a one-ulp scaling of the inputs up or
 * down; undefined when the outputs hold more than SENSITIVITY_MAX_ELEMENTS (compare with the
 * dtype tolerance alone).
 */
export function inputSensitivity(fusion: Fusion, inputs: readonly EvalValue[], reference: readonly HostTensor[]): Float64Array[] | undefined {
  if (reference.reduce((a, r) => a + r.numel, 0) > SENSITIVITY_MAX_ELEMENTS) return undefined;
  // Complex values have no per-element slack here yet: they compare with the dtype tolerance alone.
  if ([...inputs, ...reference].some((v) => v instanceof HostTensor && isComplexType(v.dtype))) return undefined;
  const moves = reference.map((r) => new Float64Array(r.numel));
  const refs = reference.map((r) => r.toFloat64Array());
  for (const sign of [1, -1]) {
    const perturbed = inputs.map((v) => scaled(v, (d) => 1 + sign * machineEpsilon(d)));
    const outs = evaluate(fusion, perturbed);
    outs.forEach((o, k) => {
      const ref = refs[k];
      const move = moves[k];
      if (!(o instanceof HostTensor) || ref === undefined || move === undefined) return;
      const got = o.toFloat64Array();
      for (let i = 0; i < ref.length; i += 1) {
        const d = Math.abs((got[i] as number) - (ref[i] as number));
        if (Number.isFinite(d) && d > (move[i] as number)) move[i] = d;
      }
    });
  }
  return moves;
}
