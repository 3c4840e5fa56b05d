// Whether the reduction scheduler can take a fusion, and if not, why (shown to users in
// segmentation explanations). Accepted: exactly one ReductionOp (sum/prod/max/min over any
// dims, keepdim) or one WelfordOp over raw values (var_mean: its avg / varSum / n outputs
// share the pattern and are reduced together), pointwise math, broadcasts and casts before it (whose full-size results may
// be outputs too, written inside the reduction loops, as nvFuser writes them; the option
// preReductionOutputs: false refuses them), and pointwise math after it on tensors
// of the reduction's kept dims. Refused: a second reduction, a Welford merging partial states
// (only rFactor makes those, while scheduling), a broadcast of the result
// that meets the reduced dims again (x - sum(x): the persistent normalization schedulers' job),
// a reduced expanded broadcast (kept ones are taken: extent-1 loops, stride-0 outputs), and the
// ops no kernel scheduler handles yet. Reshapes
// are taken before the reduction (indexed through their split/merge from the reduction
// input, as the pointwise scheduler does; reshape-before-reduction.ts) and after it when they
// do not interfere with the schedule's merges of kept and reduced dims (nvFuser's
// reductionInterferingView; reshape-after-reduction.ts). Slice / pad / cat are taken before it only
// cat (the reduction runs over the resized domain, the inputs read through the resize as in
// the pointwise scheduler; resize-before-reduction.ts).

