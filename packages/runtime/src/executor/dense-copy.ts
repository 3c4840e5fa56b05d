// The dense copy of a GEMM operand that cuBLASLt cannot read in place (its batch strides do not
// nest into one, or its matrix is neither row- nor column-major): `out = expand(x) · ones` with x
// of the operand's rank (size-1 dims as broadcasts, any strides) broadcast to the GEMM's batch,
// compiled by the pointwise scheduler alone (so it is always a kernel writing a dense output,
// never a view), through a FusionExecutorCache of its own on the same device and stream, kept
// per (dtype, sizes) by the caller. Invariant: the result is dense row-major with `sizes`, and
// element [i…] equals the source's element at the broadcast position.

import { broadcast, expand, full, Fusion, makeTensor, mul, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, type SchedulerRegistry } from '@tsfuser/scheduler';

/** The copy fusion for a source of `sourceSizes` broadcast to `sizes` (right-aligned, as torch.expand). */
export function denseCopyFusion(dtype: DataType, sourceSizes: readonly number[], sizes: readonly number[]): Fusion {
  const f = new Fusion();
  const shape = sourceSizes.map((s) => (s === 1 ? 1 : -1));
  const x = makeTensor(f, { shape, dtype, contiguity: shape.map((s) => (s === 1 ? null : false)) });
  f.addInput(x);
  const missing = sizes.length - sourceSizes.length;
  const ranked = missing > 0 ? broadcast(x, [...new Array<boolean>(missing).fill(true), ...sourceSizes.map(() => false)]) : x;
  const target = sizes.map((s, d) => {
    const own = d - missing >= 0 ? sourceSizes[d - missing] : 1;
    return own === 1 && s !== 1 ? s : -1;
  });
  // `set(expand(x))` alone would stay expanded (an expanded output is allocated with stride 0, as
  // PyTorch's expand): multiplying by a dense tensor of ones makes every dim an iteration dim, so
  // the output is allocated dense. x · 1 is exact and keeps -0 and NaN.
  const ones = full(f, [...sizes], 1, dtype);
  f.addOutput(mul(expand(ranked, target), ones) as TensorView);
  return f;
}

/** The default registry's pointwise scheduler alone: the copy must be a kernel writing dense memory. */
export function denseCopyRegistry(): SchedulerRegistry {
  return defaultSchedulerRegistry().restrictedTo(['pointwise']);
}
