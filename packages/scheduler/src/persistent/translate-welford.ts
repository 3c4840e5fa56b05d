// Welford → two-pass var/mean for persistent kernels (nvFuser's TranslateApplicableWelford:
// a segment that will be an inner persistent kernel gets its Welford ops rewritten, because
// with the row in registers two plain sums are cheaper than a Welford block reduction, and at
// least as accurate). In place, on a fusion the caller owns (the scheduler's clone):
//
//   WelfordOp(x over dims) → avg, varSum, n        becomes
//   s = sum(x, dims); avg' = s / N;  d = x − broadcast(avg'); varSum' = sum(d·d, dims)
//
// with N the product of the reduced extents, and every use (and output slot) of avg / varSum
// rewired to avg' / varSum'. Only a Welford over raw values (not a merge of partial states)
// whose count output `n` is unused can be translated; `welfordTranslationRefusal` says why not.
// Invariant: the translated fusion computes the same mean and M2 up to float rounding, and its
// inputs and outputs keep their positions. welfordTranslatedFusion gives the heuristics the
// translated fusion without touching the caller's.

import {
  broadcast, mul, reducedCount, replaceExprVals, sub, sum, truediv, type Fusion, type TensorView, type Val, type WelfordOp,
} from '@tsfuser/fusion-ir';

function welfordOps(fusion: Fusion): WelfordOp[] {
  return fusion.exprs().filter((e): e is WelfordOp => e.kind === 'WelfordOp');
}

/** Why a Welford op of the fusion cannot be translated, or null when all can (or there is none). */
export function welfordTranslationRefusal(fusion: Fusion): string | null {
  const live = new Set(fusion.exprs());
  for (const w of welfordOps(fusion)) {
    const name = `welford producing T${w.outAvg().name}`;
    if (w.inVarSum() !== null) return `${name} merges partial states (not a reduction of raw values)`;
    const n = w.outN();
    if (fusion.outputs.includes(n) || n.uses.some((u) => live.has(u))) return `${name}: its count output T${n.name} is used`;
    if (w.inAvg().kind !== 'tensorView') return `${name} has no tensor input`;
  }
  return null;
}

/** Rewires every live use and output slot of `from` to `to`. */
function replaceAllUses(fusion: Fusion, from: TensorView, to: TensorView): void {
  const live = new Set(fusion.exprs());
  for (const use of [...from.uses]) if (live.has(use)) replaceExprVals(use, new Map<Val, Val>([[from, to]]));
  if (fusion.outputs.includes(from)) fusion.replaceOutput(from, to);
}

/** Translates every Welford of the fusion in place; returns how many. Throws when one cannot be. */
export function translateWelford(fusion: Fusion): number {
  const refusal = welfordTranslationRefusal(fusion);
  if (refusal !== null) throw new Error(`translateWelford: ${refusal}`);
  const ops = welfordOps(fusion);
  for (const w of ops) {
    const x = w.inAvg();
    const avg = w.outAvg();
    const varSum = w.outVarSum();
    const logical = avg.domain.logical;
    const dims = logical.flatMap((id, d) => (id.isReduction() ? [d] : []));
    const flags = logical.map((id) => id.isReduction());
    fusion.removeExpr(w);
    const mean = truediv(sum(x, dims), reducedCount(x, dims));
    const centered = sub(x, broadcast(mean, flags));
    const m2 = sum(mul(centered, centered), dims);
    replaceAllUses(fusion, avg, mean);
    replaceAllUses(fusion, varSum, m2);
  }
  return ops.length;
}

/**
 * The fusion the persistent heuristics decide for — the one their schedule will see: `original`
 * itself, or a clone with its Welford ops translated (the caller's fusion is left as it is).
 */
export function welfordTranslatedFusion(original: Fusion): Fusion {
  const hasWelford = original.exprs().some((e) => e.kind === 'WelfordOp');
  const fusion = hasWelford ? original.clone().fusion : original;
  if (hasWelford) translateWelford(fusion);
  return fusion;
}
