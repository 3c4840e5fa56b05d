// Which tensors of an inner persistent schedule stay whole in registers (the persistent
// buffers), and projecting cast buffers back to the narrower input they come from.
//
// Phases: the block reductions upstream of a tensor (x: 0, max(x): 1, x − max(x): 1, sum of
// that: 2, …). Loop phase: the phase of the loop nest a tensor is computed in — its own phase
// when it is a terminal or a persistent buffer, its input's phase for a reduction (it
// accumulates there); otherwise the loop phase shared by all its consumers (it is inlined
// into them). A tensor whose consumers sit in loops
// of different phases cannot share their loops (one waits for a block reduction the other
// feeds): it stays at the persistent position, whole in registers, filled once.
//
// Projection (nvFuser's projection of persistent buffers to inputs): when such a buffer is a
// cast of an input cache (Half/BFloat16 → Float), each later phase gets its own copy of the
// cast, so the input cache becomes the buffer: half the registers, the cast recomputed.
// Invariant: values are unchanged; after `keepPersistentBuffers`, every tensor inlined past the
// persistent position has all its consumers in loops of one phase.

import { cast, dataTypeSize, inlineAt, replaceExprVals, type Fusion, type TensorView, type Val } from '@tsfuser/fusion-ir';

/** Block reductions upstream of each tensor (`isBlock` says which ReductionOps count). */
export function reductionPhases(fusion: Fusion, isBlock: (out: TensorView) => boolean = blockReduced): Map<TensorView, number> {
  const phase = new Map<TensorView, number>();
  for (const e of fusion.exprs()) {
    let p = 0;
    for (const v of e.inputs) if (v.kind === 'tensorView') p = Math.max(p, phase.get(v) ?? 0);
    const out = e.outputs[0];
    const block = e.kind === 'ReductionOp' && out !== undefined && out.kind === 'tensorView' && isBlock(out);
    for (const o of e.outputs) if (o.kind === 'tensorView') phase.set(o, block ? p + 1 : p);
  }
  return phase;
}

/** A scheduled reduction over threadIdx.x (after rFactor: the cross-thread part). */
function blockReduced(out: TensorView): boolean {
  return out.domain.loop.some((id) => id.isReduction() && id.parallelType === 'TIDx');
}

function tensorConsumers(tv: TensorView, live: ReadonlySet<unknown>): TensorView[] {
  return tv.uses.filter((u) => live.has(u)).flatMap((u) => u.outputs.filter((o): o is TensorView => o.kind === 'tensorView'));
}

/** Loop phase of every tensor and whether it must be a persistent buffer (see the header). */
export function loopPhases(fusion: Fusion, phase: ReadonlyMap<TensorView, number>): { loop: Map<TensorView, number>; persistent: Set<TensorView> } {
  const live = new Set(fusion.exprs());
  const loop = new Map<TensorView, number>();
  const persistent = new Set<TensorView>();
  const tvs = fusion.allTvs();
  for (const tv of [...tvs].reverse()) {
    const own = phase.get(tv) ?? 0;
    const consumers = tensorConsumers(tv, live);
    const def = tv.definition;
    const phases = new Set(consumers.map((c) => loop.get(c) ?? phase.get(c) ?? 0));
    if (phases.size > 1) persistent.add(tv);
    if (def !== null && def.kind === 'ReductionOp') {
      // A reduction accumulates in the loop of its input's phase.
      const input = def.inputs[0];
      loop.set(tv, input !== undefined && input.kind === 'tensorView' ? (phase.get(input) ?? 0) : own);
    } else {
      loop.set(tv, consumers.length === 0 || phases.size !== 1 ? own : (phases.values().next().value as number));
    }
  }
  return { loop, persistent };
}

/** Clamps every persistent buffer (after inlining) to the persistent position. */
export function keepPersistentBuffers(fusion: Fusion, position: number): TensorView[] {
  const { persistent } = loopPhases(fusion, reductionPhases(fusion));
  const kept: TensorView[] = [];
  for (const tv of fusion.allTvs()) {
    if (tv.isFusionInput() || !persistent.has(tv)) continue;
    if (tv.computeAtPosition > position) inlineAt(tv, position);
    kept.push(tv);
  }
  return kept;
}

/**
 * Before scheduling (every ReductionOp will be a block reduction): a widening cast of an input
 * cache that would be a persistent buffer gets one copy per later loop phase. Returns how many
 * casts were added.
 */
export function projectCastBuffers(fusion: Fusion, inputCaches: ReadonlySet<TensorView>): number {
  const phase = reductionPhases(fusion, () => true);
  const { loop, persistent } = loopPhases(fusion, phase);
  const live = new Set(fusion.exprs());
  let added = 0;
  for (const t of fusion.allTvs()) {
    const def = t.definition;
    if (!persistent.has(t) || def === null || def.kind !== 'UnaryOp' || def.op !== 'cast' || fusion.outputs.includes(t)) continue;
    const src = def.inputs[0];
    if (src === undefined || src.kind !== 'tensorView' || !inputCaches.has(src) || dataTypeSize(src.dtype) >= dataTypeSize(t.dtype)) continue;
    const own = phase.get(t) ?? 0;
    const copies = new Map<number, TensorView>();
    for (const u of t.uses.filter((x) => live.has(x))) {
      const out = u.outputs.find((o): o is TensorView => o.kind === 'tensorView');
      const p = out === undefined ? own : (loop.get(out) ?? own);
      if (p === own) continue;
      let copy = copies.get(p);
      if (copy === undefined) {
        copy = cast(src, t.dtype);
        copies.set(p, copy);
        added += 1;
      }
      replaceExprVals(u, new Map<Val, Val>([[t, copy]]));
    }
  }
  return added;
}