import type { Expr, Fusion, IterDomain, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { ReshapeIndexGraph } from '../pointwise/reshape-index-graph.js';
import { reshapeBeforeReduction } from './reshape-before-reduction.js';
import { derivedThroughReshape, interferingReshapeAfterReduction } from './reshape-after-reduction.js';
import { resizeBeforeReduction } from './resize-before-reduction.js';
import { hasResizeExprs, isResizeExpr } from '../pointwise/resize/index-space.js';
import { evaluateExtent, type ExtentBindings, type RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult } from '../scheduler.js';
import { unsupportedOp } from '../segmentation/supported-ops.js';
import { connectedGraphRefusal } from '../segmentation/normalization.js';
import { downstreamExprs, reductionExprs, reductionPattern } from './analysis.js';

function exprRefusal(e: Expr): string | null {
  if (e.kind === 'WelfordOp' && e.inVarSum() !== null) {
    return `welford producing T${e.outAvg().name} merges partial states (avg, varSum, N inputs): only a welford over raw values is scheduled`;
  }
  return unsupportedOp(e, 'reduction');
}

function tvName(tv: TensorView): string {
  return `T${tv.name}`;
}

export interface ReductionSchedulerOptions {
  /**
   * Accept outputs computed before the reduction (full-size results written inside the
   * reduction loops, e.g. gelu-backward + bias-grad in one kernel), as nvFuser's reduction
   * scheduler does. Default true; false keeps them as a separate pointwise segment (the
   * segmentation before 2026-12-03, for comparisons).
   */
  preReductionOutputs?: boolean;
}

/** `cache`: the analyses of this fusion and info (its extent bindings are read, not made again). */
export function canScheduleReduction(fusion: Fusion, runtimeInfo: RuntimeInfo, opts: ReductionSchedulerOptions = {}, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): CanScheduleResult {
  for (const e of fusion.exprs()) {
    // Reshapes and slice / pad / cat before the reduction are checked below
    // (reshape-before-reduction.ts, resize-before-reduction.ts).
    if (e.kind === 'ViewOp' || isResizeExpr(e)) continue;
    const r = exprRefusal(e);
    if (r !== null) return { ok: false, reason: r };
  }
  const reductions = reductionExprs(fusion);
  if (reductions.length === 0) return { ok: false, reason: 'the fusion has no reduction' };
  if (reductions.length > 1) {
    const names = reductions.map((r) => tvName(r.outputs[0] as TensorView)).join(', ');
    return { ok: false, reason: `the reduction scheduler takes one reduction pattern, the fusion has ${reductions.length} (${names})` };
  }
  const pattern = reductionPattern(reductions[0] as (typeof reductions)[number]);
  if (pattern === null) return { ok: false, reason: 'the reduction has no tensor input or output' };
  // nvFuser's isConnectedFusionGraph: an unconnected output would get no loops of the kernel.
  const disconnected = connectedGraphRefusal(fusion);
  if (disconnected !== null) return { ok: false, reason: disconnected };
  const { reduction, input } = pattern;
  if (pattern.reducedDims.length === 0) return { ok: false, reason: `reduction ${tvName(reduction)} reduces no dim (a copy)` };
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') return { ok: false, reason: 'scalar outputs are not supported by the reduction scheduler' };
    if (fusion.inputs.includes(o)) return { ok: false, reason: `output ${tvName(o)} is also a fusion input (an alias)` };
  }
  // Expanded broadcast dims (stride 0, bS{1 ex n}) the reduction keeps are loops of extent 1, as
  // in nvFuser: the kernel computes each kept value once and an expanded output is allocated with
  // stride 0 over them (output-allocation.ts), so it is written once per un-expanded element.
  // A reduced one would have to be a loop of its expanded extent; fusion-ir's reductionOp never
  // builds that (it squeezes the dim and multiplies by its extent, nvFuser's trivial reductions).
  const reducedExpanded = expandedReducedDim(reduction, input);
  if (reducedExpanded !== null) {
    return { ok: false, reason: `reduction ${tvName(reduction)} reduces the expanded broadcast dim ${reducedExpanded} of ${tvName(input)} (fusion-ir's reductionOp squeezes such dims instead)` };
  }
  if (input.domain.logical.some((id) => id.isReduction())) {
    return { ok: false, reason: `reduction input ${tvName(input)} is itself a reduction output` };
  }
  let bindings: ExtentBindings;
  try {
    bindings = cache.bindings();
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }

  // Welford's varSum and n are results of the reduction as much as its avg.
  const after = downstreamExprs(fusion, pattern.outputs);
  const reshapes = reshapeBeforeReduction(fusion, input, new Set(after));
  if (reshapes !== null) return { ok: false, reason: reshapes.reason };
  const interfering = interferingReshapeAfterReduction(fusion, pattern, new Set(after), bindings);
  if (interfering !== null) return { ok: false, reason: interfering };
  const resizes = resizeBeforeReduction(fusion, input, new Set(after));
  if (resizes !== null) return { ok: false, reason: resizes.reason };
  // One exact map of the fusion's logical dims, for the pre-reduction outputs and the kept-dim checks below.
  const map = new ExactLogicalMap(fusion);
  const afterTvs = new Set<TensorView>(pattern.outputs);
  for (const e of after) for (const o of e.outputs) if (o.kind === 'tensorView') afterTvs.add(o);
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView' || afterTvs.has(o)) continue;
    if (opts.preReductionOutputs === false) {
      return {
        ok: false,
        reason: `output ${tvName(o)} is computed before the reduction ${tvName(reduction)} (a pre-reduction output is left to segmentation)`,
      };
    }
    // Written inside the reduction loops at the reduction input's indices: it must span them.
    const partial = partialPreReductionOutput(o, input, map);
    if (partial !== null) return { ok: false, reason: `output ${tvName(o)} is computed before the reduction ${tvName(reduction)} over ${partial}, not over all of its input ${tvName(input)}'s dims` };
  }
  // After the reduction only the kept dims exist: a broadcast of the result that meets the
  // reduced dims again (x - sum(x, keepdim)) needs the reduced values in every thread of a row.
  const kept = reduction.domain.logical.filter((id) => !id.isReduction() && !id.isBroadcast());
  const reduced = reduction.domain.logical.filter((id) => id.isReduction());
  // Past a reshape of the result, a dim is kept when it derives from kept dims only.
  const graph = new ReshapeIndexGraph(fusion, input);
  // Every dim a reshape after the reduction reads must come from the kept dims.
  for (const e of after) {
    if (e.kind !== 'ViewOp') continue;
    const out = e.outputs[0] as TensorView;
    const bad = (out.domain.root ?? []).find((id) => evaluateExtent(id.extent, bindings) !== 1 && !kept.some((k) => map.same(k, id)) && derivedThroughReshape(graph, pattern, id) !== 'kept');
    if (bad !== undefined) {
      return { ok: false, reason: `reshape producing ${tvName(out)} after the reduction ${tvName(reduction)} reads a dim (extent ${bad.extent.symbolicName()}) that is not one of its kept dims` };
    }
  }
  for (const e of after) {
    for (const v of e.inputs) {
      if (v.kind !== 'tensorView' || afterTvs.has(v)) continue;
      const bad = v.domain
        .logicalNoReductions()
        .find((id) => !id.isBroadcast() && !kept.some((k) => map.same(k, id)) && derivedThroughReshape(graph, pattern, id) !== 'kept');
      if (bad !== undefined) {
        return {
          ok: false,
          reason: `${tvName(v)} joins the reduction result after ${tvName(reduction)} with a dim (extent ${bad.extent.symbolicName()}) that is not one of its kept dims: a broadcast of the reduction result needs a persistent (normalization) schedule`,
        };
      }
    }
    for (const o of e.outputs) {
      if (o.kind !== 'tensorView') continue;
      const bad = o.domain
        .logicalNoReductions()
        .find((id) => !id.isBroadcast() && (reduced.some((r) => map.same(r, id)) || derivedThroughReshape(graph, pattern, id) === 'reduced'));
      if (bad !== undefined) {
        return { ok: false, reason: `${tvName(o)} after the reduction ${tvName(reduction)} spans a reduced dim again: needs a persistent (normalization) schedule` };
      }
    }
  }
  // Before the reduction, every tensor's iteration dims must be dims of the reduction input.
  const beforeTvs = fusion.allTvs().filter((tv) => !afterTvs.has(tv));
  // Across a slice / pad / cat, the dims on both sides are the same loop (read shifted).
  const beforeMap = hasResizeExprs(fusion) ? new ExactLogicalMap(fusion, fusion.allTvs(), { throughResize: true }) : map;
  const inputDims = input.domain.logicalNoReductions();
  const live = new Set(fusion.exprs());
  const reachesInput = (id: IterDomain): boolean => graph.hasReshape && graph.derive(id) !== null;
  for (const tv of beforeTvs) {
    if (tv.isFusionInput() && !tv.uses.some((u) => live.has(u))) continue;
    const bad = tv.domain.logicalNoReductions().find((id) => !id.isBroadcast() && id.extent.constNumber() !== 1 && !inputDims.some((k) => beforeMap.same(k, id)) && !reachesInput(id));
    if (bad !== undefined) {
      return { ok: false, reason: `${tvName(tv)} has a dim (extent ${bad.extent.symbolicName()}) that does not map to the reduction input ${tvName(input)}` };
    }
  }
  return { ok: true };
}

/** The position of an input dim that is an expanded broadcast and reduced by `reduction`, else null. */
function expandedReducedDim(reduction: TensorView, input: TensorView): number | null {
  const inDims = input.domain.logicalNoReductions();
  const outDims = reduction.domain.logical;
  const d = inDims.findIndex((id, i) => id.isBroadcast() && id.expandedExtent !== null && outDims[i]?.isReduction() === true);
  return d < 0 ? null : d;
}

/**
 * Null when the pre-reduction output `o` has a dim exactly mapped to each non-broadcast dim of
 * the reduction input (it is written once per element of the reduction loops); otherwise the
 * dims it has, for the refusal.
 */
function partialPreReductionOutput(o: TensorView, input: TensorView, map: ExactLogicalMap): string | null {
  const dims = o.domain.logicalNoReductions().filter((id) => !id.isBroadcast());
  const need = input.domain.logicalNoReductions().filter((id) => !id.isBroadcast());
  if (need.every((n) => dims.some((d) => map.same(d, n))) && dims.length === need.length) return null;
  return dims.length === 0 ? 'no dims' : `${dims.length} of ${need.length} dims`;
}
