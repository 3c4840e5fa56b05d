// The vectorization analysis of the pointwise heuristics: which inputs/outputs can use wide
// (up to 16-byte) accesses along the reference's innermost dim, and the widest factor that all
// of them allow — by dtype size, the innermost contiguous extent (which the factor must divide,
// so a vector never straddles a row), pointer alignment and the strides of the outer dims.

import { dataTypeSize, type TensorView } from '@tsfuser/fusion-ir';
import type { ExactLogicalMap } from '../analysis/domain-map.js';
import type { IoTensor } from '../analysis/io-tensors.js';

export interface VectorizationResult {
  factor: number;
  /** IO tensors whose accesses are vectorized (empty when factor is 1). */
  vectorized: IoTensor[];
  /** Product of the innermost reference dims that every vectorized tensor holds contiguously. */
  innerContiguousExtent: number;
}

/** Inputs/outputs whose innermost dim is the reference's innermost dim with stride 1. */
function candidates(io: readonly IoTensor[], map: ExactLogicalMap, ref: TensorView): { t: IoTensor; m: readonly number[] }[] {
  const r = ref.domain.logicalNoReductions().length;
  const out: { t: IoTensor; m: readonly number[] }[] = [];
  for (const t of io) {
    const m = t.refMap ?? map.mapToReference(t.tv, ref);
    const k = m.length - 1;
    if (k < 0 || m[k] !== r - 1) continue;
    if (t.strides[k] !== 1) continue;
    out.push({ t, m });
  }
  return out;
}

/** Largest power of two ≤ x (x ≥ 1). */
export function lastPow2(x: number): number {
  let p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

export function analyzeVectorization(
  io: readonly IoTensor[],
  map: ExactLogicalMap,
  ref: TensorView,
  refSizes: readonly number[],
  firstDim: number,
  limit: number,
): VectorizationResult {
  const r = refSizes.length;
  const refLogical = ref.domain.logicalNoReductions();
  const none: VectorizationResult = { factor: 1, vectorized: [], innerContiguousExtent: 1 };
  if (r === 0 || (refLogical[r - 1]?.isBroadcast() ?? true)) return none;
  const cands = candidates(io, map, ref);
  if (cands.length === 0) return none;
  const maxSize = Math.max(...cands.map((c) => dataTypeSize(c.t.dtype)));
  let factor = Math.min(lastPow2(Math.max(1, Math.floor(16 / maxSize))), lastPow2(Math.max(1, limit)));

  // Grow the contiguous inner run over reference dims that every candidate holds as its
  // trailing dims, each contiguous with the next.
  let inner = refSizes[r - 1] as number;
  let runStart = r - 1;
  for (let d = r - 2; d >= firstDim; d -= 1) {
    if (refLogical[d]?.isBroadcast() ?? true) break;
    const ok = cands.every(({ t, m }) => {
      const k = m.length - 1 - (r - 1 - d);
      if (k < 0 || m[k] !== d) return false;
      return t.strides[k] === (t.strides[k + 1] as number) * (t.sizes[k + 1] as number);
    });
    if (!ok) break;
    inner *= refSizes[d] as number;
    runStart = d;
  }
  const allows = (v: number): boolean => {
    if (inner % v !== 0) return false;
    return cands.every(({ t, m }) => {
      const bytes = v * dataTypeSize(t.dtype);
      if (t.alignment % bytes !== 0) return false;
      // Dims outside the inner run must keep every vector start aligned.
      return m.every((refDim, k) => refDim >= runStart || (t.sizes[k] as number) <= 1 || (t.strides[k] as number) % v === 0);
    });
  };
  while (factor > 1 && !allows(factor)) factor /= 2;
  if (factor === 1) return none;
  return { factor, vectorized: cands.map((c) => c.t), innerContiguousExtent: inner };
}
