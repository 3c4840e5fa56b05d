// When the pointwise scheduler takes slice / pad / cat (resize ops), and why not otherwise —
// nvFuser's resize-scheduler rules adapted to tsfuser's pointwise lowering:
//   * no resize of a broadcast dim (a pad or a narrowing slice of a size-1 broadcast);
//   * every output is in the reference's index space: no resize between the reference and
//     another output (nvFuser: "Resize between reference and output not allowed");
//   * pad widths are constants (their sign decides the index shift);
//   * upstream of a resize (read at a shifted index), no iota or random numbers (their values
//     depend on the unshifted point);
//   * not yet in one kernel with a reshape (indexing through reshape-index-graph.ts does not
//     know shifted indices), an indexed load (lookups read at computed addresses) or a
//     stride-ordered output: each pair is refused with one reason naming both ops until a
//     kernel with both is tested.
// The returned reason is shown in segmentation explanations.

import type { Expr, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { permutedAllocationOrder } from '../../stride-order.js';
import { ExactLogicalMap } from '../../analysis/domain-map.js';
import { indexedLoadOf } from '../indexed-loads.js';
import { isIdentitySpace, isResizeExpr } from './index-space.js';
import { indexSpacesOf } from './prepare.js';
import { outputSliceSpace } from './output-slice-space.js';

function describeOp(kind: string): string {
  return kind === 'SliceOp' ? 'slice' : kind === 'PadOp' ? 'pad' : 'cat';
}

/** Why resize ops cannot share a pointwise kernel with the other features of `exprs`, or null. */
function combinationRefusal(fusion: Fusion, exprs: readonly Expr[]): string | null {
  const first = exprs.find(isResizeExpr);
  if (first === undefined) return null;
  const what = `${describeOp(first.kind)} producing T${(first.outputs[0] as TensorView).name}`;
  const view = exprs.find((e) => e.kind === 'ViewOp');
  if (view !== undefined) return `a slice, pad or cat (${what}) and a reshape (producing T${(view.outputs[0] as TensorView).name}) in one pointwise kernel are not supported yet`;
  const load = exprs.map(indexedLoadOf).find((l) => l !== null);
  if (load !== undefined && load !== null) {
    return `a slice, pad or cat (${what}) and an indexed load (${load.op} producing T${(load.expr.outputs[0] as TensorView).name}) in one pointwise kernel are not supported yet`;
  }
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') continue;
    const order = permutedAllocationOrder(o);
    if (order !== null) return `a slice, pad or cat (${what}) and a stride-ordered output (T${o.name}, allocation order [${order.join(', ')}]) in one pointwise kernel are not supported yet`;
  }
  return null;
}

/**
 * Null when the resize ops of `fusion` fit the pointwise scheduler with reference `ref`. With
 * `slicedOutputs` (inner persistent kernels), an output past step-1 slices of the reference's
 * space is accepted (written at the shifted index: output-slice-space.ts).
 */
export function resizeRefusal(fusion: Fusion, ref: TensorView, opts: { slicedOutputs?: boolean } = {}): string | null {
  const exprs = fusion.exprs();
  if (!exprs.some(isResizeExpr)) return null;
  const combined = combinationRefusal(fusion, exprs);
  if (combined !== null) return combined;
  for (const e of exprs) {
    if (!isResizeExpr(e)) continue;
    const out = e.outputs[0] as TensorView;
    const ol = out.domain.logicalNoReductions();
    for (const input of e.inputs) {
      if (input.kind !== 'tensorView') continue;
      const il = input.domain.logicalNoReductions();
      for (let d = 0; d < il.length; d += 1) {
        const pid = il[d];
        const cid = ol[d];
        if (pid === undefined || cid === undefined || !pid.isBroadcast()) continue;
        const same = cid.isBroadcast() && (cid.extent === pid.extent || cid.extent.constNumber() === pid.extent.constNumber());
        if (!same) return `${describeOp(e.kind)} producing T${out.name} resizes broadcast dim ${d} of T${input.name} (a resize of a broadcast is not supported)`;
      }
    }
    if (e.kind === 'PadOp') {
      const w = e.widths.find((s) => s.constNumber() === null);
      if (w !== undefined) return `pad producing T${out.name} has a width computed at run time (${w.symbolicName()}); the pointwise scheduler needs constant pad widths`;
    }
  }
  const plain = new ExactLogicalMap(fusion);
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView' || o === ref) continue;
    if (opts.slicedOutputs === true && outputSliceSpace(o, ref, plain) !== null) continue;
    const m = plain.mapToReference(o, ref);
    const bad = o.domain.logicalNoReductions().findIndex((id, d) => !id.isBroadcast() && m[d] === -1 && id.extent.constNumber() !== 1);
    if (bad >= 0) return `output T${o.name} dim ${bad} is not in the reference T${ref.name}'s index space (a slice, pad or cat lies between them)`;
  }
  let spaces;
  try {
    spaces = indexSpacesOf(fusion, ref);
  } catch (err) {
    return (err as Error).message;
  }
  for (const e of exprs) {
    const out = e.outputs[0];
    if (out === undefined || out.kind !== 'tensorView') continue;
    const space = spaces.ofTensor(out);
    if (space === null || isIdentitySpace(space)) continue;
    if (e.kind === 'IotaOp' || e.kind === 'RNGOp') return `${e.kind === 'IotaOp' ? 'iota' : 'random numbers'} producing T${out.name} feed a slice, pad or cat (read at a shifted index); not supported`;
  }
  return null;
}
