// The run-time check of prim::CudaFusionGuard (legacy "type guard logic"): an actual tensor
// complies with a profiled tensor type when dtype, rank, device and requires_grad are the same,
// dims profiled as size 1 (broadcast in the fusion) are size 1 and no others are, and for the
// dims of size > 1 the stride order and contiguity flags (innermost stride 1, each stride the
// next inner stride × size) are the ones profiled — the fusion was built with exactly these.
// Sizes themselves are symbolic in the fusion, so other sizes are admitted.

import type { HostTensor } from '@tsfuser/fusion-ir';
import type { TensorType } from '@tsfuser/jit-ir';
import { scalarTypeOfDataType, tensorMeta } from './run-values.js';

interface Layout {
  /** Dims of size > 1, innermost (smallest stride) first. */
  order: number[];
  /** contiguous[k] for order[k]. */
  contiguous: boolean[];
}

function layoutOf(sizes: readonly number[], strides: readonly number[]): Layout {
  const dims = sizes.map((_, i) => i).filter((i) => (sizes[i] as number) > 1);
  // Stable: equal strides keep the inner (later) dim first.
  const order = [...dims].sort((a, b) => (strides[a] as number) - (strides[b] as number) || b - a);
  const contiguous = order.map((d, k) => {
    if (k === 0) return strides[d] === 1;
    const inner = order[k - 1] as number;
    return strides[d] === (strides[inner] as number) * (sizes[inner] as number);
  });
  return { order, contiguous };
}

/** Why `t` does not comply with `expected`, or null when it does. */
export function tensorComplianceProblem(t: HostTensor, expected: TensorType): string | null {
  const meta = tensorMeta(t);
  const dtype = scalarTypeOfDataType(t.dtype);
  if (expected.scalarType !== null && expected.scalarType !== dtype) return `dtype ${dtype}, expected ${expected.scalarType}`;
  if (expected.sizes !== null && expected.sizes.length !== t.rank) return `rank ${t.rank}, expected ${expected.sizes.length}`;
  if (expected.device !== null) {
    const same = expected.device.type === meta.device.type && (expected.device.index ?? 0) === (meta.device.index ?? 0);
    if (!same) return `device ${meta.device.type}:${meta.device.index ?? 0}, expected ${expected.device.type}:${expected.device.index ?? 0}`;
  }
  if (expected.requiresGrad !== null && expected.requiresGrad !== meta.requiresGrad) {
    return `requires_grad=${meta.requiresGrad ? 1 : 0}, expected ${expected.requiresGrad ? 1 : 0}`;
  }
  if (expected.sizes === null) return null;
  for (let i = 0; i < t.rank; i++) {
    const e = expected.sizes[i];
    if (e === null || e === undefined) continue;
    if ((e === 1) !== (t.sizes[i] === 1)) return `size ${t.sizes[i]} at dim ${i}, profiled ${e} (broadcast dims must match)`;
  }
  const sizes = expected.sizes;
  if (expected.strides === null || sizes.some((s) => s === null)) return null;
  const want = layoutOf(sizes.map(Number), expected.strides.map(Number));
  const have = layoutOf(t.sizes, t.strides);
  if (want.order.join() !== have.order.join()) return `stride order [${t.strides.join(', ')}] differs from the profiled [${expected.strides.join(', ')}]`;
  const lost = want.contiguous.findIndex((c, k) => c && have.contiguous[k] !== true);
  if (lost >= 0) return `dim ${want.order[lost]} is not contiguous (strides [${t.strides.join(', ')}])`;
  return null;
}
