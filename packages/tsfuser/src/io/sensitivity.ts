// Input sensitivity of a fusion's outputs, for differential tests against the reference: how far
// each output element moves when every floating-point input element is scaled by (1 + ε), ε one
// ulp of the input's dtype (both directions, the larger move). A GPU result is acceptable where
// it differs from the reference by no more than that: it is then the exact result of inputs
// within an ulp (backward stable), which is all a kernel built from CUDA's few-ulp math
// functions can promise. Well-conditioned elements get (close to) zero slack, so the test stays
// as strict as the dtype tolerance there.

import { evaluate, HostTensor, type DataType, type EvalValue, type Fusion } from '@tsfuser/fusion-ir';

function ulp(dtype: DataType): number {
  switch (dtype) {
    case 'Double':
      return 2 ** -52;
    case 'Float':
      return 2 ** -23;
    case 'Half':
      return 2 ** -10;
    case 'BFloat16':
      return 2 ** -7;
    case 'Bool':
    case 'Int':
    case 'Int32':
    case 'Index':
      return 0;
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

function scaled(v: EvalValue, factor: (dtype: DataType) => number): EvalValue {
  if (!(v instanceof HostTensor)) return v;
  const f = factor(v.dtype);
  if (f === 1) return v;
  return HostTensor.fromValues(v.dtype, [...v.sizes], v.toNumbers().map((x) => x * f));
}

/** Per output, per element: the larger output move under a one-ulp scaling of the inputs up or down. */
export function inputSensitivity(fusion: Fusion, inputs: readonly EvalValue[], reference: readonly HostTensor[]): Float64Array[] {
  const moves = reference.map((r) => new Float64Array(r.numel));
  for (const sign of [1, -1]) {
    const perturbed = inputs.map((v) => scaled(v, (d) => 1 + sign * ulp(d)));
    const outs = evaluate(fusion, perturbed);
    outs.forEach((o, k) => {
      const ref = reference[k];
      const move = moves[k];
      if (!(o instanceof HostTensor) || ref === undefined || move === undefined) return;
      for (let i = 0; i < ref.numel; i += 1) {
        const d = Math.abs(o.getNumber(i) - ref.getNumber(i));
        if (Number.isFinite(d) && d > (move[i] as number)) move[i] = d;
      }
    });
  }
  return moves;
}
