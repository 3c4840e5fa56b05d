// Reshapes after the reduction (sum over the rows, the row sums reshaped to [B, S] and added to a
// bias): taken when the reshape does not interfere with the reduction schedule, nvFuser's
// reductionInterferingView rule. The reduction tensor's logical dims are grouped the way the
// schedule merges them — the innermost run of dims of one kind (reduced or kept), then the
// remaining dims of the kind of the new innermost, then the rest (at most three groups) — and
// the IDs each reshape after the reduction splits or merges are joined into one set with the
// IDs they come from (and every ID exactly mapped to them). The reshape interferes when one set
// holds IDs of two groups: it would merge kept dims the reduced dim separates ([I0, R1, I2]
// reshaped to [I0·I2]), or a kept dim with a reduced one. Such a reshape stays a segment
// boundary, named in the reason, and so does a reshape of an expanded broadcast (its output has a
// real dim the reduction's loops do not cover). Reshapes before the reduction are checked apart
// (reshape-before-reduction.ts) and do not take part here.
// Also: the tensors after the reduction must be indexable from the reduction input's kept dims
// (directly, or through the reshapes: pointwise/reshape-index-graph.ts).
// Invariant: an accepted fusion's tensors after the reduction read only kept dims of the
// reduction input, and no reshape after the reduction crosses a group of the schedule's merges.

import { consumersOf, IdSets, logicalDomainPairs, type Expr, type Fusion, type IterDomain, type TensorView } from '@tsfuser/fusion-ir';
import { referencePositionsOf, type ReshapeIndexGraph } from '../pointwise/reshape-index-graph.js';
import { evaluateExtent, type ExtentBindings } from '../runtime-info.js';
import type { ReductionPattern } from './analysis.js';

/**
 * The schedule's merge groups of the reduction tensor's logical dims (positions), innermost
 * first. Broadcasts and dims of extent 1 at run time (`isOne`) carry no index and are left out.
 */
export function reductionMergeGroups(reduction: TensorView, isOne: (id: IterDomain) => boolean = () => false): number[][] {
  let dims = reduction.domain.logical.flatMap((id, d) => (id.isBroadcast() || isOne(id) ? [] : [d]));
  const reduced = (d: number): boolean => (reduction.domain.logical[d] as IterDomain).isReduction();
  const groups: number[][] = [];
  for (let g = 0; g < 3 && dims.length > 0; g += 1) {
    const kind = reduced(dims[dims.length - 1] as number);
    const group: number[] = [];
    for (let k = dims.length - 1; k >= 0; k -= 1) {
      const d = dims[k] as number;
      if (reduced(d) !== kind) {
        if (g === 0) break; // the innermost group is a contiguous run
        continue;
      }
      group.push(d);
    }
    groups.push(group);
    dims = dims.filter((d) => !group.includes(d));
  }
  return groups;
}

function describeGroup(reduction: TensorView, group: readonly number[]): string {
  const kind = (reduction.domain.logical[group[0] as number] as IterDomain).isReduction() ? 'reduced' : 'kept';
  return `${kind} dim${group.length > 1 ? 's' : ''} ${[...group].sort((a, b) => a - b).join(', ')}`;
}

/**
 * The IDs a reshape really joins, given the run-time extents: its root and logical dims are
 * grouped where their running products meet ([10, 4] → [10, 4] is two groups of one dim each,
 * [4, 6] → [2, 12] one group of four), as nvFuser's analyzeView does with concrete sizes.
 * reshape.ts builds every reshape as one merge of all root dims split into the new sizes, so
 * its exprs alone would join every dim. Dims of extent 1 join no group.
 */
