// Rounding slack of a floating-point sum, for differential tests of reductions against the
// float64 reference evaluator. A sum of n float values in any order (tree on the GPU, serial,
// blocked) is off its exact value by at most (n−1)·u·Σ|xᵢ| (u the unit roundoff, half the machine epsilon), and in practice
// by a small multiple of √n·u·Σ|xᵢ|: an element whose sum cancels (Σxᵢ ≈ 0 while Σ|xᵢ| is large)
// can then differ from the reference by far more than rtol·|Σxᵢ|. That was the one-element
// mismatch of `cache:concurrent-segments` (−0.0844631 vs −0.0844415 for a sum of 1024 values of
// magnitude ≈ 2: Σ|xᵢ| ≈ 1600, √n·u·Σ|xᵢ| ≈ 3e-3, error 2.2e-5): rounding, not a race.
//
// Invariant: the slack is √n·u·Σ|xᵢ| per output element, where Σ|xᵢ| is computed by the caller
// (for a sum of an input, the same fusion evaluated on |inputs|), so it widens only elements whose
// sums cancel and stays far below any error a lost or doubled partial sum would cause.

import { HostTensor, machineEpsilon, type DataType } from '@tsfuser/fusion-ir';
import { normwiseSlack } from '@tsfuser/test-support';

/** √n·u·Σ|xᵢ| per element of `absoluteSums` (the sums of |xᵢ|), n the number of terms per sum. */
export function summationSlack(absoluteSums: HostTensor, terms: number, accumulate: DataType = 'Float'): Float64Array {
  const scale = Math.sqrt(Math.max(terms, 1)) * (machineEpsilon(accumulate) / 2);
  const sums = absoluteSums.toFloat64Array();
  const slack = new Float64Array(sums.length);
  for (let i = 0; i < sums.length; i += 1) slack[i] = scale * Math.abs(sums[i] as number);
  return slack;
}

/** `t` with every stored element replaced by its absolute value (same layout). */
export function absoluteHost(t: HostTensor): HostTensor {
  const storage = new HostTensor(t.dtype, [t.data.length], [1], t.data).toFloat64Array();
  for (let i = 0; i < storage.length; i += 1) storage[i] = Math.abs(storage[i] as number);
  return new HostTensor(t.dtype, t.sizes, t.strides, HostTensor.fromValues(t.dtype, [storage.length], storage).data, t.offset);
}

/**
 * The slack of a Float output computed through reductions: per element the larger of the sum's
 * rounding bound (`summationSlack`) and the norm-wise bound the simulator tests use
 * (test-support's `normwiseSlack`: the dtype tolerance times the output's largest magnitude).
 * The first misses rounding that reaches an output through later arithmetic on the sums: in a
 * layer-norm backward the large terms of a row round at the scale of the row's largest values
 * and small elements keep that error (H100, 2026-11-25, shape-ops suite case 21041224: 1.4086709
 * against the float64 1.4086866 in a row whose outputs reach 685; the simulator, in its own
 * order, 1.4086806), while a lost or doubled term still moves an element by far more.
 */
export function reductionSlack(want: HostTensor, absoluteSums: HostTensor, terms: number, toleranceDtype: DataType): Float64Array {
  const slack = summationSlack(absoluteSums, terms);
  const normwise = normwiseSlack(want, toleranceDtype);
  for (let i = 0; i < slack.length; i += 1) slack[i] = Math.max(slack[i] as number, normwise[i] ?? 0);
  return slack;
}
