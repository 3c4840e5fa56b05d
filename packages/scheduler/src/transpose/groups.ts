// The transpose scheduler's grouping (nvFuser's TransposeDomainMap::groupInputsOutputsByInnerDim
// and hasAtLeastTwoValidGroups): every fusion input and output that the kernel touches is put in
// the group of its innermost allocation dim, mapped onto the reference output's logical dims.
// An input's innermost dim is its stride-1 dim at run time (a permuted view read as it lies in
// memory); an output's is the last dim of its allocation (stride) order. Group 1 holds the
// tensors whose innermost dim is the reference's own; group 2 those whose innermost dim is one
// other reference dim. Broadcast and size-1 dims are skipped when looking for the innermost.
// Invariant: `analyzeTransposeGroups` either returns exactly two groups with distinct inner dims
// of the reference, or a reason naming the tensor that does not fit.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { tensorSizes, type RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import { permutedAllocationOrder } from '../stride-order.js';
import { ExactLogicalMap, findReferenceOutput } from '../analysis/domain-map.js';

export interface TransposeGroups {
  reference: TensorView;
  /** Reference logical sizes (broadcast dims counted as 1). */
  refSizes: number[];
  innerDim1: number;
  innerDim2: number;
  /** Fusion input positions in group 1 / group 2. */
  inputs1: number[];
  inputs2: number[];
  /** Fusion output positions (all in group 1). */
  outputs1: number[];
  /** Each input's and output's reference dim map (ExactLogicalMap.mapToReference). */
  map: ExactLogicalMap;
}

/** The logical dim (of `tv`) innermost in memory, skipping broadcast and size-1 dims; -1 if none. */
function innermostDim(tv: TensorView, sizes: readonly number[], strides: readonly number[] | null): number {
  const logical = tv.domain.logicalNoReductions();
  const live = (d: number): boolean => logical[d]?.isBroadcast() !== true && (sizes[d] ?? 0) > 1;
  if (strides !== null) {
    let best = -1;
    for (let d = 0; d < logical.length; d += 1) {
      if (!live(d)) continue;
      if (best < 0 || (strides[d] ?? 0) < (strides[best] ?? 0)) best = d;
    }
    return best >= 0 && strides[best] === 1 ? best : -1;
  }
  const order = permutedAllocationOrder(tv) ?? logical.map((_, d) => d);
  for (let k = order.length - 1; k >= 0; k -= 1) {
    const d = order[k] as number;
    if (live(d)) return d;
  }
  return -1;
}

export function analyzeTransposeGroups(fusion: Fusion, info: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, info)): TransposeGroups | string {
  const ref = findReferenceOutput(fusion);
  if (ref === null) return 'the fusion has no tensor outputs';
  const bindings = cache.bindings();
  const refLogical = ref.domain.logicalNoReductions();
  const refSizes = tensorSizes(ref, bindings).map((s, d) => (refLogical[d]?.isBroadcast() === true ? 1 : s));
  const map = new ExactLogicalMap(fusion, fusion.allTvs());
  const refInner = innermostDim(ref, refSizes, null);
  if (refInner < 0) return `the reference T${ref.name} has no innermost iteration dim larger than 1`;
  const live = new Set(fusion.exprs());
  const inputs1: number[] = [];
  const inputs2: number[] = [];
  const outputs1: number[] = [];
  let inner2 = -1;
  for (const [i, v] of fusion.inputs.entries()) {
    if (v.kind !== 'tensorView' || !v.uses.some((u) => live.has(u))) continue;
    const ti = info.inputs[i];
    if (ti === undefined || ti.kind !== 'tensor') return `input ${i} has no tensor runtime info`;
    const d = innermostDim(v, ti.sizes, ti.strides);
    if (d < 0) {
      // Scalars in a tensor (all dims size 1) and broadcast-only inputs read one element.
      inputs1.push(i);
      continue;
    }
    const r = map.mapToReference(v, ref)[d] ?? -1;
    if (r < 0) return `input T${v.name}'s innermost dim ${d} does not map to a dim of the reference T${ref.name}`;
    if (r === refInner) {
      inputs1.push(i);
      continue;
    }
    if (inner2 >= 0 && r !== inner2) return `three or more distinct innermost dims (reference dims ${refInner}, ${inner2}, ${r})`;
    inner2 = r;
    inputs2.push(i);
  }
  for (const [i, o] of fusion.outputs.entries()) {
    if (o.kind !== 'tensorView') continue;
    const sizes = tensorSizes(o, bindings);
    const d = innermostDim(o, sizes, null);
    const r = d < 0 ? refInner : (map.mapToReference(o, ref)[d] ?? -1);
    if (r !== refInner) return `output T${o.name}'s innermost dim is not the reference's (outputs in the second group are not supported yet)`;
    outputs1.push(i);
  }
  if (inner2 < 0) return 'cannot find two mismatching inner most dimensions';
  return { reference: ref, refSizes, innerDim1: refInner, innerDim2: inner2, inputs1, inputs2, outputs1, map };
}