function reshapeGroups(root: readonly IterDomain[], logical: readonly IterDomain[], bindings: ExtentBindings): IterDomain[][] {
  const ext = (id: IterDomain): number => evaluateExtent(id.extent, bindings);
  const a = root.filter((id) => ext(id) !== 1);
  const b = logical.filter((id) => ext(id) !== 1);
  const groups: IterDomain[][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const g: IterDomain[] = [a[i] as IterDomain, b[j] as IterDomain];
    let pa = ext(a[i] as IterDomain);
    let pb = ext(b[j] as IterDomain);
    i += 1;
    j += 1;
    while (pa !== pb && (i < a.length || j < b.length)) {
      if ((pa < pb && i < a.length) || j >= b.length) {
        pa *= ext(a[i] as IterDomain);
        g.push(a[i] as IterDomain);
        i += 1;
      } else {
        pb *= ext(b[j] as IterDomain);
        g.push(b[j] as IterDomain);
        j += 1;
      }
    }
    groups.push(g);
  }
  // Left-over dims (mismatched counts cannot occur for a valid reshape) join the last group.
  const rest = [...a.slice(i), ...b.slice(j)];
  if (rest.length > 0) groups.push([...(groups.pop() ?? []), ...rest]);
  return groups;
}

/**
 * Why a reshape after the reduction interferes with the reduction schedule (nvFuser's
 * reductionInterferingView), naming the first such reshape, or null.
 */
export function interferingReshapeAfterReduction(fusion: Fusion, p: ReductionPattern, after: ReadonlySet<Expr>, bindings: ExtentBindings): string | null {
  const views = fusion.exprs().filter((e) => e.kind === 'ViewOp' && after.has(e));
  if (views.length === 0) return null;
  for (const e of views) {
    // An expanded broadcast reshaped becomes a real dim the reduction kernel does not iterate.
    const input = e.inputs[0] as TensorView;
    const d = input.domain.logicalNoReductions().findIndex((id) => id.isBroadcast() && id.expandedExtent !== null && evaluateExtent(id.expandedExtent, bindings) !== 1);
    if (d >= 0) {
      return `reshape producing T${(e.outputs[0] as TensorView).name} after the reduction T${p.reduction.name} reads the expanded broadcast dim ${d} of T${input.name}: its output would span a dim the reduction kernel does not iterate (a segment boundary)`;
    }
  }
  const groups = reductionMergeGroups(p.reduction, (id) => evaluateExtent(id.extent, bindings) === 1);
  if (groups.length < 2) return null;
  const sets = new IdSets();
  const tvs = fusion.allTvs();
  const inSet = new Set(tvs);
  for (const tv of tvs) {
    for (const c of consumersOf(tv)) {
      if (!inSet.has(c)) continue;
      for (const pr of logicalDomainPairs(tv, c)) if (pr.exact) sets.union(pr.producer, pr.consumer);
    }
  }
  const logical = p.reduction.domain.logical;
  for (const e of views) {
    const out = e.outputs[0] as TensorView;
    if (out.domain.root === null) continue;
    for (const g of reshapeGroups(out.domain.root, out.domain.logical, bindings)) {
      const [first, ...rest] = g;
      for (const id of rest) sets.union(first as IterDomain, id);
    }
    const setsOf = groups.map((g) => new Set(g.map((d) => sets.find(logical[d] as IterDomain))));
    for (let a = 0; a < groups.length; a += 1) {
      for (let b = a + 1; b < groups.length; b += 1) {
        if (![...(setsOf[a] as Set<IterDomain>)].some((s) => (setsOf[b] as Set<IterDomain>).has(s))) continue;
        return (
          `reshape producing T${out.name} after the reduction T${p.reduction.name} joins its ${describeGroup(p.reduction, groups[b] as number[])} with its ` +
          `${describeGroup(p.reduction, groups[a] as number[])}, which the reduction schedule merges apart (nvFuser's reductionInterferingView): a segment boundary`
        );
      }
    }
  }
  return null;
}

/**
 * For a dim of a tensor after the reduction that is not directly one of the kept dims: whether
 * it is derived through reshapes from kept dims of the reduction input only ('kept'), reads a
 * reduced dim ('reduced'), or is not derived at all ('none').
 */
export function derivedThroughReshape(graph: ReshapeIndexGraph, p: ReductionPattern, id: IterDomain): 'kept' | 'reduced' | 'none' {
  if (!graph.hasReshape) return 'none';
  const d = graph.derive(id);
  if (d === null) return 'none';
  const positions = [...referencePositionsOf(d)];
  return positions.some((x) => p.reducedDims.includes(x)) ? 'reduced' : 'kept';
}
